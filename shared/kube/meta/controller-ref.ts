// Owner references as metav1 and ControllerRefManager use them: an object's controller reference (the one
// with controller=true), who it names, and a new one for an owner. Objects may come straight from a cluster
// (the forwarder maps any shape), so ownerReferences is read as untrusted data: anything but a list of objects
// has no controller, and a field of the wrong type reads as ''.

export type OwnerReference = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
};

/** The least an object must have for its owners to be read: every typed object and any JSON one qualify. */
export type WithOwners = { readonly metadata?: { readonly ownerReferences?: unknown } | undefined };

export type Owner = Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>;

/** metav1.GetControllerOf: the first owner reference with controller=true, if any. */
export function controllerRefOf(o: WithOwners | null | undefined): OwnerReference | undefined {
  const refs = o?.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = (refs as unknown[]).find(
    (r): r is Record<string, unknown> =>
      typeof r === 'object' && r !== null && (r as { controller?: unknown }).controller === true,
  );
  if (ref === undefined) return undefined;
  return {
    apiVersion: text(ref.apiVersion),
    kind: text(ref.kind),
    name: text(ref.name),
    uid: text(ref.uid),
    controller: true,
    ...(typeof ref.blockOwnerDeletion === 'boolean' && { blockOwnerDeletion: ref.blockOwnerDeletion }),
  };
}

/** The uid its controller reference names; undefined for an orphan (or a reference without a uid). */
export function controllerUidOf(o: WithOwners | null | undefined): string | undefined {
  const uid = controllerRefOf(o)?.uid;
  return uid === undefined || uid === '' ? undefined : uid;
}

/** metav1.IsControlledBy: the controller reference names this uid. */
export function isControlledBy(o: WithOwners, ownerUid: string): boolean {
  return controllerRefOf(o)?.uid === ownerUid;
}

/** Controlled by `ownerUid`, or by nothing (an orphan a selector may adopt): what claiming looks at. */
export function isControlledByOrOrphan(o: WithOwners, ownerUid: string): boolean {
  const ref = controllerRefOf(o);
  return ref === undefined || ref.uid === ownerUid;
}

/** metav1.NewControllerRef: controller=true and blockOwnerDeletion=true. */
export function newControllerRef(owner: Owner): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The API group an apiVersion names ('' for the core group's "v1"). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
