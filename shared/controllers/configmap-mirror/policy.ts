// Where the mirror may write. Whoever can create a ConfigMap chooses its targets with the annotation, and fleetq
// writes there with its own rights (a confused deputy), so the cluster's registry entry decides instead:
// mirror.allowedNamespaces (names, or prefixes ending in '*'). A target is refused when it is not a namespace
// name (it would reach a request path), a system namespace (whatever the list says), or not allowed.
import { isDnsLabel, isSystemNamespace } from '../../kube/names.js';

export type TargetRefusal = { readonly namespace: string; readonly reason: string };

export const Refusal = {
  NotAName: 'not a namespace name',
  System: 'system namespace',
  NotAllowed: 'not in mirror.allowedNamespaces',
} as const;

/** Pure: why the mirror may not write into `namespace`, or null when it may. */
export function refusalOf(namespace: string, allowed: readonly string[]): string | null {
  if (!isDnsLabel(namespace)) return Refusal.NotAName;
  if (isSystemNamespace(namespace)) return Refusal.System;
  const hit = allowed.some((p) => (p.endsWith('*') ? namespace.startsWith(p.slice(0, -1)) : namespace === p));
  return hit ? null : Refusal.NotAllowed;
}

/** The requested targets split into the ones the mirror may write and the refused ones (with why). */
export function screenTargets(
  requested: readonly string[],
  allowed: readonly string[],
): { readonly targets: string[]; readonly refused: TargetRefusal[] } {
  const targets: string[] = [];
  const refused: TargetRefusal[] = [];
  for (const namespace of requested) {
    const reason = refusalOf(namespace, allowed);
    if (reason === null) targets.push(namespace);
    else refused.push({ namespace: namespace.slice(0, 100), reason });
  }
  return { targets, refused };
}
