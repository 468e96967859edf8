// Revisions and the annotations a Deployment keeps on its ReplicaSets (deployment_util.go
// SetNewReplicaSetAnnotations, SetReplicasAnnotations, MaxRevision, LastRevision, SetDeploymentRevision).
import { PIN_ADMITTED_ANNOTATION, PIN_FROZEN_ANNOTATION, PIN_ROLLOUT_ANNOTATION } from '../../rollouts/pin.js';
import { Annotation, MAX_INT32, type Deployment, type ReplicaSet } from './types.js';

const INT64 = /^[-+]?[0-9]+$/;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** strconv.ParseInt(v, 10, 64); null on error. */
export function parseInt64(v: string): bigint | null {
  if (!INT64.test(v)) return null;
  const n = BigInt(v);
  return n > INT64_MAX || n < INT64_MIN ? null : n;
}

/** Revision(obj): 0 without the annotation, null when it does not parse. */
export function revisionOf(rs: { metadata: { annotations?: Record<string, string> } }): bigint | null {
  const v = rs.metadata.annotations?.[Annotation.Revision];
  return v === undefined ? 0n : parseInt64(v);
}

/** MaxRevision: the highest revision that parses (0 if none). */
export function maxRevision(rss: readonly ReplicaSet[]): bigint {
  let max = 0n;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v !== null && v > max) max = v;
  }
  return max;
}

/** LastRevision: the second highest revision that parses (0 if none), i.e. the one before the current. */
export function lastRevision(rss: readonly ReplicaSet[]): bigint {
  let max = 0n;
  let second = 0n;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v === null) continue;
    if (v >= max) {
      second = max;
      max = v;
    } else if (v > second) {
      second = v;
    }
  }
  return second;
}

/** getNonNegativeInt32FromAnnotation: strconv.ParseUint(v, 10, 32) capped at MaxInt32; null if absent or invalid. */
export function getNonNegativeInt32Annotation(rs: ReplicaSet, key: string): number | null {
  const v = rs.metadata.annotations?.[key];
  if (v === undefined || !/^[0-9]+$/.test(v)) return null;
  const n = Number(v);
  return n > MAX_INT32 ? null : n;
}

const SKIP_COPY = new Set<string>([
  Annotation.LastAppliedConfig,
  Annotation.Revision,
  Annotation.RevisionHistory,
  Annotation.DesiredReplicas,
  Annotation.MaxReplicas,
  Annotation.DeprecatedRollbackTo,
  // Not upstream: the fleet rollout pin is the Deployment's alone (a ReplicaSet carrying it would hand a stale pin
  // back to the Deployment on `kubectl rollout undo`).
  PIN_ROLLOUT_ANNOTATION,
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
]);

/** skipCopyAnnotation: annotations a Deployment and its ReplicaSets do not copy to each other. */
export function skipCopyAnnotation(key: string): boolean {
  return SKIP_COPY.has(key);
}

/** copyDeploymentAnnotationsToReplicaSet: every Deployment annotation but the skipped ones. Mutates rs. */
function copyDeploymentAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  let changed = false;
  const annotations = (rs.metadata.annotations ??= {});
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIP_COPY.has(k) || (Object.hasOwn(annotations, k) && annotations[k] === v)) continue;
    annotations[k] = v;
    changed = true;
  }
  return changed;
}

/** SetReplicasAnnotations: desired-replicas and max-replicas. Mutates rs; true if changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let updated = false;
  if (annotations[Annotation.DesiredReplicas] !== String(desired)) {
    annotations[Annotation.DesiredReplicas] = String(desired);
    updated = true;
  }
  if (annotations[Annotation.MaxReplicas] !== String(max)) {
    annotations[Annotation.MaxReplicas] = String(max);
    updated = true;
  }
  return updated;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata.annotations;
  return (
    a === undefined || a[Annotation.DesiredReplicas] !== String(desired) || a[Annotation.MaxReplicas] !== String(max)
  );
}

/**
 * SetNewReplicaSetAnnotations: copy the Deployment's annotations, raise the revision to newRevision (keeping
 * the one it replaces in revision-history, bounded to limitChars), and on creation the replicas annotations.
 * Mutates rs; true if an annotation changed.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: string,
  exists: boolean,
  limitChars: number,
  replicas: { desired: number; max: number },
): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const annotations = (rs.metadata.annotations ??= {});
  const had = Object.hasOwn(annotations, Annotation.Revision);
  const oldRevision = annotations[Annotation.Revision] ?? '';
  let oldInt = parseInt64(oldRevision);
  if (oldInt === null) {
    if (oldRevision !== '') return false;
    oldInt = 0n;
  }
  const newInt = parseInt64(newRevision);
  if (newInt === null) return false;
  if (oldInt < newInt) {
    annotations[Annotation.Revision] = newRevision;
    changed = true;
    if (had) appendRevisionHistory(annotations, oldRevision, limitChars);
  }
  if (!exists && setReplicasAnnotations(rs, replicas.desired, replicas.max)) changed = true;
  return changed;
}

function appendRevisionHistory(annotations: Record<string, string>, oldRevision: string, limitChars: number): void {
  const history = annotations[Annotation.RevisionHistory] ?? '';
  const old = history.split(',');
  if ((old[0] ?? '').length === 0) {
    annotations[Annotation.RevisionHistory] = oldRevision;
    return;
  }
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > limitChars && start < old.length) {
    total -= (old[start] ?? '').length + 1;
    start++;
  }
  if (total <= limitChars) annotations[Annotation.RevisionHistory] = [...old.slice(start), oldRevision].join(',');
}

/** SetDeploymentRevision. Mutates d; true if changed. */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const annotations = (d.metadata.annotations ??= {});
  if (annotations[Annotation.Revision] === revision) return false;
  annotations[Annotation.Revision] = revision;
  return true;
}

/** ReplicaSetsByRevision: by revision, by creation timestamp when equal or unparsable. */
export function byRevision(byCreation: (a: ReplicaSet, b: ReplicaSet) => number) {
  return (a: ReplicaSet, b: ReplicaSet): number => {
    const ra = revisionOf(a);
    const rb = revisionOf(b);
    if (ra === null || rb === null || ra === rb) return byCreation(a, b);
    return ra < rb ? -1 : 1;
  };
}
