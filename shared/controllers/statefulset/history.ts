// ControllerRevision history (stateful_set_control.go getStatefulSetRevisions and truncateHistory,
// stateful_set_utils.go getPatch/newRevision/ApplyRevision/nextRevision, over common/controller-history.ts).
// A revision's data is {"spec":{"template":{…,"$patch":"replace"}}} as Go marshals it; its hash is
// history.HashControllerRevision: FNV-1 (not 1a) 32 over those bytes and the decimal collisionCount (always given
// by the StatefulSet controller, 0 included), safe-encoded; the name is `<set>-<hash>` (the set's name cut to 223
// characters), with the hash in the label controller.kubernetes.io/hash (pods carry the revision's name in
// controller-revision-hash).
import type { ControllerRevision, PodTemplateSpec, StatefulSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import {
  controllerRevisionName,
  hasEqualData,
  hashControllerRevision,
  newControllerRevision,
  revisionNumber,
  templatePatchData,
} from '../common/controller-history.js';
import { DEFAULT_REVISION_HISTORY_LIMIT, Reason, REVISION_HASH_LABEL, STS_API_VERSION, STS_KIND } from './types.js';

/** getPatch: the revision data of the set's template. */
export function revisionData(set: StatefulSet): string {
  return templatePatchData(set.spec?.template);
}

export const collisionCountOf = (set: StatefulSet): number => set.status?.collisionCount ?? 0;
export const nameOf = (cr: ControllerRevision): string => cr.metadata?.name ?? '';

/** The name of the set's revision with this hash (ControllerRevisionName). */
export function revisionName(set: StatefulSet, hash: string): string {
  return controllerRevisionName(set.metadata?.name ?? '', hash);
}

/** newRevision: the ControllerRevision of the set's template at `revision`. */
export function newRevision(set: StatefulSet, revision: number): ControllerRevision {
  const data = revisionData(set);
  const hash = hashControllerRevision(data, collisionCountOf(set));
  return newControllerRevision({
    owner: {
      apiVersion: STS_API_VERSION,
      kind: STS_KIND,
      name: set.metadata?.name ?? '',
      uid: set.metadata?.uid ?? '',
    },
    namespace: set.metadata?.namespace,
    name: revisionName(set, hash),
    labels: { ...set.spec?.template?.metadata?.labels, [REVISION_HASH_LABEL]: hash },
    annotations: { ...set.metadata?.annotations },
    data,
    revision,
  });
}

/** EqualRevision, as the data's bytes (the hash labels are safe-encoded, never parsed as integers). */
export const equalData = hasEqualData;

/** ApplyRevision: the pod template a revision restores. */
export function templateOf(cr: ControllerRevision): PodTemplateSpec {
  const spec = (cr.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec;
  const template = { ...spec?.template };
  delete template.$patch;
  return template as PodTemplateSpec;
}

export type Revisions =
  | { readonly kind: 'collision' }
  | {
      readonly kind: 'revisions';
      readonly current: ControllerRevision;
      readonly update: ControllerRevision;
      readonly actions: readonly Action[];
    };

/**
 * getStatefulSetRevisions over the sorted revisions it controls: the update revision is the latest when it holds
 * the template, an older equal one raised to the next number (rollback), the taken name's revision when its data
 * is the same, or a new one; a taken name with other data is a collision. The current revision is the one
 * status.currentRevision names, else the update revision.
 */
export function statefulSetRevisions(
  set: StatefulSet,
  sorted: readonly ControllerRevision[],
  nameTaken: ControllerRevision | null | undefined,
): Revisions {
  const data = revisionData(set);
  const next = sorted.length === 0 ? 1 : revisionNumber(sorted[sorted.length - 1]!) + 1;
  const equal = sorted.filter((cr) => equalData(cr, data));
  const actions: Action[] = [];
  let update: ControllerRevision;
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
  set: StatefulSet,
  sorted: readonly ControllerRevision[],
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
