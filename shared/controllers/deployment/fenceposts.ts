// How a scale change is shared among a Deployment's ReplicaSets (deployment_util.go NewRSNewReplicas,
// IsSaturated, GetReplicaSetProportion). maxSurge and maxUnavailable (ResolveFenceposts) are in
// common/deployment-fenceposts.ts, which the ReplicaSet guard reads too.
import { TerminalError } from '../../kube/errors.js';
import { desiredReplicas, maxSurge } from '../common/deployment-fenceposts.js';
import { scaledValue } from '../common/int-or-percent.js';
import { getNonNegativeInt32Annotation } from './revision.js';
import { replicaCount, specReplicas } from './replica-sets.js';
import { Annotation, Strategy, type Deployment, type ReplicaSet } from './types.js';

/** NewRSNewReplicas: RollingUpdate grows the new ReplicaSet within replicas + maxSurge; Recreate goes straight to replicas. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly (ReplicaSet | null)[], newRS: ReplicaSet): number {
  switch (d.spec.strategy?.type) {
    case Strategy.RollingUpdate: {
      const surge = scaledValue(d.spec.strategy.rollingUpdate?.maxSurge ?? 0, desiredReplicas(d), true);
      if (surge === null)
        throw new TerminalError('Invalid', `invalid maxSurge ${String(d.spec.strategy.rollingUpdate?.maxSurge)}`);
      const current = replicaCount(allRSs);
      const maxTotal = desiredReplicas(d) + surge;
      if (current >= maxTotal) return specReplicas(newRS);
      const scaleUp = Math.min(maxTotal - current, desiredReplicas(d) - specReplicas(newRS));
      return specReplicas(newRS) + scaleUp;
    }
    case Strategy.Recreate:
      return desiredReplicas(d);
    default:
      throw new TerminalError('Invalid', `deployment type ${String(d.spec.strategy?.type)} isn't supported`);
  }
}

/** IsSaturated: the new ReplicaSet has all replicas, wanted for this size, and all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | null): boolean {
  if (rs === null) return false;
  const raw = rs.metadata.annotations?.[Annotation.DesiredReplicas] ?? '';
  if (!/^[-+]?[0-9]+$/.test(raw)) return false;
  const replicas = desiredReplicas(d);
  return specReplicas(rs) === replicas && Number(raw) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** GetReplicaSetProportion: this ReplicaSet's share of toAdd, bounded by what is left to add. */
export function replicaSetProportion(d: Deployment, rs: ReplicaSet, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (desiredReplicas(d) === 0) return -specReplicas(rs);
  const maxReplicas = desiredReplicas(d) + maxSurge(d);
  let before = getNonNegativeInt32Annotation(rs, Annotation.MaxReplicas) ?? 0;
  if (before === 0) {
    before = d.status?.replicas ?? 0;
    if (before === 0) return 0;
  }
  // int32 product as Go computes it, then float division and math.Round (half away from zero).
  const size = Math.imul(specReplicas(rs), maxReplicas) / before;
  return roundHalfAwayFromZero(size) - specReplicas(rs);
}

export function roundHalfAwayFromZero(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
