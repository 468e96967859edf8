// A DaemonSet's new revision in one cluster, from the DaemonSet, its ControllerRevisions and its pods, with the
// DaemonSet controller's own helpers (shared/controllers/daemonset/history.ts):
// - the revision is the hash of the newest ControllerRevision whose data matches the current template (Match), as
//   its controller-revision-hash label gives it (a revision without the label: its name, as constructHistory
//   labels it); before one exists, the hash the controller will create it under (ComputeHash(template,
//   collisionCount)). Pods carry it in their controller-revision-hash label;
// - the previous revision is the newest of the other revisions (below the new one's revision number);
// - available: observedGeneration current, the revision exists, and updatedNumberScheduled =
//   desiredNumberScheduled = numberAvailable (kubectl rollout status's test: every node that should run the daemon
//   runs an updated pod, and the pod each node counts is available).
// Only revisions and pods the DaemonSet controls are read; the pods searched for failure signatures are its pods
// labelled controller-revision-hash = the revision.
import type { ControllerRevision, DaemonSet } from '../kube/api/objects.js';
import { revisionNumber, sortControllerRevisions } from '../controllers/common/controller-history.js';
import { matchesRevision, revisionData, templateHash } from '../controllers/daemonset/history.js';
import { REVISION_HASH_LABEL } from '../controllers/daemonset/types.js';
import {
  controlledBy,
  firstReason,
  generationReason,
  isBeingDeleted,
  podsOfRevision,
  type KindVerdict,
} from './health-verdict.js';
import { count, revisionLabelOf, text, withSections, type Json } from './health-untrusted.js';

export type DaemonSetRead = {
  /** The DaemonSet as read; null or undefined when it does not exist. */
  readonly daemonSet: unknown;
  /** The namespace's ControllerRevisions (those the DaemonSet controls are used). */
  readonly revisions: readonly unknown[];
  /** Its pods. */
  readonly pods: readonly unknown[];
};

export function daemonSetVerdict(target: Json, read: DaemonSetRead): KindVerdict {
  const ds = withSections<DaemonSet>(target);
  const uid = text(ds.metadata?.uid);
  const sorted = sortControllerRevisions(controlledBy(read.revisions, uid) as ControllerRevision[]);
  const data = revisionData(ds);
  const matching = sorted.filter((cr) => matchesRevision(ds, cr, data));
  const newest = matching[matching.length - 1];
  const revision = newest === undefined ? templateHashOf(ds) : hashOf(newest);
  const notAvailable = firstReason(
    () => (isBeingDeleted(target) ? 'DaemonSet is being deleted' : ''),
    () => generationReason(target),
    () => (newest === undefined ? `no ControllerRevision of revision ${revision} yet` : ''),
    () => statusReason(ds),
  );
  return {
    revision,
    previousRevision: previousRevision(sorted, newest, revision),
    notAvailable,
    revisionPods: podsOfRevision(read.pods, uid, REVISION_HASH_LABEL, revision),
  };
}

/** The hash pods of this revision carry (a label too long to be one throws: see revisionLabelOf). */
function hashOf(cr: ControllerRevision): string {
  return revisionLabelOf(cr, REVISION_HASH_LABEL) || text(cr.metadata?.name);
}

/** hashOf for an older revision: one with a malformed label is skipped, not the reading's failure. */
function olderHashOf(cr: ControllerRevision): string {
  try {
    return hashOf(cr);
  } catch {
    return '';
  }
}

/** templateHash with a collisionCount that is a number (absent and 0 hash differently, as in Go: nil vs 0). */
function templateHashOf(ds: DaemonSet): string {
  const collisionCount = ds.status?.collisionCount;
  return templateHash({
    ...ds,
    status: { ...ds.status, collisionCount: typeof collisionCount === 'number' ? collisionCount : undefined },
  } as DaemonSet);
}

function previousRevision(
  sorted: readonly ControllerRevision[],
  newest: ControllerRevision | undefined,
  revision: string,
): string {
  const older = sorted.filter((cr) => {
    const hash = olderHashOf(cr);
    return hash !== '' && hash !== revision && (newest === undefined || revisionNumber(cr) < revisionNumber(newest));
  });
  return older.length === 0 ? '' : olderHashOf(older[older.length - 1]!);
}

function statusReason(ds: DaemonSet): string {
  const s = ds.status;
  const desired = count(s?.desiredNumberScheduled);
  const updated = count(s?.updatedNumberScheduled);
  const available = count(s?.numberAvailable);
  if (updated === desired && available === desired) return '';
  return `DaemonSet status: ${updated} updated, ${available} available of ${desired} scheduled`;
}
