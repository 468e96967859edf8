// The forwarder's adds to the SQS driver, folded per key over a short window: every add is a paid SendMessage
// and a message the event source mapping must receive and delete, and a rollout makes many events of one key
// (its Deployment's, its ReplicaSets', each pod's) within a few hundred milliseconds. An add starts a window for
// its key (windowMs, FLEETQ_ADD_FOLD_MS); adds of that key within the window join it; when the window ends ONE
// message is sent, and every add of the window resolves (or rejects) with that send.
//
// Why this keeps the queue contract: an add's promise settles only once a message sent AFTER the add is in the
// queue, so the forwarder's checkpoint never passes an event whose key is not durably enqueued, and the run the
// message starts reads state at least as new as every folded event (keys are level-triggered). A failed send
// rejects every add folded into it: the forwarder's batch fails and is handled again from before it. Nothing
// is dropped: a key is removed from the fold only when its send is issued.
// Memory is bounded: at most maxKeys keys are held; the add that would pass the cap flushes every held key at
// once (early) and starts a fresh window for itself. close() flushes what is held before closing the driver.
// Only add is folded: addAfter, the lease path and everything else go straight to the driver.
import { checkedKeyString } from '../queue-options.js';
import type { ReconcileKey } from '../../kube/key.js';
import type { WorkQueue } from '../work-queue.js';

/** The clock the fold runs on (injected in tests). */
export type FoldClock = {
  readonly now: () => number;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
};

export const systemFoldClock: FoldClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type AddFoldOptions = {
  /** How long a key's first add waits for more adds of the key before its message is sent (ms, > 0). */
  readonly windowMs: number;
  /** The most keys held at once; the add that would pass it flushes them all early. */
  readonly maxKeys: number;
  readonly clock?: FoldClock;
};

export const ADD_FOLD_DEFAULTS = { windowMs: 200, maxKeys: 10_000 } as const;

/** What the fold did, for the bench and the tests: adds taken, messages sent, flushes forced by the cap. */
export type AddFoldStats = { adds: number; sends: number; earlyFlushes: number };

type Window = {
  readonly key: ReconcileKey;
  readonly dueAt: number;
  readonly settle: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
};

export class AddFoldQueue implements WorkQueue {
  readonly driver: WorkQueue['driver'];
  readonly stats: AddFoldStats = { adds: 0, sends: 0, earlyFlushes: 0 };
  private readonly clock: FoldClock;
  /** Held keys by key string, in the order their windows opened (so also by due time). */
  private readonly windows = new Map<string, Window>();
  private timer: unknown;
  private timerDueAt = Infinity;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly inner: WorkQueue,
    private readonly options: AddFoldOptions,
  ) {
    if (!(options.windowMs > 0)) throw new RangeError('the add fold window must be over 0 ms');
    if (!(options.maxKeys >= 1)) throw new RangeError('the add fold must hold at least one key');
    this.driver = inner.driver;
    this.clock = options.clock ?? systemFoldClock;
  }

  /** Keys held now (waiting for their window to end). */
  get held(): number {
    return this.windows.size;
  }

  add(key: ReconcileKey): Promise<void> {
    // Refused keys are refused now, one by one, as the driver would refuse them (the forwarder records them).
    let id: string;
    try {
      id = checkedKeyString(key);
    } catch (err) {
      return Promise.reject(err);
    }
    this.stats.adds++;
    if (this.closed) return this.inner.add(key);
    return new Promise<void>((resolve, reject) => {
      const open = this.windows.get(id);
      if (open) {
        open.settle.push({ resolve, reject });
        return;
      }
      if (this.windows.size >= this.options.maxKeys) {
        this.stats.earlyFlushes++;
        this.flushAll();
      }
      const dueAt = this.clock.now() + this.options.windowMs;
      this.windows.set(id, { key, dueAt, settle: [{ resolve, reject }] });
      this.arm(dueAt);
    });
  }

  /** Sends every held key now; resolves when their sends (and any already under way) have settled. */
  async flush(): Promise<void> {
    this.flushAll();
    await Promise.allSettled([...this.inFlight]);
  }

  addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    return this.inner.addAfter(key, delayMs);
  }
  get: WorkQueue['get'] = (waitMs) => this.inner.get(waitMs);
  done: WorkQueue['done'] = (lease, requeueAfterMs, options) => this.inner.done(lease, requeueAfterMs, options);
  retry: WorkQueue['retry'] = (lease, error, options) => this.inner.retry(lease, error, options);
  deadLetter: WorkQueue['deadLetter'] = (lease, reason) => this.inner.deadLetter(lease, reason);
  parkInvalid: WorkQueue['parkInvalid'] = (raw, reason) => this.inner.parkInvalid(raw, reason);
  backoffBreakdown: WorkQueue['backoffBreakdown'] = () => this.inner.backoffBreakdown();
  renew: WorkQueue['renew'] = (lease) => this.inner.renew(lease);
  deadLetters: WorkQueue['deadLetters'] = () => this.inner.deadLetters();
  redrive: WorkQueue['redrive'] = (match, options) => this.inner.redrive(match, options);
  /** The driver's depth plus the keys held here (each will be one message). */
  depth: WorkQueue['depth'] = async () => (await this.inner.depth()) + this.windows.size;

  /** Flushes what is held (a shutdown never drops a folded key), then closes the driver. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    await this.inner.close();
  }

  private arm(dueAt: number): void {
    if (dueAt >= this.timerDueAt) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timerDueAt = dueAt;
    this.timer = this.clock.setTimer(() => this.onTimer(), Math.max(0, dueAt - this.clock.now()));
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = this.clock.now();
    for (const [id, w] of this.windows) {
      if (w.dueAt > now) {
        this.arm(w.dueAt);
        return;
      }
      this.send(id, w);
    }
  }

  private flushAll(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
    for (const [id, w] of this.windows) this.send(id, w);
  }

  /** Removes the key from the fold and sends its one message; every add folded into it settles with the send. */
  private send(id: string, w: Window): void {
    this.windows.delete(id);
    this.stats.sends++;
    const sent = this.inner.add(w.key).then(
      () => w.settle.forEach((s) => s.resolve()),
      (err: unknown) => w.settle.forEach((s) => s.reject(err)),
    );
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }
}
