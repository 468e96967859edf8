import { describe, expect, it } from '@jest/globals';
import { ControllerBudgets, OUTSIDE_RECONCILES, budgetName } from '../../../shared/kube/controller-budgets.js';
import type { BudgetRate } from '../../../shared/kube/registry.js';
import type { RateLimiter } from '../../../shared/kube/rest.js';
import { currentController, forController } from '../../../shared/kube/request-controller.js';

/** Buckets that record each take, by name (the cap is `cap`); a take resolves when the test releases it. */
function recordingBuckets() {
  const made: { name: string; rate: BudgetRate }[] = [];
  const takes: string[] = [];
  const waiting: { name: string; release: () => void }[] = [];
  const bucket = (controller: string | undefined, rate: BudgetRate): RateLimiter => {
    const name = controller ?? 'cap';
    made.push({ name, rate });
    return {
      take: () =>
        new Promise<void>((release) => {
          takes.push(name);
          waiting.push({ name, release });
        }),
    };
  };
  const releaseAll = async () => {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      const w = waiting.shift();
      if (!w) return;
      w.release();
    }
  };
  return { made, takes, waiting, bucket, releaseAll };
}

describe('budgetName', () => {
  it('is the key kind of the reconcile, the first kind of a group owned together, or the bucket outside reconciles', () => {
    expect(budgetName('Deployment')).toBe('Deployment');
    expect(budgetName('TTLAfterFinished')).toBe('TTLAfterFinished');
    expect(budgetName('LeaderWorkerSet')).toBe('LeaderWorkerSet');
    expect(budgetName('LeaderWorkerSetPod')).toBe('LeaderWorkerSet');
    expect(budgetName(undefined)).toBe(OUTSIDE_RECONCILES);
    expect(budgetName('B', [['A', 'B']])).toBe('A');
  });
});

describe('forController', () => {
  it("keeps each concurrent reconcile's controller apart", async () => {
    const seen: (string | undefined)[] = [];
    const run = (kind: string, delayMs: number) =>
      forController(kind, async () => {
        await new Promise((r) => setTimeout(r, delayMs));
        seen.push(`${kind}:${currentController()}`);
      });
    await Promise.all([run('Deployment', 20), run('ReplicaSet', 5)]);
    expect(seen.sort()).toEqual(['Deployment:Deployment', 'ReplicaSet:ReplicaSet']);
    expect(currentController()).toBeUndefined();
  });
});

describe('ControllerBudgets', () => {
  const perController = { qps: 20, burst: 30 };

  it("takes each request's token from its controller's own bucket, made once per controller at the per-controller rate", async () => {
    const b = recordingBuckets();
    const budgets = new ControllerBudgets({ perController, bucket: b.bucket });
    const done = Promise.all([
      forController('Deployment', () => budgets.take()),
      forController('ReplicaSet', () => budgets.take()),
      forController('Deployment', () => budgets.take()),
      forController('LeaderWorkerSetPod', () => budgets.take()),
      budgets.take(),
    ]);
    await b.releaseAll();
    await done;
    expect(b.takes).toEqual(['Deployment', 'ReplicaSet', 'Deployment', 'LeaderWorkerSet', OUTSIDE_RECONCILES]);
    expect(b.made).toEqual([
      { name: 'Deployment', rate: perController },
      { name: 'ReplicaSet', rate: perController },
      { name: 'LeaderWorkerSet', rate: perController },
      { name: OUTSIDE_RECONCILES, rate: perController },
    ]);
  });

  it('without a cluster cap takes from no other bucket', async () => {
    const b = recordingBuckets();
    const budgets = new ControllerBudgets({ perController, bucket: b.bucket, current: () => 'Job' });
    const done = budgets.take();
    await b.releaseAll();
    await done;
    expect(b.made.map((m) => m.name)).toEqual(['Job']);
  });

  it("with a cluster cap takes the cap's token too, only once the controller's token came", async () => {
    const b = recordingBuckets();
    const cap = { qps: 50, burst: 60 };
    const budgets = new ControllerBudgets({ perController, cluster: cap, bucket: b.bucket, current: () => 'Job' });
    expect(b.made).toEqual([{ name: 'cap', rate: cap }]);
    let sent = false;
    const done = budgets.take().then(() => (sent = true));
    await new Promise((r) => setImmediate(r));
    expect(b.takes).toEqual(['Job']); // the cap is not asked while the controller's token has not come
    b.waiting.shift()?.release();
    await new Promise((r) => setImmediate(r));
    expect(b.takes).toEqual(['Job', 'cap']);
    expect(sent).toBe(false);
    b.waiting.shift()?.release();
    await done;
    expect(sent).toBe(true);
  });
});
