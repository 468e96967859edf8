// The forwarder of one cluster: a ResourceWatcher per watched resource, the workload index and previous-state
// memory the mapping needs, queue.add for every key, the event log, throttled checkpoints and a periodic
// resync. start()/stop() for the long-running mode; runFor(ms) for a scheduled, time-boxed run.
// Checkpoints are bound to the cluster's identity (cluster-identity.ts): watching starts once it was read and
// compared. A key made from bad data is recorded and skipped (invalid-keys.ts); a failed queue.add is not: the
// watch starts again from before that event, so the checkpoint never passes it.
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { MalformedKeyError, keyString, type ReconcileKey } from '../kube/key.js';
import type { Kind } from '../kube/kinds.js';
import { servedKinds } from '../kube/registry.js';
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import { trimObject, type EventLog, type LoggedEvent, type LoggedEventType } from '../queue/history/event-log.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { CheckpointWriter, type CheckpointWriterOptions } from './checkpoint-writer.js';
import {
  IDENTITY_CHECKPOINT,
  bindCheckpoints,
  readClusterIdentity,
  readCurrentResourceVersion,
} from './cluster-identity.js';
import { eventKeys, type EventKeys, type InvalidKey, type KeyContext } from './event-keys.js';
import { InvalidKeyRecorder } from './invalid-keys.js';
import { Logger } from '../runtime/logger.js';
import { forwarderMetrics, type ForwarderMetrics } from './metrics.js';
import { PreviousState, isPreviousTracked } from './previous-state.js';
import {
  ResourceWatcher,
  type ListProgressStore,
  type ListReason,
  type WatchedEvent,
  type WatchStarter,
} from './resource-watcher.js';
import {
  kindOfResource,
  dependentKinds,
  makeLister,
  watchedResources,
  type KubeObject,
  type Lister,
  type Resource,
} from './resources.js';
import { runResumableResync, runResync } from './resync.js';
import type { ForwarderMemory } from './forwarder-memory.js';
import { isUnreachable } from '../kube/errors.js';
import { applyEvent } from '../cache/apply-event.js';
import type { CacheStore } from '../cache/cache-store.js';
import { WorkloadIndex, isIndexedResource } from './workload-index.js';
import { cacheEntry } from '../cache/cache-entry.js';
import { resourceOf } from '../kube/resources.js';
import { forwarderLimitsFromEnv, type ForwarderLimits } from './forwarder-limits.js';
import { trimForForwarder } from './object-trim.js';
import { processRelistSlots, type RelistSlots } from './relist-slots.js';

export type ForwarderOptions = {
  readonly cluster: string;
  readonly kubeConfig: KubeConfig;
  readonly owns: readonly Kind[];
  /** Kinds not owned whose objects are handed over one by one (registry `handOver`); watched and mapped too. */
  readonly handOver?: readonly Kind[];
  readonly queue: Pick<WorkQueue, 'add' | 'parkInvalid'>;
  readonly checkpoints: CheckpointStore;
  readonly eventLog?: EventLog;
  readonly logger?: Logger;
  readonly registry?: Registry;
  /** Periodic resync interval; default 300 000 (5 min); 0 disables. */
  readonly resyncMs?: number;
  readonly checkpoint?: CheckpointWriterOptions;
  readonly pageSize?: number;
  readonly backoff?: BackoffOptions;
  /** Write relist snapshots to the event log as LISTED entries (a baseline for replay); default true. */
  readonly logListed?: boolean;
  readonly lister?: Lister;
  readonly now?: () => number;
  /** Per watched resource, events received but not yet handled, at most (default 1 000); more ends the stream. */
  readonly maxPendingEvents?: number;
  /**
   * Memory bounds in bytes: trimming, the per-object cap, each watch buffer and each list page (default from
   * the environment, forwarder-limits.ts).
   */
  readonly limits?: ForwarderLimits;
  /** Bounds how many lists run at once; default the process's (FLEETQ_MAX_CONCURRENT_RELISTS); null: none. */
  readonly relistSlots?: RelistSlots | null;
  /** Server-side timeout of each watch request; default random in [300, 600) s. */
  readonly watchTimeoutSeconds?: number;
  /** How watch requests are made; default client-node's Watch. */
  readonly watch?: WatchStarter;
  /** The cluster's identity; default the uid of its kube-system namespace. */
  readonly identity?: () => Promise<string>;
  /** The cluster's current resourceVersion, read with the identity; default a one-item namespace list. */
  readonly currentResourceVersion?: () => Promise<string>;
  /**
   * The object cache this forwarder materializes (the informer): every event is applied to it before its keys
   * are enqueued, so a handler woken by an event reads a cache that has it. With a cache, every watched
   * resource is listed on resume too (the store may be empty or behind).
   */
  readonly cache?: CacheStore;
  /**
   * The scheduled mode's memory between runs (forwarder-memory.ts): its index and previous state are used, a
   * resource it holds as of its checkpoint needs no warm list, and warm lists go on across runs in it.
   */
  readonly memory?: ForwarderMemory;
};

export type ForwarderStats = {
  events: number;
  keysAdded: number;
  /** Full lists that enqueued every key: no checkpoint (initial) or 410 Gone (expired). */
  relists: { initial: number; expired: number };
  /** Lists made on resume only to refill the workload index / previous state; they enqueue nothing. */
  warmLists: number;
  watchRestarts: number;
  resyncs: number;
  errors: number;
  /** Keys not enqueued because they were made from bad data (recorded with parkInvalid instead). */
  invalidKeys: number;
  /** Checkpoints discarded because the cluster's identity changed. */
  identityChanges: number;
};

/** How often a forwarder says it keeps its cache current; readers stop trusting it after 3 missed beats. */
export const CACHE_HEARTBEAT_MS = 5_000;

/** Checkpoint-store entry holding when this cluster was last resynced (epoch ms), for runFor. */
export const RESYNC_CHECKPOINT = '@resync';

/** Checkpoint-store entry `<resource>@list`: a resumable list's continue token and resourceVersion (runFor). */
export const LIST_PROGRESS_SUFFIX = '@list';

/** Checkpoint-store entry of a resync in progress (runFor): its resource and next page's continue token. */
export const RESYNC_PROGRESS = '@resync@list';

export class Forwarder {
  readonly cluster: string;
  readonly resources: readonly Resource[];
  readonly stats: ForwarderStats = {
    events: 0,
    keysAdded: 0,
    relists: { initial: 0, expired: 0 },
    warmLists: 0,
    watchRestarts: 0,
    resyncs: 0,
    errors: 0,
    invalidKeys: 0,
    identityChanges: 0,
  };
  private readonly index: WorkloadIndex;
  private readonly previous: PreviousState;
  private readonly ctx: KeyContext;
  private readonly logger: Logger;
  private readonly metrics: ForwarderMetrics;
  private readonly lister: Lister;
  private readonly writer: CheckpointWriter;
  private readonly invalid: InvalidKeyRecorder;
  private readonly now: () => number;
  private readonly stopSignal = new AbortController();
  private watchers: ResourceWatcher[] = [];
  private launching: Promise<void> = Promise.resolve();
  private resyncTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private resyncing: Promise<number> | undefined;
  /** The kinds this forwarder watches and maps for: owned, and handed over one by one. */
  private readonly served: readonly Kind[];
  private state: 'new' | 'running' | 'stopped' = 'new';
  /** Lists go on across runs from their saved continue token (the scheduled mode, runFor). */
  private resumableLists = false;
  /** Whether stop() wrote every checkpoint it had (false: they stay where the last write left them). */
  private checkpointsWritten = true;
  /** Whether this run saved the progress of a list, warm list or resync page (runFor). */
  private progressed = false;
  /** A resumable resync's stop (runFor). */
  private readonly resyncStop = new AbortController();
  private readonly limits: ForwarderLimits;
  /** Per resource, the cache ids a paged relist has filed so far (its final sweep drops the rest). */
  private readonly listedIds = new Map<Resource, Set<string>>();
  /** Per resource, the `namespace/name`s a list in this process has seen so far (the index's final sweep). */
  private readonly listedNames = new Map<Resource, Set<string>>();

  /** Lists go on across runs (runFor without a cache): a list's earlier pages may be another run's. */
  private get listsAcrossRuns(): boolean {
    return this.resumableLists && !this.o.cache;
  }

  constructor(private readonly o: ForwarderOptions) {
    this.cluster = o.cluster;
    this.served = servedKinds(o);
    this.index = o.memory?.index ?? new WorkloadIndex();
    this.previous = o.memory?.previous ?? new PreviousState();
    this.resources = watchedResources(this.served);
    const handOver = new Set((o.handOver ?? []).filter((k) => !o.owns.includes(k)));
    this.ctx = { cluster: o.cluster, owns: new Set(o.owns), handOver, index: this.index };
    this.logger = (o.logger ?? new Logger('fleetq-forwarder')).child({ cluster: o.cluster });
    this.metrics = forwarderMetrics(o.registry);
    this.lister = o.lister ?? makeLister(o.kubeConfig);
    this.now = o.now ?? Date.now;
    this.limits = o.limits ?? forwarderLimitsFromEnv();
    this.writer = new CheckpointWriter(
      o.cluster,
      o.checkpoints,
      this.logger,
      () => this.countError('checkpoint'),
      o.checkpoint,
    );
    this.invalid = new InvalidKeyRecorder(o.cluster, o.queue, this.logger, this.metrics, (operation, resource) =>
      this.countError(operation, resource),
    );
  }

  /** The largest object (bytes after trimming, and its namespace/name) any of this forwarder's watchers saw. */
  get largestObject(): { resource: Resource; bytes: number; name: string } | undefined {
    let best: { resource: Resource; bytes: number; name: string } | undefined;
    for (const w of this.watchers) {
      if (w.stats.largest.bytes > (best?.bytes ?? 0)) best = { resource: w.resource, ...w.stats.largest };
    }
    return best;
  }

  /** Trims an object before anything holds it (object-trim.ts); counted. */
  private admit(resource: Resource, object: KubeObject): KubeObject {
    const t = trimForForwarder(object, this.limits.trim);
    if (t.trimmed && t.droppedBytes > 0) this.metrics.trimmed.inc({ cluster: this.cluster, resource });
    return t.object;
  }

  /** The most events any of this forwarder's watches held unhandled at once. */
  get peakPending(): number {
    return Math.max(0, ...this.watchers.map((w) => w.stats.peakPending));
  }

  /**
   * Loads checkpoints and returns; in the background, reads the cluster's identity (retrying until it can),
   * discards checkpoints of another incarnation of the cluster, and starts every watcher (until stop()).
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`forwarder ${this.cluster} was already started`);
    this.state = 'running';
    const saved = await this.o.checkpoints.load(this.cluster, [...this.resources, IDENTITY_CHECKPOINT]);
    this.launching = this.launch(saved);
    this.writer.start();
    const resyncMs = this.o.resyncMs ?? 300_000;
    if (resyncMs > 0) {
      this.resyncTimer = setInterval(() => void this.resync().catch(() => undefined), resyncMs);
      this.resyncTimer.unref();
    }
    if (this.o.cache) {
      const beat = (): void => void this.heartbeat();
      beat();
      this.heartbeatTimer = setInterval(beat, CACHE_HEARTBEAT_MS);
      this.heartbeatTimer.unref();
    }
    this.logger.info('Forwarder started', { resources: this.resources, saved: Object.fromEntries(saved) });
  }

  private async launch(saved: ReadonlyMap<string, string>): Promise<void> {
    const resumed = await this.bindIdentity(saved);
    if (resumed === undefined || this.state !== 'running') return;
    this.watchers = this.resources.map((resource) => this.watcher(resource, resumed.get(resource)));
    // Workloads first: the index must know their selectors before pods, revisions and nodes are mapped.
    const first = this.watchers.filter((w) => isIndexedResource(w.resource));
    const rest = this.watchers.filter((w) => !isIndexedResource(w.resource));
    for (const w of first) w.start();
    this.logger.info('Watching', { resumed: Object.fromEntries(resumed) });
    const stopped = new Promise<void>((resolve) => this.stopSignal.signal.addEventListener('abort', () => resolve()));
    await Promise.race([Promise.all(first.map((w) => w.synced)), stopped]);
    if (this.state === 'running') for (const w of rest) w.start();
  }

  /** The checkpoints to resume from once the identity check passed; undefined when stopped first. */
  private async bindIdentity(saved: ReadonlyMap<string, string>): Promise<Map<string, string> | undefined> {
    const backoff = new Backoff(this.o.backoff);
    const read = this.o.identity ?? (() => readClusterIdentity(this.o.kubeConfig));
    const readRv = this.o.currentResourceVersion ?? (() => readCurrentResourceVersion(this.o.kubeConfig));
    while (this.state === 'running') {
      try {
        const identity = await this.untilStopped(read());
        const currentResourceVersion = await this.untilStopped(readRv());
        const resumed = await bindCheckpoints({
          cluster: this.cluster,
          store: this.o.checkpoints,
          resources: this.resources,
          saved,
          identity,
          currentResourceVersion,
          logger: this.logger,
        });
        if (resumed.size === 0 && this.resources.some((r) => saved.has(r))) {
          this.stats.identityChanges++;
          this.o.memory?.forget();
        }
        // Nothing to resume from (a first start, another incarnation's or a restored etcd's checkpoints): the
        // cache starts over, or it would keep what it holds as newer than the new list's objects (cache-store.ts:
        // otherwise time only goes forward). A holder resuming from checkpoints keeps it.
        if (resumed.size === 0) await this.o.cache?.reset();
        return resumed;
      } catch (err) {
        if (this.state !== 'running') return undefined;
        const retryInMs = backoff.next();
        this.countError('identity');
        this.logger.error('Cluster identity check failed', {
          err,
          unreachable: isUnreachable(err),
          attempt: backoff.attempts,
          retryInMs,
        });
        await sleep(retryInMs, this.stopSignal.signal);
      }
    }
    return undefined;
  }

  /** The promise's value, or a rejection as soon as stop() is called. */
  private untilStopped<T>(promise: Promise<T>): Promise<T> {
    const signal = this.stopSignal.signal;
    if (signal.aborted) return Promise.reject(new Error('stopped'));
    return new Promise<T>((resolve, reject) => {
      const onStop = (): void => reject(new Error('stopped'));
      signal.addEventListener('abort', onStop, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onStop));
    });
  }

  /** Resolves when every watcher has done its first list (or resumed without one). */
  async synced(): Promise<void> {
    await this.launching;
    await Promise.all(this.watchers.map((w) => w.synced));
  }

  /** Stops the watchers, lets in-flight events finish, and writes the checkpoints. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopped';
    this.stopSignal.abort();
    this.resyncStop.abort();
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    await this.launching;
    await Promise.all(this.watchers.map((w) => w.stop()));
    // A resync stuck on an unresponsive cluster must not hold up the checkpoint write.
    if (this.resyncing)
      await Promise.race([this.resyncing.catch(() => undefined), delay(2_000, undefined, { ref: false })]);
    this.checkpointsWritten = await this.writer.close();
    this.logger.info('Forwarder stopped', {
      stats: this.stats,
      peakPending: this.peakPending,
      largestObject: this.largestObject,
    });
  }

  /**
   * The scheduled mode: watch from the checkpoints for `ms`, then stop cleanly. A resync runs first when the
   * last one (kept in the checkpoint store) is older than resyncMs. Rejects when the checkpoints could not be
   * read, the progress made could not be written at the end (the next run would repeat it), or the watches
   * never started (the cluster was not reached, or a first list did not finish within the run): a scheduled run
   * that made no lasting progress is a failed one.
   */
  async runFor(ms: number): Promise<void> {
    this.resumableLists = true;
    await this.start();
    let synced = false;
    void this.synced().then(() => (synced = true));
    let syncedInTime = false;
    try {
      // A resync in progress goes on whenever it is due or not; it is recorded once its last page is done,
      // in whichever run that is.
      const resyncMs = this.o.resyncMs ?? 300_000;
      const saved = await this.o.checkpoints.load(this.cluster, [RESYNC_CHECKPOINT, RESYNC_PROGRESS]);
      const last = Number(saved.get(RESYNC_CHECKPOINT) ?? 0);
      const inProgress = (saved.get(RESYNC_PROGRESS) ?? '') !== '';
      if (resyncMs > 0 && (inProgress || this.now() - last >= resyncMs)) {
        void this.resync(true)
          .then(() => this.o.checkpoints.save(this.cluster, new Map([[RESYNC_CHECKPOINT, String(this.now())]])))
          .catch(() => undefined);
      }
      await sleep(ms, this.stopSignal.signal);
    } finally {
      syncedInTime = synced;
      await this.stop();
    }
    this.settleMemory(syncedInTime);
    if (!this.checkpointsWritten) throw new Error('checkpoints not written at the end of the run');
    // Not one watch started and no list got further: the cluster was not reached (or did not answer a page
    // within the run). A list longer than a run is not a failure while each run saves pages of it.
    if (!syncedInTime && !this.progressed)
      throw new Error('not synced within the run, and no list progress saved (cluster unreachable?)');
  }

  /** What the memory holds after a run: current at each synced watcher's checkpoint, if they were written. */
  private settleMemory(synced: boolean): void {
    const memory = this.o.memory;
    if (!memory) return;
    if (!this.checkpointsWritten || this.o.cache) return memory.forget();
    if (this.watchers.length === 0) return;
    memory.settle(
      new Map(this.watchers.map((w) => [w.resource, synced || w.isSynced ? w.resourceVersion : undefined])),
    );
  }

  /** Refills the cache (a warm list of every watched resource), e.g. after its Redis lost its data. */
  refillCache(): void {
    if (!this.o.cache) return;
    this.logger.info('Refilling the cache');
    for (const w of this.watchers) w.refill();
  }

  /**
   * Enqueues every owned object's key from a fresh list of each owned kind; returns how many keys (this run's,
   * when resumable). Resumable (runFor): page by page from the saved progress, stopped with the run.
   */
  resync(resumable = false): Promise<number> {
    const input = {
      lister: this.lister,
      owns: this.served,
      ctx: this.ctx,
      pageSize: this.o.pageSize ?? 500,
      maxPageBytes: this.limits.maxPageBytes,
      trim: (object: KubeObject) => trimForForwarder(object, this.limits.trim).object,
      add: (keys: readonly ReconcileKey[]) => this.addAll(keys),
      park: (resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]) =>
        this.recordInvalid(resource, object, invalid),
      unmappable: (resource: Resource, object: KubeObject, err: unknown) =>
        this.invalid.unmappable(resource, object, err),
    };
    this.resyncing ??= (
      resumable
        ? runResumableResync({
            ...input,
            progress: {
              load: async () => (await this.o.checkpoints.load(this.cluster, [RESYNC_PROGRESS])).get(RESYNC_PROGRESS),
              save: (value) => this.o.checkpoints.save(this.cluster, new Map([[RESYNC_PROGRESS, value]])),
            },
            signal: this.resyncStop.signal,
            onPage: () => (this.progressed = true),
          })
        : runResync(input)
    )
      .then((count) => {
        this.stats.resyncs++;
        this.metrics.resyncs.inc({ cluster: this.cluster });
        this.logger.info('Resynced', { keys: count });
        return count;
      })
      .catch((err: unknown) => {
        // A resumable resync stopped with its run is paused, not failed: the next run goes on from its page.
        if (resumable && this.resyncStop.signal.aborted) {
          this.logger.info('Resync paused at the end of the run');
          throw err;
        }
        this.countError('resync');
        this.logger.error('Resync failed', { err });
        throw err;
      })
      .finally(() => (this.resyncing = undefined));
    return this.resyncing;
  }

  private watcher(resource: Resource, resumeFrom: string | undefined): ResourceWatcher {
    const logger = this.logger.child({ resource });
    const listProgress = this.resumableLists && !this.o.cache ? this.listProgress(resource) : undefined;
    return new ResourceWatcher({
      cluster: this.cluster,
      resource,
      kubeConfig: this.o.kubeConfig,
      lister: this.lister,
      logger,
      ...(resumeFrom === undefined ? {} : { resumeFrom }),
      // A memory kept from the last run needs no warm list where it is current at the checkpoint.
      warmOnResume:
        this.o.cache !== undefined ||
        ((isIndexedResource(resource) || isPreviousTracked(resource)) &&
          !(this.resumableLists && this.o.memory?.isCurrentAt(resource, resumeFrom))),
      ...(this.o.pageSize === undefined ? {} : { pageSize: this.o.pageSize }),
      ...(this.o.backoff === undefined ? {} : { backoff: this.o.backoff }),
      ...(this.o.maxPendingEvents === undefined ? {} : { maxPending: this.o.maxPendingEvents }),
      maxPendingBytes: this.limits.maxPendingBytes,
      maxObjectBytes: this.limits.maxObjectBytes,
      maxPageBytes: this.limits.maxPageBytes,
      admit: (object) => this.admit(resource, object),
      ...(this.o.relistSlots !== null && { relistSlots: this.o.relistSlots ?? processRelistSlots() }),
      ...(this.o.watchTimeoutSeconds === undefined ? {} : { watchTimeoutSeconds: this.o.watchTimeoutSeconds }),
      ...(this.o.watch === undefined ? {} : { watch: this.o.watch }),
      // A scheduled run's lists go on from where the last run stopped (not with a cache: its paged replace
      // must see the whole list in one process).
      ...(listProgress && { listProgress }),
      ...(this.resumableLists &&
        !this.o.cache &&
        this.o.memory && { warmProgress: this.o.memory.warmProgress(resource) }),
      hooks: {
        needsWarmAfterResume: () =>
          (isIndexedResource(resource) || isPreviousTracked(resource)) && !(listProgress?.followsList?.() ?? false),
        onListProgress: () => (this.progressed = true),
        onEvents: (events) => this.onEvents(resource, events),
        onList: (reason, objects, rv, paged) => this.onList(resource, reason, objects, rv, paged),
        onListPage: (reason, objects, first) => this.onListPage(resource, reason, objects, first),
        onProgress: (rv) => {
          this.writer.mark(resource, rv);
          this.advanceCache(resource, rv);
          this.metrics.lastEvent.set({ cluster: this.cluster, resource }, this.now() / 1000);
        },
        onRestart: (reason) => {
          this.stats.watchRestarts++;
          this.metrics.watchRestarts.inc({ cluster: this.cluster, resource, reason });
        },
        onError: (operation) => this.countError(operation, resource),
      },
    });
  }

  /**
   * A batch of watch events, in order: each is mapped to keys against the index as it stood after the events
   * before it; then the whole batch goes to the cache (one pipelined round trip), the event log (one append)
   * and the queue (each distinct key once). The cache first: a key enqueued must find its events in it. A failed
   * cache apply or enqueue fails the batch (the watch starts again from before it).
   */
  private async onEvents(resource: Resource, events: readonly WatchedEvent[]): Promise<void> {
    const keys = new Map<string, ReconcileKey>();
    const problems: Array<() => Promise<void>> = [];
    for (const { type, object, oversized } of events) {
      let mapped: EventKeys | undefined;
      let mappingError: unknown;
      try {
        const previous = this.previous.get(resource, object);
        mapped = eventKeys({ type, resource, object, ...(previous === undefined ? {} : { previous }) }, this.ctx);
        // Metadata only (too large to hold): its keys are enqueued, what is held of it stays as it was.
        if (oversized && type !== 'DELETED') {
          this.metrics.oversized.inc({ cluster: this.cluster, resource });
        } else {
          this.index.apply(resource, type, object);
          this.previous.apply(resource, type, object);
        }
      } catch (err) {
        mappingError = err;
      }
      this.stats.events++;
      this.metrics.events.inc({ cluster: this.cluster, resource, type });
      if (mapped === undefined) {
        problems.push(() => this.invalid.unmappable(resource, object, mappingError));
        continue;
      }
      for (const key of mapped.keys) keys.set(keyString(key), key);
      const invalid = mapped.invalid;
      if (invalid.length > 0) problems.push(() => this.recordInvalid(resource, object, invalid));
    }
    const cache = this.o.cache;
    if (cache) {
      // Issued together: one connection sends them in order, and the store applies each atomically.
      const kind = kindOfResource(resource);
      const held = events.filter((e) => !e.oversized || e.type === 'DELETED');
      await Promise.all(held.map(({ type, object }) => applyEvent(cache, { type, kind, object })));
    }
    // The log and the queue together: a worker needs the cache to hold the events before it runs their keys
    // (above), not the log. A failure of either fails the batch (its checkpoint stays; it is handled again, and
    // the queue deduplicates), so nothing is lost by not waiting for the log first: one Redis round trip less
    // between an event and its reconcile.
    await Promise.all([this.logEvents(resource, events), this.addAll([...keys.values()])]);
    for (const problem of problems) await problem();
  }

  /**
   * Where a resumable list keeps its continue token between runs: beside the checkpoints. With a memory, it also
   * tells whether a list resumed from a token had its earlier pages handed over here (else: a warm list after).
   */
  private listProgress(resource: Resource): ListProgressStore & { followsList?(): boolean } {
    const entry = `${resource}${LIST_PROGRESS_SUFFIX}`;
    const store: ListProgressStore = {
      load: async () => (await this.o.checkpoints.load(this.cluster, [entry])).get(entry),
      save: (value) => this.o.checkpoints.save(this.cluster, new Map([[entry, value]])),
    };
    return this.o.memory ? this.o.memory.following(resource, store) : store;
  }

  /**
   * One page of a list: its objects go into the index, previous state and cache (a paged replace: the first page
   * begins it, onList's sweep ends it), then its keys are enqueued and it is logged, before the next page is
   * read (and before a resumable list's progress is saved past it).
   */
  private async onListPage(
    resource: Resource,
    reason: ListReason,
    objects: readonly KubeObject[],
    first: boolean,
  ): Promise<void> {
    if (!this.listsAcrossRuns) {
      // In one process: what was held stays until the list's end sweeps out what it did not see (the mapping
      // of other resources' events meanwhile still finds every workload).
      let seen = this.listedNames.get(resource);
      if (first || seen === undefined) this.listedNames.set(resource, (seen = new Set()));
      for (const object of objects) {
        seen.add(`${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`);
        this.index.apply(resource, 'ADDED', object);
        this.previous.apply(resource, 'ADDED', object);
      }
    } else if (first) {
      // A list from its start supersedes what was held of this resource (objects deleted since are dropped).
      this.index.replace(resource, objects);
      this.previous.replace(resource, objects);
    } else {
      for (const object of objects) {
        this.index.apply(resource, 'ADDED', object);
        this.previous.apply(resource, 'ADDED', object);
      }
    }
    const cache = this.o.cache;
    if (cache) {
      const kind = kindOfResource(resource);
      let seen = this.listedIds.get(resource);
      if (first || seen === undefined) {
        await cache.beginReplace(kind);
        this.listedIds.set(resource, (seen = new Set()));
      }
      const apiVersion = resourceOf(kind).apiVersion;
      const entries = objects.flatMap((o) => (o.metadata?.name ? [cacheEntry(kind, apiVersion, o)] : []));
      for (const e of entries) seen.add(e.id);
      await cache.putListed(entries);
    }
    if (reason === 'warm') return; // refills memory only: nothing is enqueued
    await this.enqueueListed(resource, objects);
    this.logger.debug('List page handled', { resource, reason, objects: objects.length });
  }

  private async onList(
    resource: Resource,
    reason: ListReason,
    objects: readonly KubeObject[],
    resourceVersion: string,
    paged = false,
  ): Promise<void> {
    const names = this.listedNames.get(resource);
    if (paged && names !== undefined) {
      this.index.sweep(resource, names);
      this.previous.sweep(resource, names);
      this.listedNames.delete(resource);
    }
    if (paged && this.o.cache) {
      // The paged replace's sweep: what the list did not see is gone; the watermark is set last.
      const kind = kindOfResource(resource);
      await this.o.cache.endReplace(kind, this.listedIds.get(resource) ?? new Set(), resourceVersion);
      this.listedIds.delete(resource);
    }
    if (paged && reason === 'warm') {
      this.stats.warmLists++;
      return;
    }
    if (paged) {
      // Pages were indexed, cached and enqueued as they came.
      this.stats.relists[reason === 'expired' ? 'expired' : 'initial']++;
      this.metrics.relists.inc({ cluster: this.cluster, resource, reason });
      if (reason === 'expired') await this.addAll(this.dependentKeys(resource));
      return;
    }
    this.index.replace(resource, objects);
    this.previous.replace(resource, objects);
    if (this.o.cache) {
      await applyEvent(this.o.cache, { type: 'LISTED', kind: kindOfResource(resource), objects, resourceVersion });
    }
    if (reason === 'warm') {
      this.stats.warmLists++;
      return;
    }
    this.stats.relists[reason]++;
    this.metrics.relists.inc({ cluster: this.cluster, resource, reason });
    // Events of this resource were lost: wake every workload that depends on it, not only those still listed.
    await this.enqueueListed(resource, objects, reason === 'expired' ? this.dependentKeys(resource) : []);
  }

  /** The keys of every workload (in the index) that depends on `resource`. */
  private dependentKeys(resource: Resource): ReconcileKey[] {
    return this.index
      .all(new Set(dependentKinds(resource, this.served)))
      .filter((w) => this.ctx.owns.has(w.kind) || w.handedOver === true)
      .map((w) => ({ cluster: this.cluster, kind: w.kind, namespace: w.namespace, name: w.name }));
  }

  /** Logs listed objects (LISTED) and enqueues their keys with `extra`; bad data is recorded and skipped. */
  private async enqueueListed(
    resource: Resource,
    objects: readonly KubeObject[],
    extra: readonly ReconcileKey[] = [],
  ): Promise<void> {
    const keys = new Map<string, ReconcileKey>();
    const bad: Array<{ object: KubeObject; mapped?: EventKeys; err?: unknown }> = [];
    for (const object of objects) {
      try {
        const mapped = eventKeys({ type: 'ADDED', resource, object }, this.ctx);
        for (const key of mapped.keys) keys.set(keyString(key), key);
        if (mapped.invalid.length > 0) bad.push({ object, mapped });
      } catch (err) {
        bad.push({ object, err });
      }
    }
    for (const key of extra) keys.set(keyString(key), key);
    if (this.o.logListed ?? true) await this.log(resource, 'LISTED', objects);
    await this.addAll([...keys.values()]);
    for (const b of bad) {
      if (b.mapped) await this.recordInvalid(resource, b.object, b.mapped.invalid);
      else await this.invalid.unmappable(resource, b.object, b.err);
    }
  }

  private async recordInvalid(resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]): Promise<void> {
    if (invalid.length === 0) return;
    await this.invalid.record(resource, object, invalid);
    this.stats.invalidKeys = this.invalid.count;
  }

  /** Enqueues keys, all at once (a round trip for the lot, not one each); a key refused as malformed is recorded. */
  private async addAll(keys: readonly ReconcileKey[]): Promise<number> {
    const outcomes = await Promise.allSettled(keys.map((key) => this.o.queue.add(key)));
    let failure: unknown;
    for (const [i, outcome] of outcomes.entries()) {
      const key = keys[i] as ReconcileKey;
      if (outcome.status === 'fulfilled') {
        this.stats.keysAdded++;
        this.metrics.keys.inc({ cluster: this.cluster, kind: key.kind });
        continue;
      }
      // The driver's own rule refused the key: bad data, recorded and skipped like any invalid key.
      if (outcome.reason instanceof MalformedKeyError) {
        await this.invalid.refused(key, outcome.reason.message);
        this.stats.invalidKeys = this.invalid.count;
        continue;
      }
      failure ??= outcome.reason;
    }
    if (failure !== undefined) {
      this.countError('enqueue');
      throw failure;
    }
    if (keys.length > 0) this.logger.debug('Keys added', { keys: keys.map(keyString) });
    return keys.length;
  }

  /** The event log is for replay, not delivery: a failed append is counted and logged, never retried. */
  private async log(resource: Resource, type: LoggedEventType, objects: readonly KubeObject[]): Promise<void> {
    await this.logEvents(
      resource,
      objects.map((object) => ({ type, object })),
    );
  }

  private async logEvents(
    resource: Resource,
    watched: ReadonlyArray<{ readonly type: LoggedEventType; readonly object: KubeObject }>,
  ): Promise<void> {
    if (!this.o.eventLog || watched.length === 0) return;
    const observedAt = this.now();
    const events: LoggedEvent[] = watched.map(({ type, object }) => ({
      type,
      cluster: this.cluster,
      resource,
      observedAt,
      object: trimObject(object),
    }));
    try {
      await this.o.eventLog.append(this.cluster, events);
    } catch (err) {
      this.countError('event-log', resource);
      this.logger.error('Event log append failed', { resource, err, events: events.length });
    }
  }

  /** Tells readers of a shared cache that it is kept current (cache-store.ts `heartbeat`). */
  private async heartbeat(): Promise<void> {
    try {
      await this.o.cache?.heartbeat(3 * CACHE_HEARTBEAT_MS);
    } catch (err) {
      this.countError('cache');
      this.logger.warn('Cache heartbeat not written', { err });
    }
  }

  /** Bookmarks and handled events move the cache's watermark; a lost advance only delays readers. */
  private advanceCache(resource: Resource, resourceVersion: string): void {
    if (!this.o.cache) return;
    this.o.cache.advance(kindOfResource(resource), resourceVersion).catch((err: unknown) => {
      this.countError('cache', resource);
      this.logger.warn('Cache watermark not advanced', { resource, err });
    });
  }

  private countError(operation: string, resource = ''): void {
    this.stats.errors++;
    this.metrics.errors.inc({ cluster: this.cluster, resource, operation });
  }
}
