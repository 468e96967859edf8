// What a forwarder does with what its watchers bring: each object is trimmed before anything holds it, each event
// is mapped to keys against the workload index and previous state, the batch goes to the cache, the event log
// and the queue. Lists (a page at a time, or whole) refill the index, previous state and cache and enqueue every
// listed key. A key the mapping batches (an Owns entry's batchMs: a pod's Job) goes to queue.addAfter, every other
// to queue.add. A key made from bad data is recorded and skipped (invalid-keys.ts); a failed cache apply or enqueue
// is not: it fails the batch, so the watch starts again from before it and the checkpoint never passes it.
import { MalformedKeyError, keyString, type ReconcileKey } from '../kube/key.js';
import type { Kind } from '../kube/kinds.js';
import { resourceOf } from '../kube/resources.js';
import { trimObject, type EventLog, type LoggedEvent, type LoggedEventType } from '../queue/history/event-log.js';
import type { WorkQueue } from '../queue/work-queue.js';
import type { Logger } from '../runtime/logger.js';
import { applyEvent, applyEvents } from '../cache/apply-event.js';
import { cacheEntry } from '../cache/cache-entry.js';
import type { CacheStore } from '../cache/cache-store.js';
import { eventKeys, type EventKeys, type InvalidKey, type KeyContext } from './event-keys.js';
import { InvalidKeyRecorder } from './invalid-keys.js';
import type { ForwarderMetrics } from './metrics.js';
import { trimForForwarder, type TrimLimits } from './object-trim.js';
import { PreviousState } from './previous-state.js';
import type { ListReason, WatchedEvent } from './resource-watcher.js';
import { dependentKinds, kindOfResource, type KubeObject, type Resource } from './resources.js';
import { WorkloadIndex } from './workload-index.js';

/** What the pipeline counts of a forwarder's work (its part of ForwarderStats). */
export type PipelineStats = {
  events: number;
  keysAdded: number;
  /** Full lists that enqueued every key: no checkpoint (initial) or 410 Gone (expired). */
  relists: { initial: number; expired: number };
  /** Lists made on resume only to refill the workload index / previous state; they enqueue nothing. */
  warmLists: number;
  /** Keys not enqueued because they were made from bad data (recorded with parkInvalid instead). */
  invalidKeys: number;
};

export type EventPipelineOptions = {
  readonly cluster: string;
  /** The kinds enqueued for: owned, and handed over one by one (registry `handOver`). */
  readonly owns: readonly Kind[];
  readonly handOver: readonly Kind[];
  /** The kinds watched and mapped for (owned and handed over). */
  readonly served: readonly Kind[];
  readonly queue: Pick<WorkQueue, 'add' | 'addAfter' | 'parkInvalid'>;
  readonly cache?: CacheStore;
  readonly eventLog?: EventLog;
  /** Write relist snapshots to the event log as LISTED entries. */
  readonly logListed: boolean;
  readonly trim: TrimLimits;
  /** The scheduled mode's index and previous state, kept between runs (forwarder-memory.ts); default new ones. */
  readonly index?: WorkloadIndex;
  readonly previous?: PreviousState;
  /** Counted into (the forwarder's stats object). */
  readonly stats: PipelineStats;
  readonly metrics: ForwarderMetrics;
  readonly logger: Logger;
  readonly now: () => number;
  readonly countError: (operation: string, resource?: string) => void;
  /** Whether a list's earlier pages may be another run's (the scheduled mode without a cache). */
  readonly listsAcrossRuns: () => boolean;
};

export class EventPipeline {
  readonly ctx: KeyContext;
  private readonly index: WorkloadIndex;
  private readonly previous: PreviousState;
  private readonly invalid: InvalidKeyRecorder;
  /** Per resource, the cache ids a paged relist has filed so far (its final sweep drops the rest). */
  private readonly listedIds = new Map<Resource, Set<string>>();
  /** Per resource, the `namespace/name`s a list in this process has seen so far (the index's final sweep). */
  private readonly listedNames = new Map<Resource, Set<string>>();

  constructor(private readonly o: EventPipelineOptions) {
    this.index = o.index ?? new WorkloadIndex();
    this.previous = o.previous ?? new PreviousState();
    const handOver = new Set(o.handOver.filter((k) => !o.owns.includes(k)));
    this.ctx = { cluster: o.cluster, owns: new Set(o.owns), handOver, index: this.index };
    this.invalid = new InvalidKeyRecorder(o.cluster, o.queue, o.logger, o.metrics, (operation, resource) =>
      o.countError(operation, resource),
    );
  }

  /** Trims an object before anything holds it (object-trim.ts); counted. */
  admit(resource: Resource, object: KubeObject): KubeObject {
    const t = trimForForwarder(object, this.o.trim);
    if (t.trimmed && t.droppedBytes > 0) this.o.metrics.trimmed.inc({ cluster: this.o.cluster, resource });
    return t.object;
  }

  /**
   * A batch of watch events, in order: each is mapped to keys against the index as it stood after the events
   * before it; then the whole batch goes to the cache (one pipelined round trip), the event log (one append)
   * and the queue (each distinct key once, later only when every event of the batch that yields it batches it).
   * The cache first: a key enqueued must find its events in it. A failed cache apply or enqueue fails the batch
   * (the watch starts again from before it).
   */
  async onEvents(resource: Resource, events: readonly WatchedEvent[]): Promise<void> {
    const keys = new Map<string, ReconcileKey>();
    const delays = new Map<string, number>();
    const problems: Array<() => Promise<void>> = [];
    for (const { type, object, oversized } of events) {
      let mapped: EventKeys | undefined;
      let mappingError: unknown;
      try {
        const previous = this.previous.get(resource, object);
        mapped = eventKeys({ type, resource, object, ...(previous === undefined ? {} : { previous }) }, this.ctx);
        // Metadata only (too large to hold): its keys are enqueued, what is held of it stays as it was.
        if (oversized && type !== 'DELETED') {
          this.o.metrics.oversized.inc({ cluster: this.o.cluster, resource });
        } else {
          this.index.apply(resource, type, object);
          this.previous.apply(resource, type, object);
        }
      } catch (err) {
        mappingError = err;
      }
      this.o.stats.events++;
      this.o.metrics.events.inc({ cluster: this.o.cluster, resource, type });
      if (mapped === undefined) {
        problems.push(() => this.invalid.unmappable(resource, object, mappingError));
        continue;
      }
      collect(mapped, keys, delays);
      const invalid = mapped.invalid;
      if (invalid.length > 0) problems.push(() => this.recordInvalid(resource, object, invalid));
    }
    const cache = this.o.cache;
    if (cache) {
      // One step of the store: the batch's changes take effect in their order (one script call on Redis).
      const kind = kindOfResource(resource);
      const held = events.filter((e) => !e.oversized || e.type === 'DELETED');
      await applyEvents(
        cache,
        kind,
        held.map(({ type, object }) => ({ type, kind, object })),
      );
    }
    // The log and the queue together: a worker needs the cache to hold the events before it runs their keys
    // (above), not the log. A failure of either fails the batch (its checkpoint stays; it is handled again, and
    // the queue deduplicates), so nothing is lost by not waiting for the log first: one Redis round trip less
    // between an event and its reconcile.
    await Promise.all([this.logEvents(resource, events), this.addAll([...keys.values()], delays)]);
    for (const problem of problems) await problem();
  }

  /**
   * One page of a list: its objects go into the index, previous state and cache (a paged replace: the first page
   * begins it, onList's sweep ends it), then its keys are enqueued and it is logged, before the next page is
   * read (and before a resumable list's progress is saved past it).
   */
  async onListPage(
    resource: Resource,
    reason: ListReason,
    objects: readonly KubeObject[],
    first: boolean,
  ): Promise<void> {
    if (!this.o.listsAcrossRuns()) {
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
    this.o.logger.debug('List page handled', { resource, reason, objects: objects.length });
  }

  /** A list's end: a whole list (unpaged) replaces what was held; a paged one sweeps what its pages did not see. */
  async onList(
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
      this.o.stats.warmLists++;
      return;
    }
    if (paged) {
      // Pages were indexed, cached and enqueued as they came.
      this.o.stats.relists[reason === 'expired' ? 'expired' : 'initial']++;
      this.o.metrics.relists.inc({ cluster: this.o.cluster, resource, reason });
      if (reason === 'expired') await this.addAll(this.dependentKeys(resource));
      return;
    }
    this.index.replace(resource, objects);
    this.previous.replace(resource, objects);
    if (this.o.cache) {
      await applyEvent(this.o.cache, { type: 'LISTED', kind: kindOfResource(resource), objects, resourceVersion });
    }
    if (reason === 'warm') {
      this.o.stats.warmLists++;
      return;
    }
    this.o.stats.relists[reason]++;
    this.o.metrics.relists.inc({ cluster: this.o.cluster, resource, reason });
    // Events of this resource were lost: wake every workload that depends on it, not only those still listed.
    await this.enqueueListed(resource, objects, reason === 'expired' ? this.dependentKeys(resource) : []);
  }

  /** Bookmarks and handled events move the cache's watermark; a lost advance only delays readers. */
  advanceCache(resource: Resource, resourceVersion: string): void {
    if (!this.o.cache) return;
    this.o.cache.advance(kindOfResource(resource), resourceVersion).catch((err: unknown) => {
      this.o.countError('cache', resource);
      this.o.logger.warn('Cache watermark not advanced', { resource, err });
    });
  }

  /**
   * Enqueues keys, all at once (a round trip for the lot, not one each): those with a delay in `delayMs` (by
   * keyString) with addAfter, the others with add; a key refused as malformed is recorded.
   */
  async addAll(keys: readonly ReconcileKey[], delayMs?: ReadonlyMap<string, number>): Promise<number> {
    const enqueue = (key: ReconcileKey): Promise<void> => {
      const ms = delayMs?.get(keyString(key)) ?? 0;
      return ms > 0 ? this.o.queue.addAfter(key, ms) : this.o.queue.add(key);
    };
    const outcomes = await Promise.allSettled(keys.map(enqueue));
    let failure: unknown;
    for (const [i, outcome] of outcomes.entries()) {
      const key = keys[i] as ReconcileKey;
      if (outcome.status === 'fulfilled') {
        this.o.stats.keysAdded++;
        this.o.metrics.keys.inc({ cluster: this.o.cluster, kind: key.kind });
        continue;
      }
      // The driver's own rule refused the key: bad data, recorded and skipped like any invalid key.
      if (outcome.reason instanceof MalformedKeyError) {
        await this.invalid.refused(key, outcome.reason.message);
        this.o.stats.invalidKeys = this.invalid.count;
        continue;
      }
      failure ??= outcome.reason;
    }
    if (failure !== undefined) {
      this.o.countError('enqueue');
      throw failure;
    }
    if (keys.length > 0) {
      const later = keys.map(keyString).filter((id) => (delayMs?.get(id) ?? 0) > 0);
      this.o.logger.debug('Keys added', {
        keys: keys.map(keyString),
        ...(later.length > 0 && { later: later.map((id) => ({ key: id, delayMs: delayMs?.get(id) })) }),
      });
    }
    return keys.length;
  }

  /** Records the keys of an object that were made from bad data (parkInvalid); none: nothing to do. */
  async recordInvalid(resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]): Promise<void> {
    if (invalid.length === 0) return;
    await this.invalid.record(resource, object, invalid);
    this.o.stats.invalidKeys = this.invalid.count;
  }

  /** Records an object the mapping could not read (invalid-keys.ts). */
  unmappable(resource: Resource, object: KubeObject, err: unknown): Promise<void> {
    return this.invalid.unmappable(resource, object, err);
  }

  /** The keys of every workload (in the index) that depends on `resource`. */
  private dependentKeys(resource: Resource): ReconcileKey[] {
    return this.index
      .all(new Set(dependentKinds(resource, this.o.served)))
      .filter((w) => this.ctx.owns.has(w.kind) || w.handedOver === true)
      .map((w) => ({ cluster: this.o.cluster, kind: w.kind, namespace: w.namespace, name: w.name }));
  }

  /** Logs listed objects (LISTED) and enqueues their keys with `extra`; bad data is recorded and skipped. */
  private async enqueueListed(
    resource: Resource,
    objects: readonly KubeObject[],
    extra: readonly ReconcileKey[] = [],
  ): Promise<void> {
    const keys = new Map<string, ReconcileKey>();
    const delays = new Map<string, number>();
    const bad: Array<{ object: KubeObject; mapped?: EventKeys; err?: unknown }> = [];
    for (const object of objects) {
      try {
        const mapped = eventKeys({ type: 'ADDED', resource, object }, this.ctx);
        collect(mapped, keys, delays);
        if (mapped.invalid.length > 0) bad.push({ object, mapped });
      } catch (err) {
        bad.push({ object, err });
      }
    }
    for (const key of extra) {
      keys.set(keyString(key), key);
      delays.set(keyString(key), 0);
    }
    if (this.o.logListed) await this.log(resource, 'LISTED', objects);
    await this.addAll([...keys.values()], delays);
    for (const b of bad) {
      if (b.mapped) await this.recordInvalid(resource, b.object, b.mapped.invalid);
      else await this.invalid.unmappable(resource, b.object, b.err);
    }
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
    const observedAt = this.o.now();
    const events: LoggedEvent[] = watched.map(({ type, object }) => ({
      type,
      cluster: this.o.cluster,
      resource,
      observedAt,
      object: trimObject(object),
    }));
    try {
      await this.o.eventLog.append(this.o.cluster, events);
    } catch (err) {
      this.o.countError('event-log', resource);
      this.o.logger.error('Event log append failed', { resource, err, events: events.length });
    }
  }
}

/**
 * Adds one event's keys to a batch's: each distinct key once, with the shortest delay any event gave it (0: at
 * once), so a key one event enqueues at once and another batches is enqueued at once.
 */
function collect(mapped: EventKeys, keys: Map<string, ReconcileKey>, delays: Map<string, number>): void {
  for (const key of mapped.keys) {
    const id = keyString(key);
    keys.set(id, key);
    const ms = mapped.delayMs?.get(id) ?? 0;
    delays.set(id, Math.min(delays.get(id) ?? Number.POSITIVE_INFINITY, ms));
  }
}
