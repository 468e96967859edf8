// Which nodes a DaemonSet's pod should run on (nodeShouldRunDaemonPod, predicates): template.spec.nodeName, the
// required node affinity (nodeSelector and requiredDuringSchedulingIgnoredDuringExecution, as component-helpers'
// nodeaffinity.RequiredNodeAffinity matches them) and the node's taints against the pod's tolerations, the
// DaemonSet defaults included.
//   shouldRun             the node fits: a pod is created there if there is none
//   shouldContinueRunning a pod already there may stay: false when the node no longer fits its nodeName or
//                         affinity, or has an untolerated NoExecute taint (an untolerated NoSchedule taint
//                         alone keeps an existing pod)
import type { DaemonSet, Node, NodeSelectorRequirement, NodeSelectorTerm, Toleration } from '../../kube/api/objects.js';
import { daemonPodTolerations, TaintEffect, untoleratedTaint } from './tolerations.js';

export type Fit = { readonly shouldRun: boolean; readonly shouldContinueRunning: boolean };

/** What every node is checked against, computed once per pass. */
export type Placement = {
  readonly nodeName: string;
  readonly tolerations: readonly Toleration[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** undefined: no required node affinity; else its terms (an empty list matches no node). */
  readonly requiredTerms: readonly NodeSelectorTerm[] | undefined;
};

export function placementOf(ds: DaemonSet): Placement {
  const spec = ds.spec?.template?.spec;
  return {
    nodeName: spec?.nodeName ?? '',
    tolerations: daemonPodTolerations(spec),
    nodeSelector: spec?.nodeSelector ?? {},
    requiredTerms: spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
  };
}

export function nodeShouldRunDaemonPod(node: Node, p: Placement): Fit {
  const name = node.metadata?.name ?? '';
  if (p.nodeName !== '' && p.nodeName !== name) return { shouldRun: false, shouldContinueRunning: false };
  if (!matchesRequiredAffinity(node, p)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints ?? [];
  const blocking = (e: string | undefined) => e === TaintEffect.NoExecute || e === TaintEffect.NoSchedule;
  if (untoleratedTaint(taints, p.tolerations, (t) => blocking(t.effect)) === undefined) {
    return { shouldRun: true, shouldContinueRunning: true };
  }
  const evicting = untoleratedTaint(taints, p.tolerations, (t) => t.effect === TaintEffect.NoExecute);
  return { shouldRun: false, shouldContinueRunning: evicting === undefined };
}

/** RequiredNodeAffinity.Match: every nodeSelector label, and (when set) any one non-empty term. */
export function matchesRequiredAffinity(node: Node, p: Pick<Placement, 'nodeSelector' | 'requiredTerms'>): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(p.nodeSelector)) if (labels[k] !== v) return false;
  if (p.requiredTerms === undefined) return true;
  const name = node.metadata?.name ?? '';
  return p.requiredTerms.some((term) => matchesTerm(term, labels, name));
}

/** An empty term is skipped (matches nothing); a term with an invalid requirement matches nothing. */
function matchesTerm(term: NodeSelectorTerm, labels: Record<string, string>, nodeName: string): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (!exprs.every((r) => isValidLabelRequirement(r)) || !fields.every((r) => isValidFieldRequirement(r))) {
    return false;
  }
  if (!exprs.every((r) => matchesLabel(r, labels))) return false;
  // A node without a name has no fields to match against: the field part is not checked (as upstream).
  return nodeName === '' || fields.every((r) => matchesField(r, nodeName));
}

const INTEGER = /^[-+]?[0-9]+$/;

function isValidLabelRequirement(r: NodeSelectorRequirement): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0;
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    case 'Gt':
    case 'Lt':
      return values.length === 1 && INTEGER.test(values[0] ?? '');
    default:
      return false;
  }
}

function isValidFieldRequirement(r: NodeSelectorRequirement): boolean {
  return (r.operator === 'In' || r.operator === 'NotIn') && (r.values ?? []).length === 1;
}

function matchesLabel(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key] ?? '';
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(value);
    case 'NotIn':
      return !has || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || !INTEGER.test(value)) return false;
      const [a, b] = [BigInt(value), BigInt(values[0] ?? '0')];
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** Field selectors over a Node: only metadata.name is set (extractNodeFields); another key never equals. */
function matchesField(r: NodeSelectorRequirement, nodeName: string): boolean {
  const value = r.key === 'metadata.name' ? nodeName : undefined;
  const equal = value !== undefined && value === (r.values ?? [])[0];
  return r.operator === 'In' ? equal : !equal;
}
