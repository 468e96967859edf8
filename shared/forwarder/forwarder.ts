// The forwarder of one cluster, its lifecycle: a ResourceWatcher per watched resource feeding the event pipeline
// (event-pipeline.ts: trim, keys, cache, event log, queue.add), throttled checkpoints, a periodic resync (a safety
// net every 12-24 h by default, resync-period.ts; data losses are met by detection: resyncAfterLoss) and the
// cache's heartbeat. start()/stop() for the long-running mode; runFor(ms) for a scheduled, time-boxed run
// (forwarder-tick.ts). Checkpoints are bound to the cluster's identity (cluster-identity.ts): watching starts once
// it was read and compared.
import { setTimeout as delay } from 'node:timers/promises';
import type { ReconcileKey } from '../kube/key.js';
import type { Kind } from '../kube/kinds.js';
import { servedKinds } from '../kube/registry.js';
import { Backoff, sleep } from './backoff.js';
import { CheckpointWriter } from './checkpoint-writer.js';
import {
  IDENTITY_CHECKPOINT,
  bindCheckpoints,
  readClusterIdentity,
  readCurrentResourceVersion,
} from './cluster-identity.js';
import type { InvalidKey } from './event-keys.js';
import { EventPipeline } from './event-pipeline.js';
import { Logger } from '../runtime/logger.js';
import { forwarderMetrics, type ForwarderMetrics } from './metrics.js';
import { isPreviousTracked } from './previous-state.js';
import { ResourceWatcher } from './resource-watcher.js';
import { makeLister, watchedResources, type KubeObject, type Lister, type Resource } from './resources.js';
import { runResumableResync, runResync } from './resync.js';
import { resyncPeriodMs } from './resync-period.js';
import type { ForwarderOptions, ForwarderStats } from './forwarder-options.js';
import { listProgressStore, resyncProgressStore, runScheduled } from './forwarder-tick.js';
import { isUnreachable } from '../kube/errors.js';
import { isIndexedResource } from './workload-index.js';
import { forwarderLimitsFromEnv, type ForwarderLimits } from './forwarder-limits.js';
import { trimForForwarder } from './object-trim.js';
import { processRelistSlots } from './relist-slots.js';

export type { ForwarderOptions, ForwarderStats } from './forwarder-options.js';
export { LIST_PROGRESS_SUFFIX, RESYNC_CHECKPOINT, RESYNC_PROGRESS } from './forwarder-tick.js';

/**
 * Checkpoint-store entry of a resync owed after a data loss (resyncAfterLoss): written before it starts, cleared
 * when it is done. A forwarder that starts on this cluster's checkpoints and finds it (the process died mid-resync,
 * or a pool member takes the cluster over from one that did) runs the resync itself once its watches are synced.
 */
export const LOSS_RESYNC_DUE = '@resync@due';

/** How often a forwarder says it keeps its cache current; readers stop trusting it after 3 missed beats. */
export const CACHE_HEARTBEAT_MS = 5_000;

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
  private readonly pipeline: EventPipeline;
  private readonly logger: Logger;
  private readonly metrics: ForwarderMetrics;
  private readonly lister: Lister;
  private readonly writer: CheckpointWriter;
  private readonly now: () => number;
  private readonly stopSignal = new AbortController();
  private watchers: ResourceWatcher[] = [];
  private launching: Promise<void> = Promise.resolve();
  private resyncTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private resyncing: Promise<number> | undefined;
  /** The resync after a data loss running (resyncAfterLoss), and the one due after it. */
  private lossResync: Promise<number> | undefined;
  private lossResyncNext: Promise<number> | undefined;
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
  /** This cluster's periodic resync period (resync-period.ts); 0: none. */
  readonly resyncPeriodMs: number;

  constructor(private readonly o: ForwarderOptions) {
    this.cluster = o.cluster;
    this.served = servedKinds(o);
    this.resources = watchedResources(this.served);
    this.logger = (o.logger ?? new Logger('fleetq-forwarder')).child({ cluster: o.cluster });
    this.metrics = forwarderMetrics(o.registry);
    this.lister = o.lister ?? makeLister(o.kubeConfig);
    this.now = o.now ?? Date.now;
    this.limits = o.limits ?? forwarderLimitsFromEnv();
    this.resyncPeriodMs = resyncPeriodMs(o.cluster, o.resyncMs);
    this.writer = new CheckpointWriter(
      o.cluster,
      o.checkpoints,
      this.logger,
      () => this.countError('checkpoint'),
      o.checkpoint,
    );
    this.pipeline = new EventPipeline({
      cluster: o.cluster,
      owns: o.owns,
      handOver: o.handOver ?? [],
      served: this.served,
      queue: o.queue,
      ...(o.cache && { cache: o.cache }),
      ...(o.eventLog && { eventLog: o.eventLog }),
      logListed: o.logListed ?? true,
      trim: this.limits.trim,
      ...(o.memory && { index: o.memory.index, previous: o.memory.previous }),
      stats: this.stats,
      metrics: this.metrics,
      logger: this.logger,
      now: this.now,
      countError: (operation, resource) => this.countError(operation, resource),
      // Lists go on across runs (runFor without a cache): a list's earlier pages may be another run's.
      listsAcrossRuns: () => this.resumableLists && !o.cache,
    });
  }

  /** The largest object (bytes after trimming, and its namespace/name) any of this forwarder's watchers saw. */
  get largestObject(): { resource: Resource; bytes: number; name: string } | undefined {
    let best: { resource: Resource; bytes: number; name: string } | undefined;
    for (const w of this.watchers) {
      if (w.stats.largest.bytes > (best?.bytes ?? 0)) best = { resource: w.resource, ...w.stats.largest };
    }
    return best;
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
    const saved = await this.o.checkpoints.load(this.cluster, [
      ...this.resources,
      IDENTITY_CHECKPOINT,
      LOSS_RESYNC_DUE,
    ]);
    this.launching = this.launch(saved);
    this.writer.start();
    if (this.resyncPeriodMs > 0) {
      this.resyncTimer = setInterval(() => void this.resync().catch(() => undefined), this.resyncPeriodMs);
      this.resyncTimer.unref();
    }
    if (this.o.cache) {
      const beat = (): void => void this.heartbeat();
      beat();
      this.heartbeatTimer = setInterval(beat, CACHE_HEARTBEAT_MS);
      this.heartbeatTimer.unref();
    }
    this.logger.info('Forwarder started', {
      resources: this.resources,
      saved: Object.fromEntries(saved),
      resyncPeriodMs: this.resyncPeriodMs,
    });
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
    // A resync owed after a data loss that its forwarder did not finish, or watches resumed into a queue that
    // started empty (resyncOnResume: the memory queue, whose keys died with the last process while its
    // checkpoints were kept). Not in the scheduled mode, whose runs are too short for a whole resync (it never
    // records one owed). The watchers' first lists refilled a cache already. In the background: start() is not
    // held up by it.
    const due = saved.get(LOSS_RESYNC_DUE);
    const queueLost = this.o.resyncOnResume === true && resumed.size > 0;
    if ((due !== undefined || queueLost) && !this.resumableLists) {
      void Promise.race([Promise.all(rest.map((w) => w.synced)), stopped]).then(async () => {
        if (this.state !== 'running') return;
        this.logger.warn('Resyncing: a resync owed after a data loss, or watches resumed into an empty queue', {
          ...(due !== undefined && { owedSince: due }),
          queueLost,
        });
        try {
          await this.resync();
          if (due !== undefined) await this.saveLossResyncDue('');
        } catch {
          // logged by resync(); an owed resync stays recorded for the next start
        }
      });
    }
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

  /** The scheduled mode (forwarder-tick.ts): watch from the checkpoints for `ms`, then stop cleanly. */
  runFor(ms: number): Promise<void> {
    this.resumableLists = true;
    return runScheduled(
      {
        cluster: this.cluster,
        checkpoints: this.o.checkpoints,
        resyncMs: this.resyncPeriodMs,
        memory: this.o.memory,
        cached: this.o.cache !== undefined,
        stopped: this.stopSignal.signal,
        now: this.now,
        start: () => this.start(),
        synced: () => this.synced(),
        stop: () => this.stop(),
        resumableResync: () => this.resync(true),
        outcome: () => ({
          checkpointsWritten: this.checkpointsWritten,
          progressed: this.progressed,
          watchers: this.watchers,
        }),
      },
      ms,
    );
  }

  /**
   * Refills the cache (a warm list of every watched resource), e.g. after its Redis lost its data or failed over to
   * a replica that lags. The cache starts over first: what it holds after a loss is not a state the cluster had (a
   * promoted replica lacks the last writes, yet a list or an event applied since can have moved a kind's watermark
   * past them, and the cache would take an object below its watermark that it does not hold as deleted since).
   * Until each kind's list is applied, readers find no watermark and read live. Resolves once every watcher's list
   * has been applied, or after `boundMs` (a resource whose list keeps failing must not hold back what waits on the
   * others), whichever comes first.
   */
  async refillCache(boundMs = 30_000): Promise<void> {
    if (!this.o.cache) return;
    this.logger.info('Refilling the cache');
    // A reset that fails (Redis still settling after its failover) leaves what the lists can do without it: they
    // still refill, and the resync that follows still runs.
    await this.o.cache.reset().catch((err: unknown) => {
      this.countError('cache');
      this.logger.warn('Cache not reset before its refill; refilling over it', { err });
    });
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'bound'>((resolve) => (timer = setTimeout(() => resolve('bound'), boundMs)));
    const refilled = Promise.all(this.watchers.map((w) => w.refill())).then(() => 'refilled' as const);
    const outcome = await Promise.race([refilled, bound]).finally(() => clearTimeout(timer));
    if (outcome === 'bound') this.logger.warn('Cache refill not done within its bound; going on', { boundMs });
    else this.logger.info('Cache refilled');
  }

  /**
   * The resync after a data loss of the queue's Redis (redis-loss-resync.ts) or one owed by a forwarder that died
   * before its end: records it as owed (LOSS_RESYNC_DUE), refills the cache, enqueues every owned object's key from
   * a fresh list, then clears the record. A periodic resync already running is let finish first (its earlier pages
   * may have been enqueued before the loss), then a new one runs.
   */
  resyncAfterLoss(): Promise<number> {
    // Two never run at once: one's cache reset would land in the middle of the other's refill, which then ends with
    // the kind not current (endReplace sets no watermark after a reset, cache-store.ts), and its keys would go to
    // workers that read the kind from the apiserver until the next list. A loss met while one runs gets one more
    // after it (its earlier pages may have gone to the data lost); requests made meanwhile share that one.
    // The one due is asked first: it is still due for the moment between the running one's end and its start.
    if (this.lossResyncNext) return this.lossResyncNext;
    if (!this.lossResync) return this.startLossResync();
    this.lossResyncNext = this.lossResync
      .catch(() => undefined)
      .then(() => {
        this.lossResyncNext = undefined;
        return this.startLossResync();
      });
    return this.lossResyncNext;
  }

  private startLossResync(): Promise<number> {
    const run = this.runLossResync().finally(() => {
      if (this.lossResync === run) this.lossResync = undefined;
    });
    this.lossResync = run;
    return run;
  }

  private async runLossResync(): Promise<number> {
    await this.saveLossResyncDue(String(this.now()));
    await this.refillCache();
    if (this.resyncing) await this.resyncing.catch(() => undefined);
    const keys = await this.resync();
    await this.saveLossResyncDue('');
    return keys;
  }

  /** Records (or clears, '') a resync owed after a data loss; a failed write is logged: the resync goes on. */
  private async saveLossResyncDue(value: string): Promise<void> {
    try {
      await this.o.checkpoints.save(this.cluster, new Map([[LOSS_RESYNC_DUE, value]]));
    } catch (err) {
      this.countError('checkpoint');
      this.logger.warn('Owed resync not recorded', { err, owed: value !== '' });
    }
  }

  /**
   * Enqueues every owned object's key from a fresh list of each owned kind; returns how many keys (this run's,
   * when resumable). Resumable (runFor): page by page from the saved progress, stopped with the run.
   */
  resync(resumable = false): Promise<number> {
    const input = {
      lister: this.lister,
      owns: this.served,
      ctx: this.pipeline.ctx,
      pageSize: this.o.pageSize ?? 500,
      maxPageBytes: this.limits.maxPageBytes,
      trim: (object: KubeObject) => trimForForwarder(object, this.limits.trim).object,
      add: (keys: readonly ReconcileKey[]) => this.pipeline.addAll(keys),
      park: (resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]) =>
        this.pipeline.recordInvalid(resource, object, invalid),
      unmappable: (resource: Resource, object: KubeObject, err: unknown) =>
        this.pipeline.unmappable(resource, object, err),
    };
    this.resyncing ??= (
      resumable
        ? runResumableResync({
            ...input,
            progress: resyncProgressStore(this.cluster, this.o.checkpoints),
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
    const listProgress =
      this.resumableLists && !this.o.cache
        ? listProgressStore(this.cluster, this.o.checkpoints, resource, this.o.memory)
        : undefined;
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
      admit: (object) => this.pipeline.admit(resource, object),
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
        onEvents: (events) => this.pipeline.onEvents(resource, events),
        onList: (reason, objects, rv, paged) => this.pipeline.onList(resource, reason, objects, rv, paged),
        onListPage: (reason, objects, first) => this.pipeline.onListPage(resource, reason, objects, first),
        onProgress: (rv) => {
          this.writer.mark(resource, rv);
          this.pipeline.advanceCache(resource, rv);
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

  /** Tells readers of a shared cache that it is kept current (cache-store.ts `heartbeat`). */
  private async heartbeat(): Promise<void> {
    try {
      await this.o.cache?.heartbeat(3 * CACHE_HEARTBEAT_MS);
    } catch (err) {
      this.countError('cache');
      this.logger.warn('Cache heartbeat not written', { err });
    }
  }

  private countError(operation: string, resource = ''): void {
    this.stats.errors++;
    this.metrics.errors.inc({ cluster: this.cluster, resource, operation });
  }
}
