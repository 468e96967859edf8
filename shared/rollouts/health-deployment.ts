// A Deployment's new revision in one cluster, from the Deployment, its ReplicaSets and their pods, with the
// Deployment controller's own helpers (shared/controllers/deployment):
// - the new ReplicaSet is FindNewReplicaSet's (the oldest of those it controls whose template equals its own,
//   pod-template-hash aside), and the revision is that ReplicaSet's pod-template-hash, which its pods carry; before
//   one exists, the hash the Deployment controller will name it by (ComputeHash(template, collisionCount)). The two
//   agree unless the ReplicaSet was made under an earlier collisionCount (a rollback to it): then the label is what
//   the pods carry;
// - the previous revision is the pod-template-hash of the ReplicaSet with the highest
//   deployment.kubernetes.io/revision among the others (ties: the later created). In a steady state that is the
//   highest below the new one; after a rollback the controller has not synced yet, the new ReplicaSet still has its
//   old number, and the highest of the others is still the one it replaces;
// - available: observedGeneration current; the new ReplicaSet's own status current and every desired replica of it
//   created and available; the Deployment's status complete (DeploymentComplete: updated = replicas = available =
//   spec.replicas, so no old pod is left); and the Progressing condition's reason NewReplicaSetAvailable with
//   upstream's message naming that ReplicaSet (progress.go: `ReplicaSet "<name>" has successfully progressed.`).
//   Two cases upstream leaves without such a condition are judged without it: a Deployment with no progress
//   deadline (progressDeadlineSeconds unset or MaxInt32: it keeps no Progressing condition) and one of 0 replicas
//   (a rollout that changes no pod count is "complete" at once, and the condition keeps naming the old ReplicaSet).
// Only ReplicaSets the Deployment controls are read (an orphan it would adopt is not its revision yet), and only
// the new ReplicaSet's pods with its pod-template-hash are searched for failure signatures.
import { computeHash } from '../controllers/common/pod-template-hash.js';
import { isComplete } from '../controllers/deployment/progress.js';
import { byCreationTimestamp, findNewReplicaSet } from '../controllers/deployment/replica-sets.js';
import { revisionOf } from '../controllers/deployment/revision.js';
import { hasProgressDeadline } from '../controllers/deployment/sync.js';
import {
  Annotation,
  ConditionType,
  POD_TEMPLATE_HASH_LABEL,
  Reason,
  type Deployment,
  type ReplicaSet,
} from '../controllers/deployment/types.js';
import type { PodTemplateSpec } from '../kube/api/objects.js';
import {
  controlledBy,
  firstReason,
  generationReason,
  isBeingDeleted,
  podsOfRevision,
  type KindVerdict,
} from './health-verdict.js';
import {
  count,
  labelOf,
  oneLine,
  recordOf,
  recordsOf,
  replicasOf,
  revisionLabelOf,
  text,
  withSections,
  type Json,
} from './health-untrusted.js';

export type DeploymentRead = {
  /** The Deployment as read; null or undefined when it does not exist. */
  readonly deployment: unknown;
  /** The namespace's ReplicaSets (those the Deployment controls are used). */
  readonly replicaSets: readonly unknown[];
  /** Their pods (those of the new ReplicaSet are used). */
  readonly pods: readonly unknown[];
};

export function deploymentVerdict(target: Json, read: DeploymentRead): KindVerdict {
  const d = withSections<Deployment>(target);
  const owned = controlledBy(read.replicaSets, text(d.metadata.uid)).map((rs) => withSections<ReplicaSet>(rs));
  const newRS = findNewReplicaSet(d, [...owned]);
  const revision = revisionLabelOf(newRS, POD_TEMPLATE_HASH_LABEL) || templateHash(d);
  const desired = replicasOf(d.spec) ?? 0;
  const notAvailable = firstReason(
    () => (isBeingDeleted(target) ? 'Deployment is being deleted' : ''),
    () => (replicasOf(d.spec) === null ? 'malformed Deployment: spec.replicas is not a replica count' : ''),
    () => generationReason(target),
    () => (newRS === null ? `no ReplicaSet of revision ${revision} yet` : ''),
    () => (newRS === null ? '' : replicaSetReason(newRS, desired)),
    () => completeReason(d, desired),
    () => (newRS === null ? '' : progressingReason(d, newRS, desired)),
  );
  return {
    revision,
    previousRevision: previousRevision(owned, newRS, revision),
    notAvailable,
    revisionPods:
      newRS === null ? [] : podsOfRevision(read.pods, text(newRS.metadata.uid), POD_TEMPLATE_HASH_LABEL, revision),
  };
}

/** ComputeHash of the template with status.collisionCount (absent and 0 hash differently, as in Go: nil vs 0). */
function templateHash(d: Deployment): string {
  const collisionCount = d.status?.collisionCount;
  const template = recordOf(d.spec.template) as PodTemplateSpec;
  return computeHash(template, typeof collisionCount === 'number' ? collisionCount : undefined);
}

function previousRevision(owned: readonly ReplicaSet[], newRS: ReplicaSet | null, revision: string): string {
  let previous: ReplicaSet | undefined;
  let highest = 0n;
  for (const rs of owned.filter((x) => x !== newRS).sort(byCreationTimestamp)) {
    const hash = labelOf(rs, POD_TEMPLATE_HASH_LABEL);
    const n = isShortRevision(rs) ? revisionOf(rs) : null;
    if (n === null || hash === '' || hash.length > 63 || hash === revision) continue;
    if (previous === undefined || n >= highest) {
      previous = rs;
      highest = n;
    }
  }
  return previous === undefined ? '' : labelOf(previous, POD_TEMPLATE_HASH_LABEL);
}

/** An annotation longer than int64's 20 characters cannot parse: not handed to BigInt (a huge one costs time). */
function isShortRevision(rs: ReplicaSet): boolean {
  const v: unknown = recordOf(rs.metadata.annotations)[Annotation.Revision];
  return typeof v !== 'string' || v.length <= 20;
}

function replicaSetReason(rs: ReplicaSet, desired: number): string {
  const name = text(rs.metadata.name);
  const generation = count(rs.metadata.generation);
  const observed = count(rs.status?.observedGeneration);
  if (observed < generation)
    return `ReplicaSet "${name}": observedGeneration ${observed} is behind generation ${generation}`;
  const specReplicas = count(rs.spec.replicas);
  const created = count(rs.status?.replicas);
  const available = count(rs.status?.availableReplicas);
  if (specReplicas === desired && created === desired && available === desired) return '';
  return `ReplicaSet "${name}": ${available} of ${desired} replicas available (${created} created, spec ${specReplicas})`;
}

function completeReason(d: Deployment, desired: number): string {
  const s = d.status ?? {};
  if (isComplete(d, s)) return '';
  return (
    `Deployment status: ${count(s.updatedReplicas)} updated, ${count(s.replicas)} replicas, ` +
    `${count(s.availableReplicas)} available of ${desired}`
  );
}

function progressingReason(d: Deployment, newRS: ReplicaSet, desired: number): string {
  if (!hasProgressDeadline(d)) return '';
  const name = text(newRS.metadata.name);
  const c = recordsOf(d.status?.conditions).find((x) => x.type === ConditionType.Progressing);
  const done = c?.reason === Reason.NewReplicaSetAvailable;
  if (done && (desired === 0 || c.message === `ReplicaSet "${name}" has successfully progressed.`)) return '';
  const seen = c === undefined ? 'none' : `${text(c.reason)} (${oneLine(c.message)})`;
  return `Progressing condition ${seen}, not NewReplicaSetAvailable for ReplicaSet "${name}"`;
}
