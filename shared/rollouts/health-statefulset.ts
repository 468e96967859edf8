// A StatefulSet's new revision in one cluster, from the StatefulSet, its ControllerRevisions and its pods, with the
// StatefulSet controller's own helpers (shared/controllers/statefulset):
// - the revision is status.updateRevision once the controller has observed the current generation; before that,
//   the revision getStatefulSetRevisions will pick for the current template (the latest revision holding the same
//   data, else `<set>-<HashControllerRevision(data, collisionCount)>`), or '' on a hash collision (the controller
//   must raise collisionCount first);
// - the previous revision is status.currentRevision when it differs, else the ControllerRevision with the
//   next-lower revision number (below the revision's own, or the highest other when the revision has none yet);
// - available: observedGeneration current, status.updateRevision the revision, and every replica slot the update
//   covers holds a pod of the revision, not being deleted, Running and Ready and available for minReadySeconds at
//   `now` (computeReplicaStatus's tests). The slots are the ordinals from start + partition to the last one
//   (RollingUpdate's updateMin counts slots from the start ordinal; OnDelete has no partition): ordinals below the
//   partition keep the previous revision by design and are not the new revision's. Without a partition, the
//   status's own counts must agree too (updatedReplicas = replicas = readyReplicas = availableReplicas =
//   spec.replicas). A partition at or above spec.replicas leaves no slot to update: available, as kubectl's
//   "partitioned roll out complete".
// Only revisions and pods the StatefulSet controls are read; the pods searched for failure signatures are its pods
// labelled controller-revision-hash = the revision.
import type { ControllerRevision, Pod, StatefulSet } from '../kube/api/objects.js';
import { revisionNumber, sortControllerRevisions } from '../controllers/common/controller-history.js';
import { nameOf, statefulSetRevisions } from '../controllers/statefulset/history.js';
import { ordinalOf, podName, revisionOfPod, startOrdinal } from '../controllers/statefulset/identity.js';
import { partitionOf } from '../controllers/statefulset/rolling.js';
import { isAvailable, isRunningAndReady, isTerminating } from '../controllers/statefulset/status.js';
import { REVISION_LABEL, Strategy } from '../controllers/statefulset/types.js';
import {
  controlledBy,
  firstReason,
  generationReason,
  isBeingDeleted,
  podsOfRevision,
  type HealthOptions,
  type KindVerdict,
} from './health-verdict.js';
import { count, recordOf, replicasOf, text, withSections, type Json } from './health-untrusted.js';

export type StatefulSetRead = {
  /** The StatefulSet as read; null or undefined when it does not exist. */
  readonly statefulSet: unknown;
  /** The namespace's ControllerRevisions (those the StatefulSet controls are used). */
  readonly revisions: readonly unknown[];
  /** Its pods. */
  readonly pods: readonly unknown[];
};

export function statefulSetVerdict(target: Json, read: StatefulSetRead, options: HealthOptions): KindVerdict {
  const set = withSections<StatefulSet>(target);
  const uid = text(set.metadata?.uid);
  const sorted = sortControllerRevisions(controlledBy(read.revisions, uid) as ControllerRevision[]);
  const observed = generationReason(target) === '';
  const updateRevision = text(set.status?.updateRevision);
  const revision = observed && updateRevision !== '' ? updateRevision : templateRevision(set, sorted);
  const pods = controlledBy(read.pods, uid) as Pod[];
  const notAvailable = firstReason(
    () => (isBeingDeleted(target) ? 'StatefulSet is being deleted' : ''),
    () =>
      replicasOf(recordOf(set.spec)) === null ? 'malformed StatefulSet: spec.replicas is not a replica count' : '',
    () => generationReason(target),
    () => (revision === '' ? 'the revision of the template is not known yet (hash collision)' : ''),
    () => (updateRevision === revision ? '' : `status.updateRevision "${updateRevision}" is not ${revision}`),
    () => slotsReason(set, pods, revision, options.now),
    () => statusCountsReason(set),
  );
  // Reported as the pin names a StatefulSet's revision: the ControllerRevision's hash (its name without the set's
  // name and '-'); pods and status name the whole ControllerRevision, which is what is compared above.
  const setName = text(set.metadata?.name);
  return {
    revision: revisionHash(setName, revision),
    previousRevision: revisionHash(setName, previousRevision(set, sorted, revision)),
    notAvailable,
    revisionPods: podsOfRevision(read.pods, uid, REVISION_LABEL, revision),
  };
}

/** `<set>-<hash>` → `<hash>`; a name of another shape is kept whole (it then names no revision a pin can hold). */
function revisionHash(setName: string, revisionName: string): string {
  const prefix = `${setName}-`;
  return setName !== '' && revisionName.startsWith(prefix) ? revisionName.slice(prefix.length) : revisionName;
}

function templateRevision(set: StatefulSet, sorted: readonly ControllerRevision[]): string {
  const revisions = statefulSetRevisions(set, sorted, undefined);
  return revisions.kind === 'collision' ? '' : nameOf(revisions.update);
}

function previousRevision(set: StatefulSet, sorted: readonly ControllerRevision[], revision: string): string {
  const current = text(set.status?.currentRevision);
  if (current !== '' && current !== revision) return current;
  const own = sorted.find((cr) => nameOf(cr) === revision);
  const below = sorted.filter((cr) =>
    own === undefined ? nameOf(cr) !== revision : revisionNumber(cr) < revisionNumber(own),
  );
  return below.length === 0 ? '' : nameOf(below[below.length - 1]!);
}

/** The partition the update stops at, as a count of slots from the start ordinal, within [0, replicas]. */
function partitionSlots(set: StatefulSet): number {
  const rolling = (set.spec?.updateStrategy?.type ?? Strategy.RollingUpdate) === Strategy.RollingUpdate;
  const partition = rolling ? count(partitionOf(set)) : 0;
  return Math.min(Math.max(partition, 0), replicasOf(recordOf(set.spec)) ?? 0);
}

function slotsReason(set: StatefulSet, pods: readonly Pod[], revision: string, now: Date): string {
  const replicas = replicasOf(recordOf(set.spec)) ?? 0;
  const start = count(startOrdinal(set));
  const from = partitionSlots(set);
  const minReadySeconds = count(set.spec?.minReadySeconds);
  const byOrdinal = new Map<number, Pod>();
  for (const pod of pods) {
    const ordinal = ordinalOf(pod);
    if (pod.metadata?.name === podName(set, ordinal) && !isTerminating(pod)) byOrdinal.set(ordinal, pod);
  }
  let updated = 0;
  let ready = 0;
  let available = 0;
  for (let slot = from; slot < replicas; slot++) {
    const pod = byOrdinal.get(start + slot);
    if (pod === undefined || revisionOfPod(pod) !== revision) continue;
    updated++;
    if (!isRunningAndReady(pod)) continue;
    ready++;
    if (isAvailable(pod, minReadySeconds, now)) available++;
  }
  const want = replicas - from;
  if (updated === want && ready === want && available === want) return '';
  const which = from === 0 ? 'every ordinal' : `ordinals from ${start + from}`;
  return `pods of revision ${revision} at ${which}: ${updated} updated, ${ready} ready, ${available} available of ${want}`;
}

function statusCountsReason(set: StatefulSet): string {
  if (partitionSlots(set) > 0) return '';
  const replicas = replicasOf(recordOf(set.spec)) ?? 0;
  const s = set.status;
  const counts = [s?.replicas, s?.updatedReplicas, s?.readyReplicas, s?.availableReplicas].map(count);
  if (counts.every((n) => n === replicas)) return '';
  const [created, updated, ready, available] = counts;
  return `StatefulSet status: ${updated} updated, ${ready} ready, ${available} available, ${created} replicas of ${replicas}`;
}
