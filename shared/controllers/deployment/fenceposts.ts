// How many replicas a Deployment may surge or lose, and how a scale change is shared among ReplicaSets
// (deployment_util.go ResolveFenceposts, MaxSurge, MaxUnavailable, NewRSNewReplicas, GetReplicaSetProportion).
import { TerminalError } from '../../kube/errors.js';
import { getNonNegativeInt32Annotation } from './revision.js';
import { replicaCount, specReplicas } from './replica-sets.js';
import { Annotation, Strategy, type Deployment, type IntOrString, type ReplicaSet } from './types.js';

export const desiredReplicas = (d: Deployment): number => d.spec.replicas ?? 1;
export const isRollingUpdate = (d: Deployment): boolean => d.spec.strategy?.type === Strategy.RollingUpdate;

/** intstr.GetScaledValueFromIntOrPercent: ints as they are, "N%" of total rounded up or down; else null. */
export function scaledValue(v: IntOrString | undefined, total: number, roundUp: boolean): number | null {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) return null;
  const digits = v.slice(0, -1);
  if (!/^[-+]?[0-9]+$/.test(digits)) return null;
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** ResolveFenceposts: surge rounds up, unavailable down; both 0 → unavailable 1. Invalid values count 0. */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  const unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === null || unavailable === null) return { surge: 0, unavailable: 0 };
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desiredReplicas(d)).surge;
}

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desiredReplicas(d) === 0) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  const { unavailable } = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desiredReplicas(d));
  return Math.min(unavailable, desiredReplicas(d));
}

/** NewRSNewReplicas: RollingUpdate grows the new ReplicaSet within replicas + maxSurge; Recreate goes straight to replicas. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly (ReplicaSet | null)[], newRS: ReplicaSet): number {
  switch (d.spec.strategy?.type) {
    case Strategy.RollingUpdate: {
      const surge = scaledValue(d.spec.strategy.rollingUpdate?.maxSurge, desiredReplicas(d), true);
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
