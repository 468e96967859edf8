import { describe, expect, it } from '@jest/globals';
import { currentPhaseClock, PhaseClock, timedPhase, withPhaseClock } from '../../../shared/runtime/reconcile-phases.js';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('reconcile phases', () => {
  it('adds each phase to the clock of the run it happens in, never to another run', async () => {
    const a = new PhaseClock();
    const b = new PhaseClock();
    await Promise.all([
      withPhaseClock(a, async () => {
        await timedPhase('fence', () => tick(20));
        currentPhaseClock()?.add('request', 5);
      }),
      withPhaseClock(b, async () => {
        await tick(5);
        currentPhaseClock()?.add('request', 7);
        currentPhaseClock()?.add('request', 1);
      }),
    ]);
    expect(a.fields().fence).toBeGreaterThanOrEqual(15);
    expect(a.fields().request).toBe(5);
    expect(b.fields()).toEqual({ request: 8 });
  });

  it('times a phase that throws, and outside a run only runs the function', async () => {
    const c = new PhaseClock();
    await expect(withPhaseClock(c, () => timedPhase('apply', () => Promise.reject(new Error('409'))))).rejects.toThrow(
      '409',
    );
    expect(Object.keys(c.fields())).toEqual(['apply']);
    expect(await timedPhase('apply', () => Promise.resolve(3))).toBe(3);
    expect(currentPhaseClock()).toBeUndefined();
  });

  it('lists the phases in their order, rounded, negative times as 0', () => {
    const c = new PhaseClock();
    c.add('total', 12.345);
    c.add('queued', 1.26);
    c.add('plan', -3);
    expect(Object.entries(c.fields())).toEqual([
      ['queued', 1.3],
      ['plan', 0],
      ['total', 12.3],
    ]);
  });
});
