// The ReplicaSet guard: a damage bound for any read-path bug (a list that stops after its first page, a stale
// cache, an observe that drops pods). Before a pass that creates pods writes anything, the runtime calls
// preflight(); it counts the pods the ReplicaSet controls by a fresh live read, apart from what observe saw,
// and refuses when the creates would take them past replicas + maxSurge:
//   - maxSurge is its owning Deployment's, resolved as upstream does against the Deployment's replicas
//     (ResolveFenceposts, rounding up; 0 for Recreate); 0 for a ReplicaSet without a Deployment owner.
//   - the count is of active pods (not being deleted, not Succeeded/Failed: upstream's FilterActivePods) with a
//     controller reference to the ReplicaSet's uid and matching its selector, over every page. The selector goes
//     to the server as the list's labelSelector: a controlled pod that no longer matches is released by the pass,
//     not counted, as upstream's claim does; and one check no longer pages through a whole namespace (a bench
//     of 100 ReplicaSets x 50 pods in one namespace spent 498 of its 6,925 requests on these namespace lists). Failed pods are replaced, not counted, by
//     upstream too, so counting them would refuse a legitimate replacement.
// A refusal is a retryable GuardRefusedError: nothing is written, the runtime logs it at error with the counts
// and retries with backoff; the next pass observes again. Passes without creates are not checked (no reads).
import type { Pod, ReplicaSet } from '../../kube/api/objects.js';
import { GuardRefusedError } from '../../kube/errors.js';
import type { ReconcileKey } from '../../kube/key.js';
import { controllerRefOf, isControlledBy } from '../../kube/meta/controller-ref.js';
import { NOTHING, labelsOf, selectorOrNothing } from '../../kube/meta/label-selector.js';
import type { ClusterView } from '../../kube/view.js';
import type { PlanResult } from '../controller.js';
import { maxSurge, type DeploymentRollout } from '../common/deployment-fenceposts.js';
import { isPodActive } from '../pod-utils/pod-state.js';
import { desiredReplicas } from './manage.js';
import type { ObservedReplicaSet } from './types.js';

/** The owning Deployment as the guard reads it: its identity and what maxSurge is computed from. */
type Deployment = DeploymentRollout & { readonly metadata: { readonly uid?: string } };

export type GuardCounts = {
  /** Active pods the ReplicaSet controls, by the fresh read. */
  readonly live: number;
  /** Pods this pass would create. */
  readonly creates: number;
  readonly replicas: number;
  readonly maxSurge: number;
  /** replicas + maxSurge. */
  readonly bound: number;
};

/** The owning Deployment's maxSurge (0 without one, or when the owner read is gone or another object). */
export function ownerMaxSurge(rs: ReplicaSet, owner: Deployment | null): number {
  const ref = controllerRefOf(rs);
  if (ref?.kind !== 'Deployment' || owner === null || owner.metadata.uid !== ref.uid) return 0;
  return maxSurge(owner);
}

/** Pure: the counts and whether they break the bound. */
export function guardCounts(rs: ReplicaSet, owner: Deployment | null, live: number, creates: number): GuardCounts {
  const replicas = desiredReplicas(rs);
  const surge = ownerMaxSurge(rs, owner);
  return { live, creates, replicas, maxSurge: surge, bound: replicas + surge };
}

export function breaksBound(c: GuardCounts): boolean {
  return c.live + c.creates > c.bound;
}

export async function preflightReplicaSet(
  view: ClusterView,
  key: ReconcileKey,
  observed: ObservedReplicaSet,
  result: PlanResult,
): Promise<void> {
  const creates = result.actions.filter((a) => a.type === 'create').length;
  const rs = observed.replicaSet;
  if (creates === 0 || rs === null) return;
  const uid = rs.metadata?.uid ?? '';
  const ref = controllerRefOf(rs);
  const [owner, live] = await Promise.all([
    ref?.kind === 'Deployment' ? view.get<Deployment>('Deployment', key.namespace, ref.name) : null,
    countActiveControlled(view, key.namespace, rs, uid),
  ]);
  const counts = guardCounts(rs, owner, live, creates);
  if (!breaksBound(counts)) return;
  throw new GuardRefusedError(
    `guard: ${counts.live} active pods + ${counts.creates} creates would pass replicas ${counts.replicas} + maxSurge ${counts.maxSurge}`,
    { ...counts, observedPods: observed.pods.length },
  );
}

/**
 * The fresh count: the view's own counter when it has one (read apart from list()), else a list. A selector
 * that selects everything, or none that can be read (missing or invalid), narrows nothing: every controlled
 * pod is counted.
 */
async function countActiveControlled(
  view: ClusterView,
  namespace: string,
  rs: ReplicaSet,
  uid: string,
): Promise<number> {
  const selector = selectorOrNothing(rs.spec?.selector);
  const labelSelector = selector.toString();
  const counted = (p: Pod): boolean => isPodActive(p) && (selector === NOTHING || selector.matches(labelsOf(p)));
  if (view.countControlled)
    return view.countControlled<Pod>('Pod', namespace, uid, counted, labelSelector ? { labelSelector } : {});
  const pods = await view.list<Pod>('Pod', namespace, labelSelector ? { labelSelector } : {});
  return pods.filter((p) => isControlledBy(p, uid) && counted(p)).length;
}
