// metav1.LabelSelector evaluated in memory, with the semantics of LabelSelectorAsSelector: matchLabels are
// equalities, matchExpressions In / NotIn / Exists / DoesNotExist (NotIn and DoesNotExist also match pods
// without the key); an empty selector matches everything, a missing one nothing. An invalid selector throws.
import type { V1LabelSelector } from '@kubernetes/client-node';
import { TerminalError } from '../../kube/errors.js';

export type Labels = Readonly<Record<string, string>> | undefined;
export type LabelMatcher = (labels: Labels) => boolean;

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

export function compileSelector(selector: V1LabelSelector | undefined | null): LabelMatcher {
  if (!selector) return () => false;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push((l) => l[key] === value);
  }
  for (const e of selector.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (values.length === 0) throw invalid(e.key, 'In needs values');
        requirements.push((l) => Object.hasOwn(l, e.key) && values.includes(l[e.key] ?? ''));
        break;
      case 'NotIn':
        if (values.length === 0) throw invalid(e.key, 'NotIn needs values');
        requirements.push((l) => !Object.hasOwn(l, e.key) || !values.includes(l[e.key] ?? ''));
        break;
      case 'Exists':
        if (values.length > 0) throw invalid(e.key, 'Exists takes no values');
        requirements.push((l) => Object.hasOwn(l, e.key));
        break;
      case 'DoesNotExist':
        if (values.length > 0) throw invalid(e.key, 'DoesNotExist takes no values');
        requirements.push((l) => !Object.hasOwn(l, e.key));
        break;
      default:
        throw invalid(e.key, `unknown operator ${e.operator}`);
    }
  }
  return (labels) => {
    const l = labels ?? {};
    return requirements.every((r) => r(l));
  };
}

/** Every label of `subset` is on `labels` with the same value (labels.Set(subset).AsSelector().Matches). */
export function hasAllLabels(labels: Labels, subset: Labels): boolean {
  return Object.entries(subset ?? {}).every(([k, v]) => labels?.[k] === v);
}

function invalid(key: string, why: string): TerminalError {
  return new TerminalError('Invalid', `invalid label selector requirement on ${key}: ${why}`);
}
