// fleetq's opt-in policy for rollouts over bad nodes (beyond upstream). Upstream counts a daemon pod
// on a NotReady or unreachable node as unavailable, so one such node can use up maxUnavailable (or maxSurge) and
// stall the rollout. A DaemonSet annotated
//   fleetq.dev/daemonset-unhealthy-nodes: skip
//   fleetq.dev/daemonset-unhealthy-node-threshold: 2m      (optional; default 60s; Go duration: h, m, s, ms)
// treats a node as unhealthy when any of these holds, and then (a) its pod does not count against maxUnavailable
// or maxSurge, (b) it is updated only after every healthy node is updated and available, with its own budget,
// and (c) the nodes deferred are named in the DaemonSet condition UnhealthyNodesDeferred and an Event.
//   - condition Ready False or Unknown since longer than the threshold (lastTransitionTime);
//   - taint node.kubernetes.io/unreachable or node.kubernetes.io/not-ready (the node lifecycle controller's);
//   - spec.unschedulable (cordoned);
//   - a KEP-5683 node lifecycle condition True: DrainInProgress, MaintenanceInProgress.
// Without the annotation (or with any other value, or an invalid threshold) nothing changes: upstream's behaviour.
import type { DaemonSet, Node } from '../../kube/api/objects.js';
import { timeMs } from '../common/wire-time.js';
import { NodeTaint } from './tolerations.js';

export const UNHEALTHY_NODES_ANNOTATION = 'fleetq.dev/daemonset-unhealthy-nodes';
export const UNHEALTHY_THRESHOLD_ANNOTATION = 'fleetq.dev/daemonset-unhealthy-node-threshold';
export const UNHEALTHY_NODES_SKIP = 'skip';
export const DEFAULT_UNHEALTHY_THRESHOLD_MS = 60_000;
/** The DaemonSet condition type and the Event reason that report deferred nodes. */
export const UNHEALTHY_CONDITION = 'UnhealthyNodesDeferred';
/** KEP-5683 node lifecycle conditions that mark a node as being taken out of service. */
export const LIFECYCLE_CONDITIONS: readonly string[] = ['DrainInProgress', 'MaintenanceInProgress'];
/** At most this many node names in the condition's and the Event's message. */
export const MAX_NAMED_NODES = 10;

export type UnhealthyPolicy = { readonly thresholdMs: number };

/** The policy a DaemonSet opted into, or null (upstream's behaviour). Never throws on bad data. */
export function unhealthyPolicyOf(ds: Pick<DaemonSet, 'metadata'> | undefined): UnhealthyPolicy | null {
  const annotations = ds?.metadata?.annotations ?? {};
  if (annotations[UNHEALTHY_NODES_ANNOTATION] !== UNHEALTHY_NODES_SKIP) return null;
  const raw = annotations[UNHEALTHY_THRESHOLD_ANNOTATION];
  if (raw === undefined) return { thresholdMs: DEFAULT_UNHEALTHY_THRESHOLD_MS };
  const thresholdMs = parseDurationMs(raw);
  return thresholdMs === null ? null : { thresholdMs };
}

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/** A non-negative Go duration made of h, m, s, ms parts ("90s", "1m30s", "0"); null when it is not one. */
export function parseDurationMs(raw: string): number | null {
  if (raw === '0') return 0;
  const parts = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s))+$/.test(raw) ? raw.match(/\d+(?:\.\d+)?(?:h|ms|m|s)/g) : null;
  if (parts === null) return null;
  let total = 0;
  for (const part of parts) {
    const [, value, unit] = /^(\d+(?:\.\d+)?)(h|ms|m|s)$/.exec(part)!;
    total += Number(value) * UNIT_MS[unit!]!;
  }
  return Number.isFinite(total) ? Math.round(total) : null;
}

export type NodeHealth =
  | { readonly unhealthy: true; readonly why: string }
  | {
      readonly unhealthy: false;
      /** ms from now until it turns unhealthy (Ready not True, threshold pending) */ readonly inMs?: number;
    };

/** Whether a node is unhealthy under the policy at `now`, and why. */
export function nodeHealth(node: Node, policy: UnhealthyPolicy, now: Date): NodeHealth {
  const taint = (node.spec?.taints ?? []).find((t) => t.key === NodeTaint.Unreachable || t.key === NodeTaint.NotReady);
  if (taint !== undefined) return { unhealthy: true, why: `taint ${taint.key}` };
  if (node.spec?.unschedulable === true) return { unhealthy: true, why: 'cordoned' };
  const conditions = node.status?.conditions ?? [];
  const lifecycle = conditions.find((c) => LIFECYCLE_CONDITIONS.includes(c.type) && c.status === 'True');
  if (lifecycle !== undefined) return { unhealthy: true, why: lifecycle.type };
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready === undefined || ready.status === 'True') return { unhealthy: false };
  const since = timeMs(ready.lastTransitionTime) ?? 0;
  const left = since + policy.thresholdMs - now.getTime();
  if (left <= 0) return { unhealthy: true, why: `Ready ${ready.status ?? 'Unknown'}` };
  return { unhealthy: false, inMs: left };
}

export type Deferred = { readonly node: string; readonly why: string };

/** The condition's and the Event's message: the deferred nodes, sorted, the first MAX_NAMED_NODES named. */
export function deferredMessage(deferred: readonly Deferred[]): string {
  const sorted = [...deferred].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const named = sorted.slice(0, MAX_NAMED_NODES).map((d) => `${d.node} (${d.why})`);
  const more = sorted.length > MAX_NAMED_NODES ? `, and ${sorted.length - MAX_NAMED_NODES} more` : '';
  return `update deferred on ${sorted.length} unhealthy node(s): ${named.join(', ')}${more}`;
}
