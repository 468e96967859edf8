// What a FleetRollout's pass reads: the rollout on the hub, and its target in every cluster it selects (and in
// every cluster its ledger names or whose target carries its pin, so a cluster that left is unpinned), through
// each cluster's own read view (the cache where there is one). A cluster whose reads fail is unreachable for the
// pass; it never fails the pass. Everything read is untrusted: the rollout is parsed (types.ts), the targets are
// read by the health reading, which never throws.
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import type { ApiObject } from '../../kube/meta/object.js';
import type { ReconcileKey } from '../../kube/key.js';
import { targetHealth, unreachableHealth, type TargetRead } from '../../rollouts/health.js';
import { isRecord } from '../../rollouts/health-untrusted.js';
import type { ClusterObservation, RolloutTargetKind } from '../../rollouts/observation.js';
import { selectClusters } from '../../rollouts/select.js';
import { FleetRolloutError, parseFleetRollout, type FleetRollout } from '../../rollouts/types.js';
import type { FleetAccess, FleetCluster } from '../controller.js';

export const FLEET_ROLLOUT_FINALIZER = 'fleetq.dev/fleet-rollout-pins';

/** Clusters read at once. */
const READ_PARALLELISM = 16;

/** The target as read in one cluster, besides its health. */
export type TargetState = {
  readonly cluster: string;
  /** The target exists (and was read). */
  readonly present: boolean;
  readonly uid: string;
  /** Its annotations as read (untrusted; only the pin's are looked at). */
  readonly annotations: Readonly<Record<string, unknown>>;
};

export type ObservedFleetRollout =
  | { readonly state: 'gone' }
  | { readonly state: 'invalid'; readonly object: ApiObject; readonly message: string }
  | {
      readonly state: 'ok';
      readonly object: ApiObject;
      readonly rollout: FleetRollout;
      readonly deleting: boolean;
      readonly hasFinalizer: boolean;
      readonly clusters: readonly FleetCluster[];
      readonly observations: readonly ClusterObservation[];
      readonly targets: readonly TargetState[];
    };

export async function observeFleetRollout(
  hub: ClusterView,
  key: ReconcileKey,
  now: Date = new Date(),
  fleet?: FleetAccess,
): Promise<ObservedFleetRollout> {
  const object = await hub.get<ApiObject>('FleetRollout', key.namespace, key.name);
  if (object === null) return { state: 'gone' };
  let rollout: FleetRollout;
  try {
    rollout = parseFleetRollout(object);
  } catch (err) {
    if (err instanceof FleetRolloutError) return { state: 'invalid', object, message: err.message };
    throw err;
  }
  const meta = object.metadata ?? {};
  const deleting = typeof meta.deletionTimestamp === 'string' && meta.deletionTimestamp !== '';
  const hasFinalizer = Array.isArray(meta.finalizers) && meta.finalizers.includes(FLEET_ROLLOUT_FINALIZER);
  const clusters = fleet?.clusters() ?? [];
  // Every cluster of the registry is read when the rollout is being deleted (its pins come off everywhere);
  // otherwise the selected ones and those the ledger names.
  const named = new Set((rollout.status.revisions ?? []).flatMap((e) => e.clusters.map((c) => c.cluster)));
  const selected = new Set(selectClusters(clusters, rollout.spec.clusters).map((c) => c.name));
  const toRead = clusters.filter((c) => deleting || selected.has(c.name) || named.has(c.name));
  const reads = await mapLimit(toRead, READ_PARALLELISM, (c) =>
    readTarget(fleet, c.name, rollout, now).catch((err: unknown) => ({
      observation: unreachableHealth(c.name, err instanceof Error ? err.message.slice(0, 300) : String(err)),
      target: { cluster: c.name, present: false, uid: '', annotations: {} },
    })),
  );
  return {
    state: 'ok',
    object,
    rollout,
    deleting,
    hasFinalizer,
    clusters,
    observations: reads.map((r) => r.observation).filter((o) => selected.has(o.cluster)),
    targets: reads.map((r) => r.target),
  };
}

async function readTarget(
  fleet: FleetAccess | undefined,
  cluster: string,
  rollout: FleetRollout,
  now: Date,
): Promise<{ observation: ClusterObservation; target: TargetState }> {
  if (fleet === undefined) throw new Error('no fleet access: FleetRollout runs in a fleetq handler only');
  const view = fleet.view(cluster);
  const { kind, namespace, name } = rollout.spec.target;
  const read = await readKind(view, kind, namespace, name);
  const options = { now, progressDeadlineMs: rollout.spec.progressDeadlineMs };
  const workload = targetOf(read);
  const metadata = workload?.metadata;
  return {
    observation: targetHealth(cluster, read, options),
    target: {
      cluster,
      present: workload !== null,
      uid: typeof metadata?.uid === 'string' ? metadata.uid : '',
      annotations: isRecord(metadata?.annotations) ? metadata.annotations : {},
    },
  };
}

async function readKind(
  view: ClusterView,
  kind: RolloutTargetKind,
  namespace: string,
  name: string,
): Promise<TargetRead> {
  const workload = await view.get<ApiObject>(kind, namespace, name);
  const uid = workload?.metadata?.uid;
  if (workload === null || typeof uid !== 'string') {
    return kind === 'Deployment'
      ? { kind, deployment: workload, replicaSets: [], pods: [] }
      : kind === 'StatefulSet'
        ? { kind, statefulSet: workload, revisions: [], pods: [] }
        : { kind, daemonSet: workload, revisions: [], pods: [] };
  }
  if (kind === 'Deployment') {
    const replicaSets = await controlledOrOrphaned<ApiObject>(view, 'ReplicaSet', namespace, uid);
    const owned = replicaSets.filter((rs) => typeof rs.metadata?.uid === 'string');
    const pods = (
      await Promise.all(
        owned.map((rs) => controlledOrOrphaned<ApiObject>(view, 'Pod', namespace, rs.metadata?.uid ?? '')),
      )
    ).flat();
    return { kind, deployment: workload, replicaSets, pods };
  }
  const [revisions, pods] = await Promise.all([
    controlledOrOrphaned<ApiObject>(view, 'ControllerRevision', namespace, uid),
    controlledOrOrphaned<ApiObject>(view, 'Pod', namespace, uid),
  ]);
  return kind === 'StatefulSet'
    ? { kind, statefulSet: workload, revisions, pods }
    : { kind, daemonSet: workload, revisions, pods };
}

function targetOf(read: TargetRead): ApiObject | null {
  const o =
    read.kind === 'Deployment' ? read.deployment : read.kind === 'StatefulSet' ? read.statefulSet : read.daemonSet;
  return isRecord(o) ? (o as ApiObject) : null;
}

/** fn over items, at most `limit` at once, results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
