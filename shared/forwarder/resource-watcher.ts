// One (cluster, resource): list (paged) + watch with bookmarks from the last resourceVersion, for as long as it
// runs. A stored checkpoint resumes the watch without a relist; 410 Gone (or "too large resource version")
// relists; a closed stream watches again from the last resourceVersion; errors back off (an unreachable cluster
// only delays its own watchers).
// Everything read is trimmed (admit) before it is held, lists are applied page by page (pages bounded in bytes,
// resources.ts listPages) and take one of the process's relist slots (relist-slots.ts).
// Events and bookmarks are handled one at a time, in order, from a buffer bounded in events and in bytes; the resourceVersion advances
// only after the hooks succeeded, and never again in a stream after a failed event, so a checkpoint is never
// ahead of what reached the queue. A full buffer ends the stream; the watch resumes from the last handled
// resourceVersion and the apiserver sends the rest again. Whatever the stream delivers is untrusted: a line
// that is not an event with an object and metadata is skipped, never thrown.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import type { EventType } from './event-keys.js';
import type { Logger } from '../runtime/logger.js';
import {
  FIRST_PAGE_LIMIT,
  isKubeObject,
  listPages,
  nextPageLimit,
  watchPath,
  type KubeObject,
  type Lister,
  type Resource,
  type ResourceTable,
} from './resources.js';
import { approxBytes } from './object-trim.js';
import type { RelistSlots } from './relist-slots.js';
import { isUnreachable } from '../kube/errors.js';
import { isExpiredError, outcomeOfDone, outcomeOfStatus, type WatchOutcome } from './watch-errors.js';

/** initial: no checkpoint; expired: 410 Gone; warm: resuming from a checkpoint, list only to refill memory. */
export type ListReason = 'initial' | 'expired' | 'warm';
export type RestartReason = 'ended' | 'timeout' | 'expired' | 'error' | 'overflow';

/**
 * One watch event handed to the hooks. `oversized`: the object was larger than maxObjectBytes even trimmed, and
 * only its metadata is handed over (its keys can be made; its content must be read from the apiserver).
 */
export type WatchedEvent = { readonly type: EventType; readonly object: KubeObject; readonly oversized?: true };

export type WatcherHooks = {
  /**
   * The events that arrived while the last batch was handled, in order (at most MAX_BATCH): handled together,
   * so a burst costs a few round trips to the cache, log and queue rather than a few per event. The
   * checkpoint moves past the batch only once this resolved; a failure fails the whole batch.
   */
  onEvents(events: readonly WatchedEvent[]): Promise<void>;
  /**
   * A complete list and the resourceVersion it was read at. `paged`: its pages were handed to onListPage
   * already (their keys enqueued) and `objects` is empty (a list is never held whole); else `objects` is it all.
   */
  onList(reason: ListReason, objects: readonly KubeObject[], resourceVersion: string, paged?: boolean): Promise<void>;
  /**
   * One page of a list, before the next is asked for (and, resumable, before its progress is saved). `first`:
   * the list's first page (what an earlier run or attempt of it handed over is superseded). Without this hook a
   * list is collected whole and handed to onList.
   */
  onListPage?(reason: ListReason, objects: readonly KubeObject[], first: boolean): Promise<void>;
  /**
   * Asked when a resumable initial or expired list that went on from a saved token is complete: whether what the
   * hooks keep lacks its earlier pages (another run handed them over), so that a warm list must refill it before
   * the watch starts.
   */
  needsWarmAfterResume?(): boolean;
  /** A page's progress was saved (a resumable list or warm list went on): the run made lasting progress. */
  onListProgress?(reason: ListReason): void;
  /** The resourceVersion up to which everything was handled (after events, bookmarks and lists). */
  onProgress(resourceVersion: string): void;
  onRestart(reason: RestartReason): void;
  onError(operation: 'list' | 'watch', error: unknown): void;
};

/** Starts one watch request (client-node's Watch.watch); resolves to something that aborts it. */
export type WatchStarter = (
  path: string,
  params: Record<string, string | number | boolean>,
  onLine: (type: unknown, object: unknown) => void,
  done: (err: unknown) => void,
) => Promise<{ abort(): void }>;

export type ResourceWatcherOptions = {
  readonly cluster: string;
  readonly resource: Resource;
  readonly kubeConfig: KubeConfig;
  readonly lister: Lister;
  /** Where the resource is in the API (its watch path); default the controllers' descriptors (resources.ts). */
  readonly resourceTable?: ResourceTable;
  readonly hooks: WatcherHooks;
  readonly logger: Logger;
  /** The stored checkpoint; absent → initial list. */
  readonly resumeFrom?: string;
  /** When resuming, list once to refill in-memory state (no keys are enqueued for it). */
  readonly warmOnResume?: boolean;
  readonly pageSize?: number;
  readonly backoff?: BackoffOptions;
  /** Server-side watch timeout; default random in [300, 600) s like client-go. */
  readonly watchTimeoutSeconds?: number;
  /** Events and bookmarks received but not yet handled, at most; default 1 000. */
  readonly maxPending?: number;
  /** Bytes (approximate, as JSON, after trimming) of the events received but not yet handled; default 32 MiB. */
  readonly maxPendingBytes?: number;
  /**
   * One object (trimmed) larger than this is not held whole: its event carries its metadata only (`oversized`)
   * and a warning names it and its size; default 2 MiB (above what etcd stores, so only a lower setting bites).
   */
  readonly maxObjectBytes?: number;
  /** Bytes a list page should hold at most (the page limit adapts to the objects' size); default 8 MiB. */
  readonly maxPageBytes?: number;
  /** Applied to every object listed or watched before anything holds it (object-trim.ts); default none. */
  readonly admit?: (object: KubeObject) => KubeObject;
  /** Slots that bound how many lists run at once in the process; default none (unbounded). */
  readonly relistSlots?: RelistSlots;
  /** How a watch request is made; default client-node's Watch on kubeConfig. */
  readonly watch?: WatchStarter;
  /**
   * Makes initial and expired lists resumable across runs (the scheduled forwarder): each page is handed to
   * onListPage, then the continue token and the list's resourceVersion are saved here, and a later run goes on
   * from the saved token. A saved token that no longer works (expired, or from another incarnation of the
   * cluster) starts the list over. '' clears it.
   */
  readonly listProgress?: ListProgressStore;
  /**
   * Makes warm lists resumable the same way, from where the hooks keep what they refill (the scheduled
   * forwarder's memory, kept while its Lambda container is warm): pages go to onListPage; no key is enqueued.
   */
  readonly warmProgress?: ListProgressStore;
};

/** Where a resumable list keeps its continue token and resourceVersion between runs ('' clears it). */
export type ListProgressStore = { load(): Promise<string | undefined>; save(value: string): Promise<void> };

export const DEFAULT_MAX_PENDING = 1_000;
export const DEFAULT_MAX_PENDING_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_OBJECT_BYTES = 2 * 1024 * 1024;
/** The most events handed to onEvents at once. */
export const MAX_BATCH = 200;

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

type Pending = {
  readonly type: EventType | 'BOOKMARK';
  readonly object: KubeObject;
  readonly rv: string | undefined;
  readonly bytes: number;
  readonly oversized?: true;
};

export class ResourceWatcher {
  readonly resource: Resource;
  /**
   * Most events (and bytes) waiting at once in one stream; lines skipped as not being an event with an object;
   * events whose object was over maxObjectBytes; the largest object seen (bytes, after trimming) and its name.
   */
  readonly stats = { peakPending: 0, peakPendingBytes: 0, skipped: 0, oversized: 0, largest: { bytes: 0, name: '' } };
  private rv: string | undefined;
  private stopping = false;
  private readonly stopSignal = new AbortController();
  private current: { abort(): void } | undefined;
  private loop: Promise<void> | undefined;
  private readonly maxPending: number;
  private readonly maxPendingBytes: number;
  private readonly maxObjectBytes: number;
  private markSyncedPromise!: () => void;
  private syncedYet = false;
  private refillRequested = false;
  /** Callers of refill() whose list has not started yet, and those whose list has (a failed list is retried). */
  private readonly refillWaiters: Array<() => void> = [];
  private readonly refilling: Array<() => void> = [];
  /** Resolves once the first list (or warm list) is done, or at once when resuming without one. */
  readonly synced = new Promise<void>((resolve) => (this.markSyncedPromise = resolve));

  /** Whether the first list (or warm list) is done: what the hooks keep is complete from here on. */
  get isSynced(): boolean {
    return this.syncedYet;
  }

  private markSynced(): void {
    this.syncedYet = true;
    this.markSyncedPromise();
  }

  constructor(private readonly o: ResourceWatcherOptions) {
    this.resource = o.resource;
    this.rv = o.resumeFrom;
    this.maxPending = Math.max(1, o.maxPending ?? DEFAULT_MAX_PENDING);
    this.maxPendingBytes = Math.max(1, o.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES);
    this.maxObjectBytes = Math.max(1, o.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES);
  }

  get resourceVersion(): string | undefined {
    return this.rv;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Lists once more (a warm list: nothing enqueued, the watch goes on from where it was) to refill what the
   * hooks keep, e.g. a cache that lost its data; the current watch is ended to get there at once.
   */
  refill(): Promise<void> {
    this.refillRequested = true;
    this.current?.abort();
    return new Promise((resolve) => this.refillWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    this.current?.abort();
    await this.loop;
    // Stopped: nothing will be listed for them any more; a refill's caller must not wait forever.
    for (const done of [...this.refilling.splice(0), ...this.refillWaiters.splice(0)]) done();
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.o.backoff);
    let pending: ListReason | undefined = this.rv === undefined ? 'initial' : this.o.warmOnResume ? 'warm' : undefined;
    if (pending === undefined) this.markSynced();
    while (!this.stopping) {
      try {
        if (this.refillRequested) {
          this.refillRequested = false;
          pending ??= 'warm';
          this.refilling.push(...this.refillWaiters.splice(0));
        }
        if (pending !== undefined) {
          const resumed = await this.list(pending);
          // A list that went on from another run's pages: refill what the hooks lack before watching.
          pending = resumed && pending !== 'warm' && this.o.hooks.needsWarmAfterResume?.() ? 'warm' : undefined;
          if (pending !== undefined) continue;
          this.markSynced();
          // The refills asked for before this list are done: every object is in the cache again.
          for (const done of this.refilling.splice(0)) done();
        }
        // A refill asked for while that list ran (a data loss met mid-list: its earlier pages went to the data that
        // was lost) gets a list of its own now; the watch would hold it until the stream ended.
        if (this.refillRequested) continue;
        if (this.stopping) return;
        const outcome = await this.watchOnce(this.rv ?? '');
        if (outcome.kind === 'stopped') return;
        if (outcome.kind === 'failed') throw outcome.error;
        if (outcome.kind === 'expired') {
          this.o.logger.warn('Watch expired, relisting', { resourceVersion: this.rv, reason: outcome.message });
          this.o.hooks.onRestart('expired');
          pending = 'expired';
          continue;
        }
        if (outcome.kind === 'overflow') {
          // Everything buffered was handled; the apiserver sends the rest again from there.
          this.o.hooks.onRestart('overflow');
          this.o.logger.info('Watch buffer full, watching again', {
            resourceVersion: this.rv,
            maxPending: this.maxPending,
          });
          backoff.reset();
          continue;
        }
        this.o.hooks.onRestart(outcome.reason);
        this.o.logger.debug('Watch ended, watching again', { reason: outcome.reason, resourceVersion: this.rv });
        // A stream that ends at once with nothing in it is a misbehaving server or proxy: do not spin.
        if (outcome.events > 0 || outcome.durationMs >= 1_000) backoff.reset();
        else await sleep(backoff.next(), this.stopSignal.signal);
      } catch (error) {
        if (this.stopping) return;
        const operation = pending === undefined ? 'watch' : 'list';
        const retryInMs = backoff.next();
        this.o.hooks.onError(operation, error);
        this.o.hooks.onRestart('error');
        this.o.logger.error(operation === 'list' ? 'List failed' : 'Watch failed', {
          err: error,
          unreachable: isUnreachable(error),
          attempt: backoff.attempts,
          retryInMs,
        });
        await sleep(retryInMs, this.stopSignal.signal);
      }
    }
  }

  /** Lists; returns whether a resumable list went on from a saved continue token. */
  private async list(reason: ListReason): Promise<boolean> {
    let release: (() => void) | undefined;
    try {
      return await this.listInSlot(reason, async () => {
        release ??= await this.takeSlot();
      });
    } finally {
      release?.();
    }
  }

  /** A relist slot, waited for (logged when it has to wait); none without relistSlots. */
  private async takeSlot(): Promise<() => void> {
    const slots = this.o.relistSlots;
    if (!slots) return () => undefined;
    if (slots.active >= slots.max) this.o.logger.info('List waiting for a relist slot', { waiting: slots.waiting + 1 });
    return this.untilStopped(slots.acquire(this.stopSignal.signal));
  }

  private paging(): { pageSize: number; maxPageBytes?: number; trim?: (o: KubeObject) => KubeObject } {
    return {
      pageSize: this.o.pageSize ?? 500,
      ...(this.o.maxPageBytes === undefined ? {} : { maxPageBytes: this.o.maxPageBytes }),
      ...(this.o.admit && { trim: this.o.admit }),
    };
  }

  /** `slot` is called once the first page came back (a cluster that does not answer takes no slot). */
  private async listInSlot(reason: ListReason, slot: () => Promise<void>): Promise<boolean> {
    const progress = reason === 'warm' ? this.o.warmProgress : this.o.listProgress;
    if (progress && this.o.hooks.onListPage) return this.resumableList(reason, progress, slot);
    const onPage = this.o.hooks.onListPage;
    const pages = listPages(this.o.lister, this.o.resource, this.paging(), isExpiredError);
    const all: KubeObject[] = [];
    let skipped = 0;
    let objects = 0;
    let resourceVersion = '';
    for (;;) {
      const next = await this.untilStopped(pages.next());
      if (next.done) break;
      const page = next.value;
      await slot();
      if (page.first) {
        all.length = 0;
        skipped = 0;
        objects = 0;
      }
      skipped += page.skipped;
      objects += page.items.length;
      resourceVersion = page.resourceVersion;
      this.noteLargest(page.items);
      if (onPage) await onPage(reason, page.items, page.first);
      else all.push(...page.items);
    }
    if (skipped > 0) {
      this.stats.skipped += skipped;
      this.o.logger.warn('Listed items skipped: not objects with metadata', { reason, skipped });
    }
    await this.o.hooks.onList(reason, all, resourceVersion, onPage !== undefined);
    this.o.logger.info('Listed', { reason, objects, resourceVersion });
    if (reason === 'warm') return false;
    this.rv = resourceVersion;
    this.o.hooks.onProgress(resourceVersion);
    return false;
  }

  private noteLargest(objects: readonly KubeObject[]): void {
    for (const object of objects) {
      const bytes = approxBytes(object);
      if (bytes > this.stats.largest.bytes) this.stats.largest = { bytes, name: objectName(object) };
    }
  }

  /** A list that goes on from the last run's continue token, page by page (listProgress, warmProgress). */
  private async resumableList(
    reason: ListReason,
    progress: ListProgressStore,
    slot: () => Promise<void>,
  ): Promise<boolean> {
    const onPage = this.o.hooks.onListPage as NonNullable<WatcherHooks['onListPage']>;
    const saved = parseListProgress(await this.untilStopped(progress.load()));
    let token = saved?.continueToken;
    let resourceVersion = saved?.resourceVersion ?? '';
    let resumed = token !== undefined;
    if (resumed) this.o.logger.info('Resuming list', { reason, resourceVersion });
    let listed = 0;
    let limit = Math.min(this.o.pageSize ?? 500, FIRST_PAGE_LIMIT);
    // `continue` starts over from the first page (a do/while would test the cleared token and stop).
    for (;;) {
      let page;
      try {
        page = await this.untilStopped(
          this.o.lister(this.o.resource, {
            limit,
            ...(token === undefined ? {} : { continueToken: token }),
          }),
        );
      } catch (err) {
        // An expired token (410), or one the apiserver refuses (400: e.g. saved from another incarnation of the
        // cluster), starts the list over (its keys are enqueued again); anything else is retried with backoff.
        const refused = isExpiredError(err) || (err as { code?: unknown }).code === 400;
        if (this.stopping || token === undefined || !refused) throw err;
        this.o.logger.warn('Continue token refused, listing from the start', { reason, err });
        token = undefined;
        resumed = false;
        resourceVersion = '';
        listed = 0;
        await progress.save('');
        continue;
      }
      await slot();
      const valid = (Array.isArray(page.items) ? page.items : []).filter(isKubeObject);
      const bytes = valid.reduce((n, o) => n + approxBytes(o), 0);
      limit = nextPageLimit(limit, valid.length, bytes, this.paging());
      const admit = this.o.admit;
      const objects = admit ? valid.map((o) => admit(o)) : valid;
      const first = token === undefined;
      if (first) resourceVersion = page.resourceVersion;
      this.noteLargest(objects);
      await onPage(reason, objects, first);
      listed += objects.length;
      token = page.continueToken;
      await progress.save(token === undefined ? '' : JSON.stringify({ continueToken: token, resourceVersion }));
      this.o.hooks.onListProgress?.(reason);
      if (token === undefined) break;
    }
    await this.o.hooks.onList(reason, [], resourceVersion, true);
    this.o.logger.info('Listed', { reason, objects: listed, resourceVersion, paged: true, resumed });
    if (reason === 'warm') return resumed;
    this.rv = resourceVersion;
    this.o.hooks.onProgress(resourceVersion);
    return resumed;
  }

  private watchOnce(fromRv: string): Promise<WatchOutcome> {
    return new Promise<WatchOutcome>((resolve) => {
      const started = Date.now();
      let events = 0;
      let outcome: WatchOutcome | undefined;
      /** A handler failed (or stop): nothing more of this stream is handled, and the checkpoint stays put. */
      let halted = false;
      let finished = false;
      const buffer: Pending[] = [];
      let bufferedBytes = 0;
      let draining: Promise<void> | undefined;
      this.current = undefined;

      const settle = (o: WatchOutcome): void => {
        outcome ??= o;
        this.current?.abort();
      };
      const drain = async (): Promise<void> => {
        await undefined; // `draining` is set before the first item is handled
        while (buffer.length > 0 && !halted && !this.stopping) {
          const batch = buffer.slice(0, MAX_BATCH);
          const events = batch.flatMap((p): WatchedEvent[] =>
            p.type === 'BOOKMARK' ? [] : [{ type: p.type, object: p.object, ...(p.oversized && { oversized: true }) }],
          );
          try {
            if (events.length > 0) await this.o.hooks.onEvents(events);
            if (this.stopping) break;
            this.advance(lastResourceVersion(batch));
          } catch (error) {
            halted = true;
            settle({ kind: 'failed', error });
            break;
          }
          for (const p of buffer.splice(0, batch.length)) bufferedBytes -= p.bytes;
        }
        if (halted || this.stopping) {
          buffer.length = 0;
          bufferedBytes = 0;
        }
      };
      const kick = (): void => {
        if (draining !== undefined || halted) return;
        draining = drain().finally(() => {
          draining = undefined;
          if (buffer.length > 0) kick();
        });
      };
      const idle = async (): Promise<void> => {
        while (draining !== undefined) await draining;
      };
      const onStop = (): void => done(null);
      const done = (err: unknown): void => {
        if (finished) return;
        finished = true;
        this.stopSignal.signal.removeEventListener('abort', onStop);
        // A stream ended by refill() ended on purpose: no error, the loop lists and watches on.
        const refill = this.refillRequested && outcome === undefined;
        const ended = { kind: 'ended', reason: 'ended', events, durationMs: Date.now() - started } as const;
        void idle().then(() =>
          resolve(
            this.stopping
              ? { kind: 'stopped' }
              : refill
                ? ended
                : (outcome ?? outcomeOfDone(err, events, Date.now() - started)),
          ),
        );
      };
      const skip = (why: string, type: unknown): void => {
        this.stats.skipped++;
        this.o.logger.warn('Watch line skipped', {
          why,
          type: typeof type === 'string' ? type.slice(0, 40) : typeof type,
        });
      };
      const onLine = (type: unknown, object: unknown): void => {
        try {
          if (finished || outcome !== undefined || this.stopping) return;
          if (type === 'ERROR') return settle(outcomeOfStatus(object));
          if (type !== 'BOOKMARK' && !(typeof type === 'string' && EVENT_TYPES.has(type))) {
            return skip('unknown event type', type);
          }
          if (!isObjectWithMetadata(object)) return skip('not an object with metadata', type);
          const rv = object.metadata.resourceVersion;
          if (rv !== undefined && typeof rv !== 'string') return skip('resourceVersion is not a string', type);
          const admitted = type === 'BOOKMARK' || !this.o.admit ? object : this.o.admit(object);
          let held: KubeObject = admitted;
          let bytes = approxBytes(admitted, this.maxObjectBytes);
          if (bytes > this.stats.largest.bytes) this.stats.largest = { bytes, name: objectName(admitted) };
          const oversized = bytes > this.maxObjectBytes;
          if (oversized) {
            // Not held whole: its keys are still made from its metadata, and a handler reads it live.
            this.stats.oversized++;
            this.o.logger.warn('Watched object over the size cap: only its metadata is kept', {
              cluster: this.o.cluster,
              resource: this.o.resource,
              namespace: stringOr(admitted.metadata?.namespace),
              name: stringOr(admitted.metadata?.name),
              bytesAtLeast: bytes,
              maxObjectBytes: this.maxObjectBytes,
            });
            held = metadataOnly(admitted);
            bytes = approxBytes(held);
          }
          // Dropped, not lost: the checkpoint has not passed it, and the next watch starts before it.
          if (buffer.length >= this.maxPending) return settle({ kind: 'overflow' });
          if (buffer.length > 0 && bufferedBytes + bytes > this.maxPendingBytes) return settle({ kind: 'overflow' });
          if (type !== 'BOOKMARK') events++;
          buffer.push({
            type: type as Pending['type'],
            object: held,
            rv,
            bytes,
            ...(oversized && { oversized: true }),
          });
          bufferedBytes += bytes;
          if (buffer.length > this.stats.peakPending) this.stats.peakPending = buffer.length;
          if (bufferedBytes > this.stats.peakPendingBytes) this.stats.peakPendingBytes = bufferedBytes;
          kick();
        } catch (error) {
          // Never throw into the watch client (it would drop the line silently): end this stream instead.
          settle({ kind: 'failed', error });
        }
      };
      // A connect that hangs (a black-holed cluster) must not hold up stop().
      this.stopSignal.signal.addEventListener('abort', onStop, { once: true });
      const timeoutSeconds = this.o.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300);
      const params = { resourceVersion: fromRv, allowWatchBookmarks: true, timeoutSeconds };
      const watch = this.o.watch ?? clientWatch(this.o.kubeConfig);
      watch(watchPath(this.o.resource, this.o.resourceTable), params, onLine, done).then((controller) => {
        this.current = controller;
        // Stopped, settled, or a refill asked for while this watch connected (refill() found no stream to end).
        if (this.stopping || outcome !== undefined || this.refillRequested) controller.abort();
      }, done);
    });
  }

  /** The promise's value, or a rejection as soon as stop() is called (the request itself is left to finish). */
  private untilStopped<T>(promise: Promise<T>): Promise<T> {
    const signal = this.stopSignal.signal;
    if (signal.aborted) return Promise.reject(new Error('stopped'));
    return new Promise<T>((resolve, reject) => {
      const onStop = (): void => reject(new Error('stopped'));
      signal.addEventListener('abort', onStop, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onStop));
    });
  }

  private advance(rv: string | undefined): void {
    if (rv === undefined || rv === '') return;
    this.rv = rv;
    this.o.hooks.onProgress(rv);
  }
}

function parseListProgress(value: string | undefined): { continueToken: string; resourceVersion: string } | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    const parsed = JSON.parse(value) as { continueToken?: unknown; resourceVersion?: unknown };
    if (typeof parsed.continueToken === 'string' && typeof parsed.resourceVersion === 'string') {
      return { continueToken: parsed.continueToken, resourceVersion: parsed.resourceVersion };
    }
  } catch {
    // not ours: start over
  }
  return undefined;
}

/** The last resourceVersion a batch carries (an object without one does not move the checkpoint). */
function lastResourceVersion(batch: readonly Pending[]): string | undefined {
  for (let i = batch.length - 1; i >= 0; i--) {
    const rv = batch[i]?.rv;
    if (rv !== undefined && rv !== '') return rv;
  }
  return undefined;
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 253) : '';
}

function objectName(object: KubeObject): string {
  const ns = stringOr(object.metadata?.namespace);
  return ns === '' ? stringOr(object.metadata?.name) : `${ns}/${stringOr(object.metadata?.name)}`;
}

/** What the mapping needs of an object too large to hold: its identity, owners, labels and deletion. */
function metadataOnly(object: KubeObject): KubeObject {
  const m = (object.metadata ?? {}) as Record<string, unknown>;
  const keep = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'labels', 'ownerReferences'] as const;
  const metadata: Record<string, unknown> = {};
  for (const k of [...keep, 'deletionTimestamp', 'creationTimestamp']) if (k in m) metadata[k] = m[k];
  const out: Record<string, unknown> = { metadata };
  const raw = object as unknown as Record<string, unknown>;
  if (typeof raw.kind === 'string') out.kind = raw.kind;
  if (typeof raw.apiVersion === 'string') out.apiVersion = raw.apiVersion;
  return out as unknown as KubeObject;
}

function isObjectWithMetadata(value: unknown): value is KubeObject & { metadata: { resourceVersion?: unknown } } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const metadata = (value as { metadata?: unknown }).metadata;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
}

function clientWatch(kc: KubeConfig): WatchStarter {
  return (path, params, onLine, done) => {
    const watch = new Watch(kc);
    // client-node aborts a watch after 30 s without data; the apiserver sends a bookmark about once a
    // minute, so allow for that before presuming the connection dead.
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = 90_000;
    return watch.watch(path, params, onLine, done);
  };
}
