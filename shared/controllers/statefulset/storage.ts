// Claims from volumeClaimTemplates (getPersistentVolumeClaims, createPersistentVolumeClaims, PodClaimIsStale) and
// the persistentVolumeClaimRetentionPolicy carried by their ownerReferences (isClaimOwnerUpToDate,
// updateClaimOwnerRefForSetAndPod):
//   whenScaled Retain, whenDeleted Retain   no reference to the set or the pod
//   whenScaled Retain, whenDeleted Delete   the set as controller
//   whenScaled Delete, whenDeleted Retain   the pod as controller once the pod is scaled down (out of range)
//   whenScaled Delete, whenDeleted Delete   the set while in range, the pod once scaled down
// A claim with a stale reference (same name, other uid) or another controller is left alone.
import type { OwnerReference, PersistentVolumeClaim, Pod, StatefulSet } from '../../kube/api/objects.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { claimName, isInOrdinalRange, ordinalOf } from './identity.js';
import { Retention, STS_API_VERSION, STS_KIND } from './types.js';

/** getPersistentVolumeClaims: the claims of the pod's ordinal, labelled with the selector's matchLabels. */
export function podClaims(set: StatefulSet, pod: Pod): PersistentVolumeClaim[] {
  const ordinal = ordinalOf(pod);
  const matchLabels = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => {
    const claim = structuredClone(t);
    return {
      ...claim,
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        ...claim.metadata,
        name: claimName(set, t, ordinal),
        namespace: set.metadata?.namespace,
        labels: { ...claim.metadata?.labels, ...matchLabels },
      },
    };
  });
}

export type Policy = { readonly whenScaled: string; readonly whenDeleted: string };

export function retentionPolicy(set: StatefulSet): Policy {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenScaled: p?.whenScaled ?? Retention.Retain, whenDeleted: p?.whenDeleted ?? Retention.Retain };
}

type Owner = { readonly kind: string; readonly apiVersion: string; readonly name: string; readonly uid: string };
const setOwner = (s: StatefulSet): Owner => ({
  kind: STS_KIND,
  apiVersion: STS_API_VERSION,
  name: s.metadata?.name ?? '',
  uid: s.metadata?.uid ?? '',
});
const podOwner = (p: Pod): Owner => ({
  kind: 'Pod',
  apiVersion: 'v1',
  name: p.metadata?.name ?? '',
  uid: p.metadata?.uid ?? '',
});
const matchesRef = (r: OwnerReference, o: Owner) =>
  r.apiVersion === o.apiVersion && r.kind === o.kind && r.name === o.name;
const refsOf = (c: PersistentVolumeClaim) => c.metadata?.ownerReferences ?? [];
const hasOwnerRef = (c: PersistentVolumeClaim, o: Owner) => refsOf(c).some((r) => r.uid === o.uid);

/** hasStaleOwnerRef: the first reference naming the owner has another uid. */
export function hasStaleOwnerRef(claim: PersistentVolumeClaim, o: Owner): boolean {
  const ref = refsOf(claim).find((r) => matchesRef(r, o));
  return ref !== undefined && ref.uid !== o.uid;
}

export const podOwnerOf = podOwner;

/** hasUnexpectedController (never under Retain/Retain). */
export function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const p = retentionPolicy(set);
  if (p.whenScaled === Retention.Retain && p.whenDeleted === Retention.Retain) return false;
  const s = setOwner(set);
  const po = podOwner(pod);
  for (const r of refsOf(claim)) {
    if (matchesRef(r, s)) {
      if (r.uid !== s.uid) return true;
      continue;
    }
    if (matchesRef(r, po)) {
      if (r.uid !== po.uid) return true;
      continue;
    }
    if (r.controller) return true;
  }
  return false;
}

/** The references the policy wants on the set and the pod: which of them should be controllers of the claim. */
function wanted(set: StatefulSet, pod: Pod): { set: boolean; pod: boolean } {
  const p = retentionPolicy(set);
  const scaledDown = !isInOrdinalRange(set, pod);
  const known = (v: string) => v === Retention.Retain || v === Retention.Delete;
  if (!known(p.whenScaled) || !known(p.whenDeleted)) return { set: false, pod: false }; // unknown: Retain
  const scaledDelete = p.whenScaled === Retention.Delete;
  const deletedDelete = p.whenDeleted === Retention.Delete;
  if (!scaledDelete) return { set: deletedDelete, pod: false };
  return { set: deletedDelete && !scaledDown, pod: scaledDown };
}

/** isClaimOwnerUpToDate. */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const s = setOwner(set);
  const po = podOwner(pod);
  if (hasStaleOwnerRef(claim, s) || hasStaleOwnerRef(claim, po)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, s) || hasOwnerRef(claim, po));
  if (refsOf(claim).some((r) => (r.uid === s.uid || r.uid === po.uid) && !r.controller)) return false;
  const w = wanted(set, pod);
  return hasOwnerRef(claim, s) === w.set && hasOwnerRef(claim, po) === w.pod;
}

/** updateClaimOwnerRefForSetAndPod: the claim's references with ours scrubbed and the policy's added. */
export function claimOwnerRefs(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): OwnerReference[] {
  const s = setOwner(set);
  const po = podOwner(pod);
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = refsOf(claim).filter((r) => !matchesRef(r, s) && !matchesRef(r, po));
  if (unexpected) return refs;
  const w = wanted(set, pod);
  const add = (o: Owner) => {
    if (!refs.some((r) => r.uid === o.uid)) refs.push(newControllerRef(o));
  };
  if (w.pod) add(po);
  if (w.set) add(s);
  return refs;
}
