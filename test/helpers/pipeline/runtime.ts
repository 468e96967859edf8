// The real reconcile runtime, in-process, against one sandbox cluster: what integration tests of a
// controller drive with reconcileOne (no forwarder; the test enqueues the keys events would).
import { setTimeout as delay } from 'node:timers/promises';
import type { Controller } from '../../../shared/controllers/controller.js';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import type { Kind } from '../../../shared/kube/kinds.js';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';
import { clusterClients } from '../../../shared/runtime/clients.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { reconcileOne, type ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';
import type { TestCluster } from '../sandbox/clusters.js';

export function inProcessDeps(
  c: TestCluster,
  o: {
    readonly owns: readonly Kind[];
    readonly controllers: ReadonlyArray<[string, Controller]>;
    readonly queue: WorkQueue;
    readonly service: string;
  },
): ReconcileDeps {
  const registry = new ClusterRegistry([
    {
      name: c.state.name,
      owns: o.owns,
      limits: { qps: 200, burst: 400 },
      connection: { type: 'kubeconfig', path: c.state.kubeconfig },
    },
  ]);
  return {
    registry,
    clients: clusterClients(registry),
    controllers: new Map(o.controllers),
    queue: o.queue,
    logger: new Logger(o.service, 'error'),
    now: () => new Date(),
  };
}

/**
 * Reconciles `key` once per round through the real runtime, then reads what the apiserver has, until `done` holds
 * of it (returned) or `deadlineMs` passes (an error naming `what` and `describe` of the last state).
 */
export async function reconcileUntil<S>(
  deps: ReconcileDeps,
  queue: WorkQueue,
  key: ReconcileKey,
  o: {
    readonly what: string;
    readonly read: () => Promise<S>;
    readonly done: (s: S) => boolean;
    readonly describe: (s: S) => string;
    readonly deadlineMs: number;
    readonly pollMs: number;
  },
): Promise<S> {
  const deadline = Date.now() + o.deadlineMs;
  for (;;) {
    await queue.add(key);
    const lease = await queue.get(10_000);
    if (!lease) throw new Error('the queue handed out no lease');
    await reconcileOne(deps, lease);
    const s = await o.read();
    if (o.done(s)) return s;
    if (Date.now() > deadline) throw new Error(`${o.what}: not reached in ${o.deadlineMs} ms: ${o.describe(s)}`);
    await delay(o.pollMs);
  }
}
