// sync.go: finding or creating the new ReplicaSet and syncing revisions, scaling on a scaling event or while
// paused (proportionally when several ReplicaSets are active), history cleanup and the paused conditions.
import { controllerRefOf, newControllerRef, type OwnerReference } from '../../kube/meta/controller-ref.js';
import { getCondition, newCondition, setCondition } from './conditions.js';
import { desiredReplicas, isRollingUpdate, maxSurge } from '../common/deployment-fenceposts.js';
import { computeHash } from '../common/pod-template-hash.js';
import { isSaturated, newRSNewReplicas, replicaSetProportion } from './fenceposts.js';
import { scaledEvent } from './events.js';
import { jsonCopy } from '../common/json-copy.js';
import { type Pass, SyncAborted } from './pass.js';
import {
  byCreationTimestamp,
  bySizeNewer,
  bySizeOlder,
  equalIgnoreHash,
  filterActive,
  findNewReplicaSet,
  findOldReplicaSets,
  replicaCount,
  specReplicas,
} from './replica-sets.js';
import {
  byRevision,
  getNonNegativeInt32Annotation,
  maxRevision,
  replicasAnnotationsNeedUpdate,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './revision.js';
import { syncDeploymentStatus } from './status.js';
import {
  Annotation,
  ConditionType,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  MAX_INT32,
  MAX_REV_HISTORY_LENGTH_IN_CHARS,
  POD_TEMPLATE_HASH_LABEL,
  Reason,
  type Deployment,
  type ReplicaSet,
} from './types.js';

/** The Deployment's controller reference, as its ReplicaSets carry it. */
export function controllerRefTo(d: Deployment): OwnerReference {
  return newControllerRef({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: d.metadata.name ?? '',
    uid: d.metadata.uid ?? '',
  });
}

export type Split = { newRS: ReplicaSet | null; oldRSs: ReplicaSet[] };

export const hasProgressDeadline = (d: Deployment): boolean =>
  d.spec.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== MAX_INT32;
const hasRevisionHistoryLimit = (d: Deployment): boolean =>
  d.spec.revisionHistoryLimit !== undefined && d.spec.revisionHistoryLimit !== MAX_INT32;
const replicasAnnotations = (d: Deployment) => ({ desired: desiredReplicas(d), max: desiredReplicas(d) + maxSurge(d) });

/** getAllReplicaSetsAndSyncRevision */
export function getAllReplicaSetsAndSyncRevision(p: Pass, rsList: ReplicaSet[], create: boolean): Split {
  const { all } = findOldReplicaSets(p.d, rsList);
  return { newRS: getNewReplicaSet(p, rsList, all, create), oldRSs: all };
}

function getNewReplicaSet(p: Pass, rsList: ReplicaSet[], oldRSs: ReplicaSet[], create: boolean): ReplicaSet | null {
  const d = p.d;
  const existing = findNewReplicaSet(d, rsList);
  const newRevision = String(maxRevision(oldRSs) + 1n);
  const syncAnnotations = (rs: ReplicaSet) =>
    setNewReplicaSetAnnotations(d, rs, newRevision, true, MAX_REV_HISTORY_LENGTH_IN_CHARS, replicasAnnotations(d));

  if (existing) {
    const copy = jsonCopy(existing);
    const annotationsUpdated = syncAnnotations(copy);
    if (annotationsUpdated || (copy.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0)) {
      return p.update(existing, 'UpdatedReplicaSet', (rs) => {
        syncAnnotations(rs);
        rs.spec.minReadySeconds = d.spec.minReadySeconds ?? 0;
      });
    }
    setDeploymentRevision(d, copy.metadata.annotations?.[Annotation.Revision] ?? '');
    if (hasProgressDeadline(d) && !getCondition(p.status, ConditionType.Progressing)) {
      const msg = `Found new replica set "${copy.metadata.name ?? ''}"`;
      setCondition(p.status, newCondition(ConditionType.Progressing, 'True', Reason.FoundNewReplicaSet, msg, p.now));
    }
    return copy;
  }
  if (!create) return null;

  const hash = computeHash(d.spec.template ?? {}, d.status?.collisionCount);
  const template = jsonCopy(d.spec.template ?? {});
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
  };
  const selector = jsonCopy(d.spec.selector ?? {});
  selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
  const newRS: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: replicaSetName(d.metadata.name ?? '', hash),
      namespace: d.metadata.namespace,
      ownerReferences: [controllerRefTo(d)],
      labels: { ...template.metadata.labels },
    },
    spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
  };
  newRS.spec.replicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  setNewReplicaSetAnnotations(d, newRS, newRevision, false, MAX_REV_HISTORY_LENGTH_IN_CHARS, replicasAnnotations(d));

  let created = newRS;
  let alreadyExists = false;
  const clash = p.namespaceRSs.find((rs) => rs.metadata.name === newRS.metadata.name);
  if (clash) {
    // Create would answer AlreadyExists: ours with this template is the new ReplicaSet; anything else is a
    // hash collision, resolved by a new collisionCount (and so a new name) on the next sync.
    if (controllerRefOf(clash)?.uid === d.metadata.uid && equalIgnoreHash(d.spec.template, clash.spec.template)) {
      created = clash;
      alreadyExists = true;
    } else {
      p.status.collisionCount = (p.status.collisionCount ?? 0) + 1;
      throw new SyncAborted(`hash collision on ReplicaSet ${newRS.metadata.name ?? ''}`);
    }
  } else {
    p.create(newRS);
  }
  setDeploymentRevision(d, newRevision);
  if (!alreadyExists && hasProgressDeadline(d)) {
    const msg = `Created new replica set "${created.metadata.name ?? ''}"`;
    setCondition(p.status, newCondition(ConditionType.Progressing, 'True', Reason.NewReplicaSetCreated, msg, p.now));
  }
  return created;
}

/** generateReplicaSetName: `<deployment>-<hash>`, the deployment name cut to fit a DNS subdomain. */
export function replicaSetName(deploymentName: string, hash: string): string {
  const max = DNS1123_SUBDOMAIN_MAX_LENGTH - 1 - hash.length;
  const base = deploymentName.length > max && max > 0 ? deploymentName.slice(0, max) : deploymentName;
  return `${base}-${hash}`;
}

/** scaleReplicaSet: size and replicas annotations in one update; `scaled` (and its event) when the size changed. */
export function scaleReplicaSet(
  p: Pass,
  rs: ReplicaSet,
  newScale: number,
  force = false,
): { scaled: boolean; rs: ReplicaSet } {
  if (!force && specReplicas(rs) === newScale) return { scaled: false, rs };
  const { desired, max } = replicasAnnotations(p.d);
  const sizeNeedsUpdate = specReplicas(rs) !== newScale;
  if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
  const events = sizeNeedsUpdate ? [scaledEvent(p.original, rs.metadata.name ?? '', specReplicas(rs), newScale)] : [];
  const updated = p.update(
    rs,
    'ScalingReplicaSet',
    (copy) => {
      copy.spec.replicas = newScale;
      setReplicasAnnotations(copy, desired, max);
    },
    events,
  );
  return { scaled: sizeNeedsUpdate, rs: updated };
}

/** FindActiveOrLatest (sorts oldRSs newest first, in place, as upstream does). */
function findActiveOrLatest(newRS: ReplicaSet | null, oldRSs: ReplicaSet[]): ReplicaSet | null {
  if (newRS === null && oldRSs.length === 0) return null;
  oldRSs.sort((a, b) => byCreationTimestamp(b, a));
  const active = filterActive([...oldRSs, newRS]);
  if (active.length === 0) return newRS ?? oldRSs[0] ?? null;
  return active.length === 1 ? (active[0] ?? null) : null;
}

/** scale: the one active ReplicaSet takes the new size; several share the change in proportion. */
export function scale(p: Pass, newRS: ReplicaSet | null, oldRSs: ReplicaSet[]): void {
  const d = p.d;
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (specReplicas(activeOrLatest) !== desiredReplicas(d)) scaleReplicaSet(p, activeOrLatest, desiredReplicas(d));
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of filterActive(oldRSs)) scaleReplicaSet(p, old, 0);
    return;
  }
  if (!isRollingUpdate(d)) return;

  const allRSs = filterActive([...oldRSs, newRS]);
  const allowed = desiredReplicas(d) > 0 ? desiredReplicas(d) + maxSurge(d) : 0;
  const toAdd = allowed - replicaCount(allRSs);
  if (toAdd > 0) allRSs.sort(bySizeNewer);
  else if (toAdd < 0) allRSs.sort(bySizeOlder);

  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of allRSs) {
    const proportion = toAdd !== 0 ? replicaSetProportion(d, rs, toAdd, added) : 0;
    sizes.set(rs.metadata.name ?? '', specReplicas(rs) + proportion);
    added += proportion;
  }
  allRSs.forEach((rs, i) => {
    const name = rs.metadata.name ?? '';
    let size = sizes.get(name) ?? 0;
    if (i === 0 && toAdd !== 0) size = Math.max(size + toAdd - added, 0);
    sizes.set(name, size);
    scaleReplicaSet(p, rs, size, true);
  });
}

/** cleanupDeployment: delete the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit. */
export function cleanupDeployment(p: Pass, oldRSs: readonly ReplicaSet[]): void {
  const d = p.d;
  if (!hasRevisionHistoryLimit(d)) return;
  const cleanable = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined);
  const diff = cleanable.length - (d.spec.revisionHistoryLimit ?? 0);
  if (diff <= 0) return;
  cleanable.sort(byRevision(byCreationTimestamp));
  for (const rs of cleanable.slice(0, diff)) {
    const settled = (rs.metadata.generation ?? 0) <= (rs.status?.observedGeneration ?? 0);
    if ((rs.status?.replicas ?? 0) !== 0 || specReplicas(rs) !== 0 || !settled) continue;
    p.delete(rs);
  }
}

/** isScalingEvent: an active ReplicaSet was sized for another spec.replicas. */
export function isScalingEvent(p: Pass, rsList: ReplicaSet[]): boolean {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, false);
  return filterActive([...oldRSs, newRS]).some((rs) => {
    const desired = getNonNegativeInt32Annotation(rs, Annotation.DesiredReplicas);
    return desired !== null && desired !== desiredReplicas(p.d);
  });
}

/** sync: scaling while paused or on a scaling event, then (paused) cleanup and status. */
export function sync(p: Pass, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, false);
  scale(p, newRS, oldRSs);
  if (p.d.spec.paused === true && !hasRollbackTo(p.d)) cleanupDeployment(p, oldRSs);
  syncDeploymentStatus(p, [...oldRSs, newRS], newRS);
}

export function syncStatusOnly(p: Pass, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, false);
  syncDeploymentStatus(p, [...oldRSs, newRS], newRS);
}

/**
 * checkPausedConditions: Progressing Unknown DeploymentPaused / DeploymentResumed (never over a timeout). Reads the
 * observed spec: a pass paused by a fleet rollout freeze says so itself (fleet-rollout-pin.ts).
 */
export function checkPausedConditions(p: Pass): void {
  const d = p.original;
  if (!hasProgressDeadline(d)) return;
  const cond = getCondition(p.status, ConditionType.Progressing);
  if (cond?.reason === Reason.ProgressDeadlineExceeded) return;
  const pausedCondExists = cond?.reason === Reason.DeploymentPaused;
  if (d.spec.paused === true && !pausedCondExists) {
    setCondition(
      p.status,
      newCondition(ConditionType.Progressing, 'Unknown', Reason.DeploymentPaused, 'Deployment is paused', p.now),
    );
  } else if (d.spec.paused !== true && pausedCondExists) {
    setCondition(
      p.status,
      newCondition(ConditionType.Progressing, 'Unknown', Reason.DeploymentResumed, 'Deployment is resumed', p.now),
    );
  }
}

/** getRollbackTo: the deprecated rollback annotation, when it holds a revision. */
export function hasRollbackTo(d: Deployment): boolean {
  const v = d.metadata.annotations?.[Annotation.DeprecatedRollbackTo] ?? '';
  return v !== '' && /^[-+]?[0-9]+$/.test(v);
}
