// ControllerRevision history (stateful_set_control.go getStatefulSetRevisions and truncateHistory,
// stateful_set_utils.go getPatch/newRevision/ApplyRevision/nextRevision, history/controller_history.go).
// A revision's data is {"spec":{"template":{…,"$patch":"replace"}}} as Go marshals it (daemonset/go-json.ts);
// its hash is history.HashControllerRevision: FNV-1 (not 1a) 32 over those bytes and the decimal collisionCount
// (always given by the StatefulSet controller, 0 included), safe-encoded; the name is `<set>-<hash>` (the set's
// name cut to 223 characters), with the hash in the label controller.kubernetes.io/hash (pods carry the revision's
// name in controller-revision-hash).
import type { V1ControllerRevision, V1PodTemplateSpec, V1StatefulSet } from '@kubernetes/client-node';
import type { Action } from '../../kube/actions.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { safeEncodeString } from '../deployment/hash.js';
import { goJson } from '../daemonset/go-json.js';
import { DEFAULT_REVISION_HISTORY_LIMIT, Reason, REVISION_HASH_LABEL, STS_API_VERSION, STS_KIND } from './types.js';

export function revisionData(set: V1StatefulSet): string {
  const template = JSON.parse(JSON.stringify(set.spec?.template ?? {})) as Record<string, unknown>;
  return goJson({ spec: { template: { ...template, $patch: 'replace' } } });
}

export function fnv32(bytes: Iterable<number>): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

export function revisionHash(data: string, collisionCount: number): string {
  const bytes = [...Buffer.from(data, 'utf8'), ...Buffer.from(String(collisionCount), 'utf8')];
  return safeEncodeString(String(fnv32(bytes)));
}

export const collisionCountOf = (set: V1StatefulSet): number => set.status?.collisionCount ?? 0;
export const revisionNumber = (cr: V1ControllerRevision): number => Number(cr.revision ?? 0);
export const nameOf = (cr: V1ControllerRevision): string => cr.metadata?.name ?? '';

export function revisionName(set: V1StatefulSet, hash: string): string {
  return `${(set.metadata?.name ?? '').slice(0, 223)}-${hash}`;
}

/** newRevision: the ControllerRevision of the set's template at `revision`. */
export function newRevision(set: V1StatefulSet, revision: number): V1ControllerRevision {
  const data = revisionData(set);
  const hash = revisionHash(data, collisionCountOf(set));
  const annotations = { ...set.metadata?.annotations };
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(set, hash),
      namespace: set.metadata?.namespace,
      labels: { ...set.spec?.template?.metadata?.labels, [REVISION_HASH_LABEL]: hash },
      ...(Object.keys(annotations).length > 0 && { annotations }),
      ownerReferences: [
        newControllerRef({
          apiVersion: STS_API_VERSION,
          kind: STS_KIND,
          name: set.metadata?.name ?? '',
          uid: set.metadata?.uid ?? '',
        }),
      ],
    },
    data: JSON.parse(data) as object,
    revision,
  };
}

/** EqualRevision, as the data's bytes (the hash labels are safe-encoded, never parsed as integers). */
export const equalData = (cr: V1ControllerRevision, data: string): boolean =>
  cr.data !== undefined && goJson(cr.data) === data;

/** ApplyRevision: the pod template a revision restores. */
export function templateOf(cr: V1ControllerRevision): V1PodTemplateSpec {
  const spec = (cr.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec;
  const template = { ...spec?.template };
  delete template.$patch;
  return template as V1PodTemplateSpec;
}

/** history.SortControllerRevisions: by revision, then creation time, then name. */
export function sortRevisions(revisions: readonly V1ControllerRevision[]): V1ControllerRevision[] {
  const created = (cr: V1ControllerRevision) => new Date(cr.metadata?.creationTimestamp ?? 0).getTime();
  return [...revisions].sort(
    (a, b) =>
      revisionNumber(a) - revisionNumber(b) ||
      created(a) - created(b) ||
      (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0),
  );
}

export type Revisions =
  | { readonly kind: 'collision' }
  | {
      readonly kind: 'revisions';
      readonly current: V1ControllerRevision;
      readonly update: V1ControllerRevision;
      readonly actions: readonly Action[];
    };

/**
 * getStatefulSetRevisions over the sorted revisions it controls: the update revision is the latest when it holds
 * the template, an older equal one raised to the next number (rollback), the taken name's revision when its data
 * is the same, or a new one; a taken name with other data is a collision. The current revision is the one
 * status.currentRevision names, else the update revision.
 */
export function statefulSetRevisions(
  set: V1StatefulSet,
  sorted: readonly V1ControllerRevision[],
  nameTaken: V1ControllerRevision | null | undefined,
): Revisions {
  const data = revisionData(set);
  const next = sorted.length === 0 ? 1 : revisionNumber(sorted[sorted.length - 1]!) + 1;
  const equal = sorted.filter((cr) => equalData(cr, data));
  const actions: Action[] = [];
  let update: V1ControllerRevision;
  const latest = sorted[sorted.length - 1];
  const lastEqual = equal[equal.length - 1];
  if (lastEqual !== undefined && lastEqual === latest) {
    update = latest;
  } else if (lastEqual !== undefined) {
    update = { ...structuredClone(lastEqual), apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: next };
    actions.push({ type: 'update', object: update, reason: Reason.UpdateRevision });
  } else if (nameTaken) {
    if (!equalData(nameTaken, data)) return { kind: 'collision' };
    update = nameTaken;
  } else {
    update = newRevision(set, next);
    actions.push({ type: 'create', object: update, reason: Reason.CreateRevision });
  }
  const currentName = set.status?.currentRevision;
  const current = sorted.find((cr) => nameOf(cr) === currentName) ?? update;
  return { kind: 'revisions', current, update, actions };
}

/**
 * truncateHistory: of the revisions that are neither current, update, nor any pod's, delete the oldest beyond
 * revisionHistoryLimit.
 */
export function truncateHistory(
  set: V1StatefulSet,
  sorted: readonly V1ControllerRevision[],
  live: ReadonlySet<string>,
): Action[] {
  const history = sorted.filter((cr) => !live.has(nameOf(cr)));
  const limit = set.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  if (limit < 0 || history.length <= limit) return [];
  return history.slice(0, history.length - limit).map((cr) => ({
    type: 'delete',
    target: { kind: 'ControllerRevision', namespace: cr.metadata?.namespace ?? '', name: nameOf(cr) },
    uid: cr.metadata?.uid ?? '',
    reason: Reason.DeleteRevision,
  }));
}
