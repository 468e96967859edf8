// How many pods a Deployment may surge or lose (deployment_util.go ResolveFenceposts, MaxSurge, MaxUnavailable).
// The Deployment controller scales by them; the ReplicaSet guard bounds a Deployment's ReplicaSet by its owner's
// maxSurge. Typed by the fields they read, so any Deployment shape qualifies.
import { scaledValue, type IntOrString } from './int-or-percent.js';

export type DeploymentRollout = {
  readonly spec: {
    readonly replicas?: number;
    readonly strategy?: {
      readonly type?: string;
      readonly rollingUpdate?: { readonly maxSurge?: IntOrString; readonly maxUnavailable?: IntOrString };
    };
  };
};

export const desiredReplicas = (d: DeploymentRollout): number => d.spec.replicas ?? 1;
export const isRollingUpdate = (d: DeploymentRollout): boolean => d.spec.strategy?.type === 'RollingUpdate';

/**
 * ResolveFenceposts: surge rounds up, unavailable down (an absent value counts 0, as intstr.ValueOrDefault gives);
 * both 0 → unavailable 1. Invalid values count 0.
 */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  const unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === null || unavailable === null) return { surge: 0, unavailable: 0 };
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

export function maxSurge(d: DeploymentRollout): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desiredReplicas(d)).surge;
}

export function maxUnavailable(d: DeploymentRollout): number {
  if (!isRollingUpdate(d) || desiredReplicas(d) === 0) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  const { unavailable } = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, desiredReplicas(d));
  return Math.min(unavailable, desiredReplicas(d));
}
