// One (cluster, resource): list (paged) + watch with bookmarks from the last resourceVersion, for as long as it
// runs. A stored checkpoint resumes the watch without a relist; 410 Gone relists; a closed stream watches again
// from the last resourceVersion; errors back off (an unreachable cluster only delays its own watchers).
// Events are handled one at a time, in order, and the resourceVersion advances only after the hooks succeeded,
// so a checkpoint is never ahead of what reached the queue.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import type { EventType } from './event-keys.js';
import type { Logger } from '../runtime/logger.js';
import { listAll, watchPath, type KubeObject, type Lister, type Resource } from './resources.js';
import { isExpiredError, isUnreachable, outcomeOfDone, outcomeOfStatus, type WatchOutcome } from './watch-errors.js';

/** initial: no checkpoint; expired: 410 Gone; warm: resuming from a checkpoint, list only to refill memory. */
export type ListReason = 'initial' | 'expired' | 'warm';

export type WatcherHooks = {
  onEvent(type: EventType, object: KubeObject): Promise<void>;
  onList(reason: ListReason, objects: readonly KubeObject[]): Promise<void>;
  /** The resourceVersion up to which everything was handled (after events, bookmarks and lists). */
  onProgress(resourceVersion: string): void;
  onRestart(reason: 'ended' | 'timeout' | 'expired' | 'error'): void;
  onError(operation: 'list' | 'watch', error: unknown): void;
};

export type ResourceWatcherOptions = {
  readonly cluster: string;
  readonly resource: Resource;
  readonly kubeConfig: KubeConfig;
  readonly lister: Lister;
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
};

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

export class ResourceWatcher {
  readonly resource: Resource;
  private rv: string | undefined;
  private stopping = false;
  private readonly stopSignal = new AbortController();
  private current: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private markSynced!: () => void;
  /** Resolves once the first list (or warm list) is done, or at once when resuming without one. */
  readonly synced = new Promise<void>((resolve) => (this.markSynced = resolve));

  constructor(private readonly o: ResourceWatcherOptions) {
    this.resource = o.resource;
    this.rv = o.resumeFrom;
  }

  get resourceVersion(): string | undefined {
    return this.rv;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    this.current?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.o.backoff);
    let pending: ListReason | undefined = this.rv === undefined ? 'initial' : this.o.warmOnResume ? 'warm' : undefined;
    if (pending === undefined) this.markSynced();
    while (!this.stopping) {
      try {
        if (pending !== undefined) {
          await this.list(pending);
          pending = undefined;
          this.markSynced();
        }
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

  private async list(reason: ListReason): Promise<void> {
    const pageSize = this.o.pageSize ?? 500;
    const { items, resourceVersion } = await this.untilStopped(
      listAll(this.o.lister, this.o.resource, pageSize, isExpiredError),
    );
    await this.o.hooks.onList(reason, items);
    this.o.logger.info('Listed', { reason, objects: items.length, resourceVersion });
    if (reason === 'warm') return;
    this.rv = resourceVersion;
    this.o.hooks.onProgress(resourceVersion);
  }

  private watchOnce(fromRv: string): Promise<WatchOutcome> {
    return new Promise<WatchOutcome>((resolve) => {
      const started = Date.now();
      let events = 0;
      let outcome: WatchOutcome | undefined;
      let chain: Promise<void> = Promise.resolve();
      let finished = false;
      this.current = undefined;
      const settle = (o: WatchOutcome): void => {
        outcome ??= o;
        this.current?.abort();
      };
      const onStop = (): void => done(null);
      const done = (err: unknown): void => {
        if (finished) return;
        finished = true;
        this.stopSignal.signal.removeEventListener('abort', onStop);
        void chain.then(() =>
          resolve(this.stopping ? { kind: 'stopped' } : (outcome ?? outcomeOfDone(err, events, Date.now() - started))),
        );
      };
      const onLine = (type: string, object: unknown): void => {
        if (outcome !== undefined || this.stopping) return;
        if (type === 'ERROR') return settle(outcomeOfStatus(object));
        const rv = (object as KubeObject | undefined)?.metadata?.resourceVersion;
        if (type === 'BOOKMARK') {
          chain = chain.then(() => this.advance(rv));
          return;
        }
        if (!EVENT_TYPES.has(type)) return;
        events++;
        chain = chain
          .then(async () => {
            if (outcome !== undefined) return;
            await this.o.hooks.onEvent(type as EventType, object as KubeObject);
            this.advance(rv);
          })
          .catch((error: unknown) => settle({ kind: 'failed', error }));
      };
      // A connect that hangs (a black-holed cluster) must not hold up stop().
      this.stopSignal.signal.addEventListener('abort', onStop, { once: true });
      const timeoutSeconds = this.o.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300);
      const watch = new Watch(this.o.kubeConfig);
      // client-node aborts a watch after 30 s without data; the apiserver sends a bookmark about once a
      // minute, so allow for that before presuming the connection dead.
      (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = 90_000;
      const params = { resourceVersion: fromRv, allowWatchBookmarks: true, timeoutSeconds };
      watch.watch(watchPath(this.o.resource), params, onLine, done).then((controller) => {
        this.current = controller;
        if (this.stopping || outcome !== undefined) controller.abort();
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
