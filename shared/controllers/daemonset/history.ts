// ControllerRevision history (update.go: constructHistory, snapshot, dedupCurHistories, cleanupHistory, Match,
// getPatch). A revision's data is the patch {"spec":{"template":{…,"$patch":"replace"}}} of the DaemonSet
// (common/controller-history.ts); it is named `<ds>-<hash>` where hash is controller.ComputeHash(template,
// collisionCount), the same FNV hash as a Deployment's pod-template-hash (common/pod-template-hash.ts; not
// history.HashControllerRevision, which the StatefulSet controller uses). A revision matches the DaemonSet when its
// data equals the patch.
//
// Upstream makes these writes first in a sync and stops on an error; the planner puts them first in the
// pass's actions (the writer sends creates first, alone in the first slow-start batch).
import type { ControllerRevision, DaemonSet, Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import {
  hasEqualData,
  newControllerRevision,
  revisionNumber,
  templatePatchData,
} from '../common/controller-history.js';
import { computeHash } from '../common/pod-template-hash.js';
import { jsonCopy } from '../common/json-copy.js';
import { DS_API_VERSION, DS_KIND, FAILED_POD_BACKOFF_ANNOTATION, Reason, REVISION_HASH_LABEL } from './types.js';

export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** getPatch: the revision data of the DaemonSet's current template. */
export function revisionData(ds: DaemonSet): string {
  return templatePatchData(ds.spec?.template);
}

/** Match: the revision's data is the DaemonSet's patch (compared as Go's marshalling of both). */
export function matchesRevision(ds: DaemonSet, cr: ControllerRevision, data = revisionData(ds)): boolean {
  return hasEqualData(cr, data);
}

export function templateHash(ds: DaemonSet): string {
  return computeHash(ds.spec?.template ?? {}, ds.status?.collisionCount);
}

export function revisionName(ds: DaemonSet, hash = templateHash(ds)): string {
  return `${ds.metadata?.name ?? ''}-${hash}`;
}

/** snapshot: the ControllerRevision of the current template at `revision`. */
export function snapshot(ds: DaemonSet, revision: number, hash = templateHash(ds)): ControllerRevision {
  const annotations = { ...ds.metadata?.annotations };
  delete annotations[FAILED_POD_BACKOFF_ANNOTATION]; // fleetq's own bookkeeping, not upstream's
  return newControllerRevision({
    owner: { apiVersion: DS_API_VERSION, kind: DS_KIND, name: ds.metadata?.name ?? '', uid: ds.metadata?.uid ?? '' },
    namespace: ds.metadata?.namespace,
    name: revisionName(ds, hash),
    labels: { ...ds.spec?.template?.metadata?.labels, [REVISION_HASH_LABEL]: hash },
    annotations,
    data: revisionData(ds),
    revision,
  });
}

export type History =
  | { readonly kind: 'collision' }
  | {
      readonly kind: 'current';
      /** The current revision's hash: the controller-revision-hash of its pods. */
      readonly hash: string;
      readonly old: readonly ControllerRevision[];
      readonly actions: readonly Action[];
    };

const crRef = (cr: ControllerRevision) => ({
  kind: 'ControllerRevision',
  namespace: cr.metadata?.namespace ?? '',
  name: cr.metadata?.name ?? '',
});

/**
 * constructHistory over the revisions it controls (after claiming): label the unlabelled, split current from
 * old, then create the current one (snapshot), or dedup several current ones and raise the kept one's revision.
 */
export function constructHistory(
  ds: DaemonSet,
  controlled: readonly ControllerRevision[],
  pods: readonly Pod[],
  nameTaken: ControllerRevision | null | undefined,
): History {
  const actions: Action[] = [];
  const data = revisionData(ds);
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (const found of controlled) {
    let cr = found;
    if (cr.metadata?.labels?.[REVISION_HASH_LABEL] === undefined) {
      cr = jsonCopy(cr);
      cr.metadata = {
        ...cr.metadata,
        labels: { ...cr.metadata?.labels, [REVISION_HASH_LABEL]: cr.metadata?.name ?? '' },
      };
      actions.push({
        type: 'update',
        object: { ...cr, kind: 'ControllerRevision', apiVersion: 'apps/v1' },
        reason: Reason.UpdateRevision,
      });
    }
    (matchesRevision(ds, cr, data) ? current : old).push(cr);
  }
  const next = Math.max(0, ...old.map(revisionNumber)) + 1;

  if (current.length === 0) {
    const hash = templateHash(ds);
    if (nameTaken) {
      // The name is another revision's: the same data is reused as is (snapshot's AlreadyExists path),
      // anything else is a hash collision (collisionCount is raised and the pass ends).
      if (!matchesRevision(ds, nameTaken, data)) return { kind: 'collision' };
      return { kind: 'current', hash: nameTaken.metadata?.labels?.[REVISION_HASH_LABEL] ?? '', old, actions };
    }
    actions.unshift({ type: 'create', object: snapshot(ds, next, hash), reason: Reason.CreateRevision });
    return { kind: 'current', hash, old, actions };
  }

  // dedupCurHistories: keep the highest revision (the last of equals), relabel pods, delete the others.
  let keep = current[0]!;
  for (const cr of current) if (revisionNumber(cr) >= revisionNumber(keep)) keep = cr;
  const hash = keep.metadata?.labels?.[REVISION_HASH_LABEL] ?? '';
  if (current.length > 1) {
    for (const pod of pods) {
      if (pod.metadata?.labels?.[REVISION_HASH_LABEL] === hash) continue;
      actions.push({
        type: 'patch',
        target: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' },
        patch: { metadata: { labels: { [REVISION_HASH_LABEL]: hash }, uid: pod.metadata?.uid } },
        reason: Reason.RelabelPod,
        ignore: ['NotFound'],
      });
    }
    for (const cr of current) {
      if (cr === keep) continue;
      actions.push({ type: 'delete', target: crRef(cr), uid: cr.metadata?.uid ?? '', reason: Reason.DeleteRevision });
    }
  }
  if (revisionNumber(keep) < next) {
    const raised = { ...jsonCopy(keep), kind: 'ControllerRevision', apiVersion: 'apps/v1', revision: next };
    actions.push({ type: 'update', object: raised, reason: Reason.UpdateRevision });
  }
  return { kind: 'current', hash, old, actions };
}

/**
 * cleanupHistory: delete the oldest old revisions beyond revisionHistoryLimit that no pod (terminal or being
 * deleted included) still carries.
 */
export function cleanupHistory(ds: DaemonSet, old: readonly ControllerRevision[], pods: readonly Pod[]): Action[] {
  const limit = ds.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  let toKill = old.length - limit;
  if (toKill <= 0) return [];
  const live = new Set(pods.map((p) => p.metadata?.labels?.[REVISION_HASH_LABEL] ?? '').filter((h) => h !== ''));
  const actions: Action[] = [];
  for (const cr of [...old].sort((a, b) => revisionNumber(a) - revisionNumber(b))) {
    if (toKill <= 0) break;
    if (live.has(cr.metadata?.labels?.[REVISION_HASH_LABEL] ?? '')) continue;
    actions.push({ type: 'delete', target: crRef(cr), uid: cr.metadata?.uid ?? '', reason: Reason.DeleteRevision });
    toKill--;
  }
  return actions;
}
