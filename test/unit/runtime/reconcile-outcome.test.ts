// reconcileOne's outcome when done() is refused: a run whose lease passed to another holder while it worked
// says 'lease-lost' (it did not release the key and scheduled no requeue), not 'done'. The queue is the real
// in-memory driver on a clock the test moves; the controller plans nothing, so no cluster is needed.
import { describe, expect, it } from '@jest/globals';
import type { Controller } from '../../../shared/controllers/controller.js';
import type { KubeRest } from '../../../shared/kube/rest.js';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import type { ClusterView } from '../../../shared/kube/view.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import type { Lease } from '../../../shared/queue/work-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { reconcileOne, type ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';

const LEASE_MS = 1_000;
const KEY = { cluster: 'c', kind: 'ReplicaSet', namespace: 'ns', name: 'x' };

function setup(during: (queue: MemoryQueue, advance: (ms: number) => void) => Promise<void>) {
  let now = 1_000_000;
  const advance = (ms: number) => (now += ms);
  const queue = new MemoryQueue({ leaseMs: LEASE_MS, now: () => now });
  const controller: Controller = {
    kind: 'ReplicaSet',
    observe: async () => during(queue, advance),
    plan: () => ({ actions: [], requeueAfter: 5_000 }),
  };
  const registry = new ClusterRegistry(
    [
      {
        name: 'c',
        owns: ['ReplicaSet'],
        limits: { qps: 100, burst: 100 },
        connection: { type: 'kubeconfig', path: '/nonexistent' },
      },
    ],
    () => undefined,
  );
  const deps: ReconcileDeps = {
    registry,
    clients: () => ({ rest: {} as KubeRest, view: {} as ClusterView }),
    controllers: new Map([['ReplicaSet', controller]]),
    queue,
    logger: new Logger('test', 'error'),
    now: () => new Date(now),
    leaseMs: LEASE_MS,
  };
  return { queue, deps, advance };
}

async function held(queue: MemoryQueue): Promise<Lease> {
  const lease = await queue.get(0);
  if (!lease) throw new Error('no key handed out');
  return lease;
}

describe('reconcileOne: the outcome of done()', () => {
  it("is 'requeued' when the run still holds its lease", async () => {
    const { queue, deps } = setup(async () => undefined);
    await queue.add(KEY);
    expect(await reconcileOne(deps, await held(queue))).toBe('requeued');
    expect(await queue.depth()).toBe(1); // the requeue, 5 s ahead
  });

  it("is 'lease-lost' when the lease expired and another holder took the key: nothing released or requeued", async () => {
    let second: Lease | null = null;
    const { queue, deps, advance } = setup(async (q, move) => {
      move(LEASE_MS * 2);
      second = await q.get(0);
    });
    await queue.add(KEY);
    const first = await held(queue);
    expect(await reconcileOne(deps, first)).toBe('lease-lost');
    expect(second).not.toBeNull();
    // The second holder still holds the key: nothing waits, and its own done() is the one that counts.
    expect(await queue.depth()).toBe(0);
    advance(1);
    expect(await queue.renew(second!)).toBe(true);
    expect(await queue.done(second!)).toEqual({ outcome: 'done' });
  });
});
