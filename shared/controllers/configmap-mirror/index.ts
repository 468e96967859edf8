// The example ConfigMap mirror, bound to the clusters' mirror policies: `policyOf(cluster)` gives the namespaces
// it may write into (mirror.allowedNamespaces of the registry entry); none when the cluster has no policy.
import type { MirrorPolicy } from '../../kube/registry.js';
import type { Controller } from '../controller.js';
import { observeMirror } from './observe.js';
import { planMirror } from './plan.js';
import type { ObservedMirror } from './types.js';

export function configMapMirrorController(
  policyOf: (cluster: string) => MirrorPolicy | undefined,
): Controller<ObservedMirror> {
  return {
    kind: 'ConfigMap',
    observe: (view, key) => observeMirror(view, key, policyOf(key.cluster)?.allowedNamespaces ?? []),
    plan: planMirror,
  };
}

/** The mirror with no policy: it writes nowhere (what a cluster without mirror.allowedNamespaces gets). */
export const configMapMirror: Controller<ObservedMirror> = configMapMirrorController(() => undefined);
