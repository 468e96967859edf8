// The real reconcile runtime, in-process, against one sandbox cluster: what integration tests of a
// controller drive with reconcileOne (no forwarder; the test enqueues the keys events would).
import type { Controller } from '../../../shared/controllers/controller.js';
import type { Kind } from '../../../shared/kube/kinds.js';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';
import { clusterClients } from '../../../shared/runtime/clients.js';
import { Logger } from '../../../shared/runtime/logger.js';
import type { ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';
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
