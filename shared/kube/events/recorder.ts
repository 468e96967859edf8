// One cluster's event recorder: client-go's EventBroadcaster + StartRecordingToSink, without goroutines.
// record() never blocks and never throws: it stamps the event (name and timestamps at the time it is
// recorded) and puts it in a bounded buffer (1000, client-go's maxQueuedEvents); when the buffer is full the
// event is dropped and counted. One drain loop takes the events in order, correlates them (aggregation,
// dedup, spam filter: correlator.ts; dedup only for an event upstream records through events.k8s.io's recorder,
// which has no aggregation or spam filter) and writes them through the cluster's KubeRest (its rate limiter and
// circuit): POST a new Event; PATCH count/lastTimestamp/message of a repeated one (a POST when it is gone).
// As upstream's recordEvent: an apiserver refusal (any HTTP error answer) is final and logged, an answer
// that never came (transport error, timeout, open circuit) is retried up to 12 tries, 10 s apart (the first
// wait randomized), while later events wait in the buffer.
// The drain runs in the async context the recorder (set) was made in, not in that of the reconcile that happened
// to record first: event writes are no reconcile's writes (the cache's write tracker follows async context).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ApiError, isAlreadyExists, isNotFound } from '../errors.js';
import type { KubeRest } from '../rest.js';
import { EventCorrelator, type CorrelatorOptions } from './correlator.js';
import type { EventPatch } from './dedup.js';
import { makeEvent } from './make-event.js';
import { hasStatusCause, isAccessDenied, NAMESPACE_TERMINATING } from './status-cause.js';
import { systemNanos, type CoreEvent, type NanoClock, type ResolvedEvent } from './types.js';

export const MAX_QUEUED_EVENTS = 1000;
export const MAX_TRIES_PER_EVENT = 12;
export const RETRY_DELAY_MS = 10_000;

/** Where the writer hands the events of a reconcile. */
export interface EventSink {
  record(e: ResolvedEvent): void;
}

export type EventLog = {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

export type DropReason = 'buffer_full' | 'write_failed';

export type EventMetrics = {
  dropped(reason: DropReason): void;
  written(verb: 'create' | 'patch'): void;
  filtered(): void;
};

export type EventRecorderOptions = {
  readonly capacity?: number;
  readonly maxTries?: number;
  readonly retryDelayMs?: number;
  readonly clock?: NanoClock;
  readonly random?: () => number;
  readonly correlator?: CorrelatorOptions;
  readonly logger?: EventLog;
  readonly metrics?: EventMetrics;
  /** Runs the drain loop in a context of its own (AsyncLocalStorage.snapshot()); default: the constructor's. */
  readonly context?: <R>(fn: () => R) => R;
};

const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const DROP_LOG_EVERY_MS = 10_000;
const noLog: EventLog = { debug: () => {}, warn: () => {}, error: () => {} };

export class EventRecorder implements EventSink {
  private readonly buffer: Array<{ readonly event: CoreEvent; readonly uncorrelated: boolean }> = [];
  private readonly correlator: EventCorrelator;
  private readonly capacity: number;
  private readonly clock: NanoClock;
  private readonly log: EventLog;
  private readonly context: <R>(fn: () => R) => R;
  private lastNanos = 0n;
  private running: Promise<void> | undefined;
  private closed = false;
  private wake: (() => void) | undefined;
  private droppedSinceLog = 0;
  private lastDropLog = 0;

  constructor(
    private rest: KubeRest,
    private readonly o: EventRecorderOptions = {},
  ) {
    this.correlator = new EventCorrelator(o.correlator);
    this.capacity = o.capacity ?? MAX_QUEUED_EVENTS;
    this.clock = o.clock ?? systemNanos;
    this.log = o.logger ?? noLog;
    this.context = o.context ?? AsyncLocalStorage.snapshot();
  }

  /** Nothing buffered and nothing being written: the recorder may be forgotten (recorders.ts). */
  get idle(): boolean {
    return this.running === undefined && this.buffer.length === 0;
  }

  /** The client the next writes go through (the cluster's clients were built again); a write in flight ends on its own. */
  writeThrough(rest: KubeRest): void {
    this.rest = rest;
  }

  /** Events waiting to be written (not counting the one being written). */
  get pending(): number {
    return this.buffer.length;
  }

  record(e: ResolvedEvent): void {
    if (this.closed || this.buffer.length >= this.capacity) {
      this.drop(e);
      return;
    }
    this.buffer.push({ event: makeEvent(e, this.nextNanos()), uncorrelated: e.recorder === 'events.k8s.io' });
    this.running ??= this.context(() => this.drain()).finally(() => (this.running = undefined));
  }

  /** Resolves once every event recorded so far was written or given up, or after timeoutMs (false then). */
  async flush(timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.running !== undefined) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((r) => (timer = setTimeout(r, left)));
      await Promise.race([this.running, timeout]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Stops retrying; what is still buffered is written once, without retries. */
  async close(timeoutMs = 5_000): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.flush(timeoutMs);
  }

  /** Unique, increasing nanoseconds: two events of one object never get one name. */
  private nextNanos(): bigint {
    const now = this.clock();
    this.lastNanos = now > this.lastNanos ? now : this.lastNanos + 1n;
    return this.lastNanos;
  }

  private drop(e: ResolvedEvent): void {
    this.o.metrics?.dropped('buffer_full');
    this.droppedSinceLog++;
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_EVERY_MS) return;
    this.log.error('Events dropped: buffer full', {
      dropped: this.droppedSinceLog,
      capacity: this.capacity,
      reason: e.reason,
      object: `${e.regarding.kind}/${e.regarding.namespace}/${e.regarding.name}`,
    });
    this.droppedSinceLog = 0;
    this.lastDropLog = now;
  }

  private async drain(): Promise<void> {
    for (let next = this.buffer.shift(); next !== undefined; next = this.buffer.shift()) {
      try {
        await this.write(next.event, next.uncorrelated);
      } catch (err) {
        this.log.error('Event not written', { error: describe(err), ...fieldsOf(next.event) });
      }
    }
  }

  private async write(e: CoreEvent, uncorrelated: boolean): Promise<void> {
    const c = this.correlator.correlate(e, this.clock(), uncorrelated);
    if (c.skip) {
      this.o.metrics?.filtered();
      return;
    }
    const maxTries = this.o.maxTries ?? MAX_TRIES_PER_EVENT;
    for (let tries = 1; ; tries++) {
      if (await this.attempt(c.event, c.patch)) return;
      if (tries >= maxTries || this.closed) {
        this.o.metrics?.dropped('write_failed');
        this.log.error('Event not written: retry limit reached', { tries, ...fieldsOf(c.event) });
        return;
      }
      const delay = this.o.retryDelayMs ?? RETRY_DELAY_MS;
      await this.sleep(tries === 1 ? delay * (this.o.random ?? Math.random)() : delay);
    }
  }

  /** recordEvent: true when written or given up for good, false to retry. */
  private async attempt(e: CoreEvent, patch: EventPatch | undefined): Promise<boolean> {
    const base = `/api/v1/namespaces/${e.metadata.namespace}/events`;
    try {
      let server: CoreEvent | undefined;
      if (patch !== undefined) {
        try {
          server = await this.rest.request<CoreEvent>('PATCH', `${base}/${e.metadata.name}`, {
            body: patch,
            contentType: STRATEGIC_MERGE_PATCH,
          });
          this.o.metrics?.written('patch');
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      if (server === undefined) {
        const body: CoreEvent = { ...e, metadata: { name: e.metadata.name, namespace: e.metadata.namespace } };
        server = await this.rest.request<CoreEvent>('POST', base, { body });
        this.o.metrics?.written('create');
      }
      this.correlator.updateState(server);
      return true;
    } catch (err) {
      if (err instanceof ApiError) {
        this.o.metrics?.dropped('write_failed');
        const quiet = isAlreadyExists(err) || hasStatusCause(err, NAMESPACE_TERMINATING);
        // A 403 is the role lacking `create`/`patch` on events: every event will be lost until it is fixed.
        const log = quiet
          ? this.log.debug.bind(this.log)
          : isAccessDenied(err)
            ? this.log.error.bind(this.log)
            : this.log.warn.bind(this.log);
        log('Event rejected by the apiserver (not retried)', { error: describe(err), ...fieldsOf(e) });
        return true;
      }
      this.log.warn('Event not written; may retry', { error: describe(err), ...fieldsOf(e) });
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => (this.wake = undefined));
  }
}

function fieldsOf(e: CoreEvent): Record<string, unknown> {
  const o = e.involvedObject;
  return { object: `${o.kind}/${o.namespace}/${o.name}`, reason: e.reason, type: e.type, count: e.count };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
