// Upstream's server-side apply of the leader StatefulSet (field manager "lws", forced), made of the writes
// kube/actions.ts has: a create when there is no StatefulSet of that name, and otherwise, only when a field of the
// apply configuration differs from the observed StatefulSet, a strategic merge patch of exactly those fields:
//   metadata  labels (name, revision key) and annotations (replicas) merged key by key, the controller reference
//             merged by uid (ownerReferences' merge key), metadata.uid as the patch's precondition
//   spec      serviceName, replicas, podManagementPolicy, updateStrategy (type, rollingUpdate.maxUnavailable and
//             partition), persistentVolumeClaimRetentionPolicy when the LeaderWorkerSet sets one, and the pod
//             template replaced whole (`$patch: replace`): a field the template no longer has goes, as the
//             apply drops a field lws stops applying
// Not patched: spec.selector and spec.volumeClaimTemplates (immutable on a StatefulSet and on the LeaderWorkerSet
// alike; the apply merges them as they are). Where this is not the apply (kube/actions.ts has no apply action):
// - A field another manager set inside the template (kubectl rollout restart's restartedAt annotation, a webhook's
//   container) is kept by the apply and dropped by the replace; one in a field lws owns is overwritten by both.
// - No managedFields entry for "lws": the patch is an Update operation under fleetq's own manager name.
// - The template is compared as applied (every field the configuration sets is equal on the server, lists the
//   same length), so the server's defaults do not count as a difference; a template annotation lws sets (size,
//   exclusive topology, subgroup, subdomain policy) left on the server after the LeaderWorkerSet dropped it does.
import { isDeepStrictEqual } from 'node:util';
import type { PodTemplateSpec, StatefulSet } from '../../kube/api/objects.js';
import { controllerRefOf } from '../../kube/meta/controller-ref.js';
import {
  EXCLUSIVE_KEY_ANNOTATION,
  SIZE_ANNOTATION,
  SUBDOMAIN_POLICY_ANNOTATION,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_POLICY_TYPE_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
} from './types.js';

/** The leader pod template annotations only lws sets (a stale one is a difference). */
const LWS_TEMPLATE_ANNOTATIONS = [
  SIZE_ANNOTATION,
  EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_POLICY_TYPE_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBDOMAIN_POLICY_ANNOTATION,
] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The server's object carries every field `applied` sets, with equal values: maps key by key (a null or an empty map
 * applied matches an absent field), lists element by element and of the same length, scalars equal.
 */
export function isApplied(applied: unknown, server: unknown): boolean {
  if (applied === undefined || applied === null) return true;
  if (isObject(applied)) {
    if (Object.keys(applied).length === 0) return server === undefined || server === null || isObject(server);
    if (!isObject(server)) return false;
    return Object.entries(applied).every(([k, v]) => isApplied(v, server[k]));
  }
  if (Array.isArray(applied)) {
    if (applied.length === 0) return server === undefined || server === null || isDeepStrictEqual(server, []);
    return (
      Array.isArray(server) && server.length === applied.length && applied.every((v, i) => isApplied(v, server[i]))
    );
  }
  return applied === server;
}

/** The observed template still has a lws annotation the desired one no longer sets. */
function hasStaleAnnotation(desired: PodTemplateSpec, observed: PodTemplateSpec | undefined): boolean {
  const want = desired.metadata?.annotations ?? {};
  const have = observed?.metadata?.annotations ?? {};
  return LWS_TEMPLATE_ANNOTATIONS.some((k) => k in have && !(k in want));
}

/** The controller reference is there, equal, under its uid. */
function hasOwnerReference(observed: StatefulSet, desired: StatefulSet): boolean {
  const want = controllerRefOf(desired);
  if (want === undefined) return true;
  const refs: unknown = observed.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return false;
  const have = (refs as unknown[]).find((r) => isObject(r) && r.uid === want.uid);
  return isApplied(want, have);
}

/** The spec fields the patch writes (the template apart). */
function scalarSpec(sts: StatefulSet): Record<string, unknown> {
  const spec = sts.spec;
  return {
    serviceName: spec?.serviceName,
    replicas: spec?.replicas,
    podManagementPolicy: spec?.podManagementPolicy,
    updateStrategy: {
      type: spec?.updateStrategy?.type,
      rollingUpdate: {
        maxUnavailable: spec?.updateStrategy?.rollingUpdate?.maxUnavailable,
        partition: spec?.updateStrategy?.rollingUpdate?.partition,
      },
    },
    ...(spec?.persistentVolumeClaimRetentionPolicy !== undefined && {
      persistentVolumeClaimRetentionPolicy: spec.persistentVolumeClaimRetentionPolicy,
    }),
  };
}

/** Whether applying `desired` would change the observed StatefulSet. */
export function leaderStatefulSetDiffers(observed: StatefulSet, desired: StatefulSet): boolean {
  const m = desired.metadata ?? {};
  return (
    !isApplied(m.labels, observed.metadata?.labels) ||
    !isApplied(m.annotations, observed.metadata?.annotations) ||
    !hasOwnerReference(observed, desired) ||
    !isApplied(scalarSpec(desired), observed.spec) ||
    !isApplied(desired.spec?.template, observed.spec?.template) ||
    hasStaleAnnotation(desired.spec!.template, observed.spec?.template)
  );
}

/**
 * The strategic merge patch that writes the apply configuration's fields onto the observed StatefulSet, or null
 * when they are all there already.
 */
export function leaderStatefulSetPatch(observed: StatefulSet, desired: StatefulSet): Record<string, unknown> | null {
  if (!leaderStatefulSetDiffers(observed, desired)) return null;
  const m = desired.metadata ?? {};
  return {
    metadata: {
      labels: m.labels,
      annotations: m.annotations,
      ownerReferences: m.ownerReferences,
      uid: observed.metadata?.uid ?? '',
    },
    spec: { ...scalarSpec(desired), template: { ...desired.spec?.template, $patch: 'replace' } },
  };
}
