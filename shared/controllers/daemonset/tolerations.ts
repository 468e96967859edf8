// The tolerations every daemon pod gets (util.AddOrUpdateDaemonPodTolerations), and how tolerations meet taints
// (component-helpers scheduling/corev1: ToleratesTaint, FindMatchingUntoleratedTaint).
//
// Not followed: the TaintTolerationComparisonOperators gate (alpha, off by default in 1.37) that adds Gt/Lt
// toleration operators; a toleration with another operator tolerates nothing, as with the gate off.
import type { PodSpec, Taint, Toleration } from '../../kube/api/objects.js';

export const TaintEffect = { NoSchedule: 'NoSchedule', PreferNoSchedule: 'PreferNoSchedule', NoExecute: 'NoExecute' };

/** The well-known node taints (core/v1 well_known_taints.go). */
export const NodeTaint = {
  NotReady: 'node.kubernetes.io/not-ready',
  Unreachable: 'node.kubernetes.io/unreachable',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
  Unschedulable: 'node.kubernetes.io/unschedulable',
  NetworkUnavailable: 'node.kubernetes.io/network-unavailable',
} as const;

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/** The defaults, in upstream's order; network-unavailable only for hostNetwork pods. */
export function defaultDaemonTolerations(hostNetwork: boolean): Toleration[] {
  return [
    exists(NodeTaint.NotReady, TaintEffect.NoExecute),
    exists(NodeTaint.Unreachable, TaintEffect.NoExecute),
    exists(NodeTaint.DiskPressure, TaintEffect.NoSchedule),
    exists(NodeTaint.MemoryPressure, TaintEffect.NoSchedule),
    exists(NodeTaint.PIDPressure, TaintEffect.NoSchedule),
    exists(NodeTaint.Unschedulable, TaintEffect.NoSchedule),
    ...(hostNetwork ? [exists(NodeTaint.NetworkUnavailable, TaintEffect.NoSchedule)] : []),
  ];
}

/**
 * AddOrUpdateDaemonPodTolerations on a copy of `spec.tolerations`: each default replaces in place every
 * toleration that matches it (same key, operator, value and effect: tolerationSeconds aside), or is appended.
 */
export function daemonPodTolerations(spec: Pick<PodSpec, 'tolerations' | 'hostNetwork'> | undefined): Toleration[] {
  let tolerations: Toleration[] = (spec?.tolerations ?? []).map((t) => ({ ...t }));
  for (const wanted of defaultDaemonTolerations(spec?.hostNetwork === true)) {
    // One matching toleration equal to the default already (tolerationSeconds included): nothing changes.
    if (tolerations.some((old) => isSameToleration(old, wanted) && old.tolerationSeconds === undefined)) continue;
    let updated = false;
    tolerations = tolerations.map((old) => {
      if (!isSameToleration(old, wanted)) return old;
      updated = true;
      return { ...wanted };
    });
    if (!updated) tolerations.push({ ...wanted });
  }
  return tolerations;
}

/** Toleration.MatchToleration: key, operator, value and effect equal (empty and absent alike). */
function isSameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '')
  );
}

/** Toleration.ToleratesTaint (comparison operators off). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if ((t.effect ?? '') !== '' && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** FindMatchingUntoleratedTaint: the first taint passing `filter` that no toleration tolerates. */
export function untoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  filter: (t: Taint) => boolean,
): Taint | undefined {
  return taints.filter(filter).find((taint) => !tolerations.some((t) => toleratesTaint(t, taint)));
}
