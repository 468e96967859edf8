// RollingUpdate once the replicas are in place (updateStatefulSetAfterInvariantEstablished; MaxUnavailableStatefulSet
// is beta and on by default in 1.37, pkg/features/kube_features.go at v1.37.2). From the highest ordinal down to
// the partition, outdated pods are deleted (the core loop recreates them at the update revision), while the
// replicas' unavailable pods stay within maxUnavailable: intstr of spec.replicas rounded down, at least 1.
// Parallel first deletes outdated pods that are unavailable anyway, then spends the rest of the budget.
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import { scaledValue, type IntOrString } from '../common/int-or-percent.js';
import { isAvailable, isTerminating, isUnavailable } from './status.js';
import { replicasOf, revisionOfPod } from './identity.js';
import { PodManagement } from './types.js';

/** getStatefulSetMaxUnavailable: GetScaledValueFromIntOrPercent(value ?? 1, replicas, roundUp=false), >= 1. */
export function maxUnavailableOf(set: StatefulSet): number {
  const value = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  const n = scaledValue(value as IntOrString, replicasOf(set), false);
  if (n === null) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.max(n, 1);
}

export const partitionOf = (set: StatefulSet): number => set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;

/**
 * The pods to delete for the update, given the replica slots in ordinal order (a planned pod stands in for an
 * empty slot). Slots are indexed from 0: the partition counts slots, as upstream's updateMin does.
 */
export function rollingDeletes(
  set: StatefulSet,
  replicas: readonly Pod[],
  updateRevision: string,
  minReadySeconds: number,
  now: Date,
): Pod[] {
  const updateMin = partitionOf(set);
  const maxUnavailable = maxUnavailableOf(set);
  const parallel = set.spec?.podManagementPolicy === PodManagement.Parallel;
  const outdated = (p: Pod) => revisionOfPod(p) !== updateRevision;
  let unavailable = 0;
  let unavailableNeedingUpdate = 0;
  for (const pod of replicas) {
    if (!isUnavailable(pod, minReadySeconds, now)) continue;
    unavailable++;
    if (parallel && outdated(pod) && !isTerminating(pod)) unavailableNeedingUpdate++;
  }
  if (unavailable >= maxUnavailable && unavailableNeedingUpdate === 0) return [];

  const deletes: Pod[] = [];
  if (parallel) {
    for (let t = replicas.length - 1; t >= updateMin; t--) {
      const pod = replicas[t]!;
      if (outdated(pod) && !isAvailable(pod, minReadySeconds, now) && !isTerminating(pod)) deletes.push(pod);
    }
    let budget = maxUnavailable - unavailable;
    for (let t = replicas.length - 1; t >= updateMin && budget > 0; t--) {
      const pod = replicas[t]!;
      if (outdated(pod) && !isUnavailable(pod, minReadySeconds, now)) {
        deletes.push(pod);
        budget--;
      }
    }
    return deletes;
  }
  const toDelete = maxUnavailable - unavailable;
  for (let t = replicas.length - 1; t >= updateMin && deletes.length < toDelete; t--) {
    const pod = replicas[t]!;
    if (outdated(pod) && !isTerminating(pod)) deletes.push(pod);
  }
  return deletes;
}
