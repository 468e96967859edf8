// Reading a snapshot the way the controllers do: ownership, revisions, the new ReplicaSet of a Deployment,
// readiness and availability of pods, and the rolling-update fenceposts. Pure functions of the snapshot.
import type { Deployment, IntOrString, Job, ObjectMeta, OwnerRef, Pod, ReplicaSet, Snapshot } from './types.js';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
/** batch.JobCompletionIndexAnnotation: an Indexed Job's pods carry it as annotation and label. */
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** batch.JobTrackingFinalizer. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

export function controllerOf(meta: ObjectMeta): OwnerRef | undefined {
  return meta.ownerReferences?.find((r) => r.controller === true);
}

export function isTerminating(meta: ObjectMeta): boolean {
  return meta.deletionTimestamp !== undefined;
}

export function revisionOf(rs: ReplicaSet): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? '0');
}

export function findDeployment(s: Snapshot, name: string): Deployment | undefined {
  return s.deployments.find((d) => d.metadata.name === name);
}

export function findReplicaSet(s: Snapshot, name: string): ReplicaSet | undefined {
  return s.replicaSets.find((rs) => rs.metadata.name === name);
}

/** The ReplicaSets a Deployment controls, oldest revision first. */
export function replicaSetsOf(s: Snapshot, d: Deployment): ReplicaSet[] {
  return s.replicaSets
    .filter((rs) => controllerOf(rs.metadata)?.uid === d.metadata.uid)
    .sort((a, b) => revisionOf(a) - revisionOf(b));
}

export function findJob(s: Snapshot, name: string): Job | undefined {
  return s.jobs.find((j) => j.metadata.name === name);
}

export function podsOwnedBy(s: Snapshot, uid: string | undefined): Pod[] {
  if (uid === undefined) return [];
  return s.pods.filter((p) => controllerOf(p.metadata)?.uid === uid);
}

/** Pods of any ReplicaSet the Deployment controls. */
export function podsOfDeployment(s: Snapshot, d: Deployment): Pod[] {
  const uids = new Set(replicaSetsOf(s, d).map((rs) => rs.metadata.uid));
  return s.pods.filter((p) => uids.has(controllerOf(p.metadata)?.uid));
}

/** JSON with sorted keys, so equal objects give equal strings. */
export function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val !== null && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : val,
  );
}

/** The template without the pod-template-hash label (upstream EqualIgnoreHash). */
export function templateIgnoringHash(t: Deployment['spec']['template']): unknown {
  const labels = { ...(t.metadata?.labels ?? {}) };
  delete labels[HASH_LABEL];
  return { ...t, metadata: { ...t.metadata, labels } };
}

export function newReplicaSetOf(s: Snapshot, d: Deployment): ReplicaSet | undefined {
  const want = stableJson(templateIgnoringHash(d.spec.template));
  return replicaSetsOf(s, d).find((rs) => stableJson(templateIgnoringHash(rs.spec.template)) === want);
}

export function isPodReady(p: Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Ready for at least minReadySeconds at `now` (upstream IsPodAvailable). */
export function isPodAvailable(p: Pod, minReadySeconds: number, now: number): boolean {
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return false;
  if (minReadySeconds === 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : now;
  return since + minReadySeconds * 1000 <= now;
}

export function isActive(p: Pod): boolean {
  return !isTerminating(p.metadata) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
}

function resolve(v: IntOrString | undefined, fallback: string, total: number, roundUp: boolean): number {
  const x = v ?? fallback;
  if (typeof x === 'number') return x;
  const pct = Number(x.replace('%', ''));
  const raw = (pct * total) / 100;
  return roundUp ? Math.ceil(raw) : Math.floor(raw);
}

/** maxSurge (percent rounds up) and maxUnavailable (percent rounds down; both 0 → unavailable 1). */
export function fenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec.replicas ?? 1;
  if (d.spec.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: replicas };
  const ru = d.spec.strategy?.rollingUpdate;
  const maxSurge = resolve(ru?.maxSurge, '25%', replicas, true);
  const maxUnavailable = resolve(ru?.maxUnavailable, '25%', replicas, false);
  return maxSurge === 0 && maxUnavailable === 0 ? { maxSurge, maxUnavailable: 1 } : { maxSurge, maxUnavailable };
}
