// Owner references the way metav1 and ControllerRefManager use them: the controller reference of an object,
// a new one for an owner, and a pod with ours added (adoption) or removed (release).
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';

export type Owner = { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };

/** metav1.GetControllerOf: the owner reference with controller=true, if any. */
export function controllerRefOf(o: KubernetesObject): V1OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** metav1.IsControlledBy: the controller reference names this uid. */
export function isControlledBy(o: KubernetesObject, ownerUid: string): boolean {
  return controllerRefOf(o)?.uid === ownerUid;
}

/** metav1.NewControllerRef: controller=true and blockOwnerDeletion=true. */
export function newControllerRef(owner: Owner): V1OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object with `ref` appended to its owner references (adoption). */
export function withOwnerRef<T extends KubernetesObject>(o: T, ref: V1OwnerReference): T {
  const refs = (o.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  return { ...o, metadata: { ...o.metadata, ownerReferences: [...refs, ref] } };
}

/** The object without any owner reference to `ownerUid` (release). */
export function withoutOwnerRef<T extends KubernetesObject>(o: T, ownerUid: string): T {
  const refs = (o.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ownerUid);
  return { ...o, metadata: { ...o.metadata, ownerReferences: refs } };
}
