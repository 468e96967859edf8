// The forwarder's add fold (shared/queue/sqs/sqs-add-fold.ts) on an injected clock: timing is exact, nothing
// sleeps. The driver underneath is a recorder of add() calls whose sends the test settles.
import { describe, expect, it } from '@jest/globals';
import { MalformedKeyError, type ReconcileKey } from '../../../shared/kube/key.js';
import { AddFoldQueue, type FoldClock } from '../../../shared/queue/sqs/sqs-add-fold.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';

const key = (name: string): ReconcileKey => ({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });

class ManualClock implements FoldClock {
  at = 0;
  private timers: Array<{ due: number; fn: () => void; live: boolean }> = [];
  now = () => this.at;
  setTimer = (fn: () => void, ms: number) => {
    const t = { due: this.at + ms, fn, live: true };
    this.timers.push(t);
    return t;
  };
  clearTimer = (handle: unknown) => {
    (handle as { live: boolean }).live = false;
  };
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.live && t.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.at = next.due;
      next.live = false;
      next.fn();
    }
    this.at = end;
  }
  get pending(): number {
    return this.timers.filter((t) => t.live).length;
  }
}

/** A driver whose add() calls are recorded and settled by the test (resolve or reject each). */
function recordingDriver() {
  const sends: Array<{ name: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  let closed = false;
  const driver = {
    driver: 'sqs',
    add: (k: ReconcileKey) =>
      new Promise<void>((resolve, reject) => {
        sends.push({ name: k.name, resolve, reject });
      }),
    addAfter: async () => {},
    depth: async () => 0,
    close: async () => {
      closed = true;
    },
  } as unknown as WorkQueue;
  return { driver, sends, isClosed: () => closed };
}

const flushMicrotasks = () => new Promise<void>((r) => setImmediate(r));

describe('AddFoldQueue', () => {
  it('sends one message for N adds of a key within the window, after the last of them, and settles them all', async () => {
    const clock = new ManualClock();
    const { driver, sends } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 200, maxKeys: 100, clock });
    const settled: string[] = [];
    const adds = [0, 50, 120, 199].map((t) => {
      clock.advance(t - clock.at);
      return fold.add(key('web')).then(() => settled.push(`web@${t}`));
    });
    expect(sends).toHaveLength(0);
    expect(fold.held).toBe(1);
    clock.advance(1); // t = 200: the window opened at 0 ends
    expect(sends.map((s) => s.name)).toEqual(['web']);
    expect(settled).toEqual([]); // not before the send is in the queue
    sends[0]?.resolve();
    await Promise.all(adds);
    expect(settled).toHaveLength(4);
    expect(fold.stats).toEqual({ adds: 4, sends: 1, earlyFlushes: 0 });
    // An add after the send opens a new window: a message is sent after it too.
    const later = fold.add(key('web'));
    clock.advance(200);
    expect(sends.map((s) => s.name)).toEqual(['web', 'web']);
    sends[1]?.resolve();
    await later;
  });

  it('keeps each key to its own window', async () => {
    const clock = new ManualClock();
    const { driver, sends } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 100, maxKeys: 100, clock });
    void fold.add(key('a'));
    clock.advance(60);
    void fold.add(key('b'));
    void fold.add(key('a'));
    clock.advance(40); // a's window ends at 100, b's at 160
    expect(sends.map((s) => s.name)).toEqual(['a']);
    clock.advance(59);
    expect(sends.map((s) => s.name)).toEqual(['a']);
    clock.advance(1);
    expect(sends.map((s) => s.name)).toEqual(['a', 'b']);
    expect(clock.pending).toBe(0);
  });

  it('rejects every add folded into a failed send, so the caller handles its events again', async () => {
    const clock = new ManualClock();
    const { driver, sends } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 100, maxKeys: 100, clock });
    const first = fold.add(key('web'));
    const second = fold.add(key('web'));
    clock.advance(100);
    sends[0]?.reject(new Error('SQS unavailable'));
    await expect(first).rejects.toThrow('SQS unavailable');
    await expect(second).rejects.toThrow('SQS unavailable');
    expect(fold.held).toBe(0);
  });

  it('holds at most maxKeys keys: the add that would pass the cap flushes every held key early', async () => {
    const clock = new ManualClock();
    const { driver, sends } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 250, maxKeys: 3, clock });
    for (const name of ['a', 'b', 'c']) void fold.add(key(name));
    void fold.add(key('a')); // folded, not a new key
    expect(sends).toHaveLength(0);
    void fold.add(key('d'));
    expect(sends.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(fold.held).toBe(1);
    expect(fold.stats.earlyFlushes).toBe(1);
    clock.advance(250);
    expect(sends.map((s) => s.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('flushes what it holds on close, before closing the driver, and never drops a key', async () => {
    const clock = new ManualClock();
    const { driver, sends, isClosed } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 250, maxKeys: 100, clock });
    const add = fold.add(key('web'));
    const closing = fold.close();
    await flushMicrotasks();
    expect(sends.map((s) => s.name)).toEqual(['web']); // sent at once, no time passed
    expect(isClosed()).toBe(false); // the driver waits for the send
    sends[0]?.resolve();
    await closing;
    await add;
    expect(isClosed()).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('refuses a malformed key at once, as the driver would, without holding it', async () => {
    const { driver, sends } = recordingDriver();
    const fold = new AddFoldQueue(driver, { windowMs: 100, maxKeys: 10, clock: new ManualClock() });
    await expect(fold.add({ ...key('web'), name: 'Not/A/Name' })).rejects.toBeInstanceOf(MalformedKeyError);
    expect(fold.held).toBe(0);
    expect(sends).toHaveLength(0);
  });

  it('refuses a window or cap that would hold nothing', () => {
    const { driver } = recordingDriver();
    expect(() => new AddFoldQueue(driver, { windowMs: 0, maxKeys: 10 })).toThrow(RangeError);
    expect(() => new AddFoldQueue(driver, { windowMs: 100, maxKeys: 0 })).toThrow(RangeError);
  });
});
