// What a planner asks the writer to do. Every write names its precondition: updates carry
// metadata.resourceVersion, deletes the uid of the object the planner saw.
import type { KubernetesObject } from '@kubernetes/client-node';

export type ObjectRef = { readonly kind: string; readonly namespace: string; readonly name: string };

export type Action =
  | { readonly type: 'create'; readonly object: KubernetesObject; readonly reason: string }
  | { readonly type: 'update'; readonly object: KubernetesObject; readonly reason: string }
  | { readonly type: 'delete'; readonly target: ObjectRef; readonly uid: string; readonly reason: string }
  | { readonly type: 'updateStatus'; readonly object: KubernetesObject };

export type ActionType = Action['type'];

export function countByType(actions: readonly Action[]): Partial<Record<ActionType, number>> {
  const counts: Partial<Record<ActionType, number>> = {};
  for (const a of actions) counts[a.type] = (counts[a.type] ?? 0) + 1;
  return counts;
}

export function refOf(o: KubernetesObject): ObjectRef {
  return { kind: o.kind ?? '', namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' };
}
