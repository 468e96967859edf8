// Pure helpers over ReplicaSets, as deployment/util and controller_utils.go define them: finding the new and
// old ReplicaSets, their sort orders, and the replica counts status and scaling are computed from.
import { isDeepStrictEqual } from 'node:util';
import type { PodTemplateSpec } from '../../kube/api/objects.js';
import { POD_TEMPLATE_HASH_LABEL, type Deployment, type ReplicaSet } from './types.js';

export const specReplicas = (rs: ReplicaSet): number => rs.spec.replicas ?? 0;

/** RFC 3339 → ms; a ReplicaSet not created yet sorts after every existing one. */
function createdAt(rs: ReplicaSet): number {
  const t = rs.metadata.creationTimestamp;
  return t === undefined ? Number.POSITIVE_INFINITY : Date.parse(t);
}

/** controller.ReplicaSetsByCreationTimestamp: oldest first, name as tie breaker. */
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const ta = createdAt(a);
  const tb = createdAt(b);
  if (ta === tb) return compareStrings(a.metadata.name ?? '', b.metadata.name ?? '');
  return ta < tb ? -1 : 1;
}

/** controller.ReplicaSetsBySizeNewer: larger first, then newer first. */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  if (specReplicas(a) === specReplicas(b)) return byCreationTimestamp(b, a);
  return specReplicas(a) > specReplicas(b) ? -1 : 1;
}

/** controller.ReplicaSetsBySizeOlder: larger first, then older first. */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  if (specReplicas(a) === specReplicas(b)) return byCreationTimestamp(a, b);
  return specReplicas(a) > specReplicas(b) ? -1 : 1;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** controller.FilterActiveReplicaSets: spec.replicas > 0. */
export function filterActive(rss: readonly (ReplicaSet | null)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== null && specReplicas(rs) > 0);
}

const sum = (rss: readonly (ReplicaSet | null)[], f: (rs: ReplicaSet) => number): number =>
  rss.reduce((n, rs) => (rs === null ? n : n + f(rs)), 0);

export const replicaCount = (rss: readonly (ReplicaSet | null)[]): number => sum(rss, specReplicas);
export const actualReplicaCount = (rss: readonly (ReplicaSet | null)[]): number =>
  sum(rss, (rs) => rs.status?.replicas ?? 0);
export const readyReplicaCount = (rss: readonly (ReplicaSet | null)[]): number =>
  sum(rss, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicaCount = (rss: readonly (ReplicaSet | null)[]): number =>
  sum(rss, (rs) => rs.status?.availableReplicas ?? 0);

/**
 * GetTerminatingReplicaCountForReplicaSets: undefined when a synced ReplicaSet does not report the field
 * (a ReplicaSet controller without DeploymentReplicaSetTerminatingReplicas); unsynced ones count as 0.
 */
export function terminatingReplicaCount(rss: readonly (ReplicaSet | null)[]): number | undefined {
  let total = 0;
  for (const rs of rss) {
    if (rs === null) continue;
    const t = rs.status?.terminatingReplicas;
    if (t === undefined) {
      if ((rs.status?.observedGeneration ?? 0) === 0) continue;
      return undefined;
    }
    total += t;
  }
  return total;
}

/**
 * EqualIgnoreHash: templates semantically equal once the pod-template-hash label is dropped. The JSON both
 * sides come from is the apiserver's, so Go's nil-versus-empty list equality is the only normalization needed.
 */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return isDeepStrictEqual(normalize(withoutHash(a)), normalize(withoutHash(b)));
}

function withoutHash(t: PodTemplateSpec | undefined): unknown {
  const labels = { ...(t?.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  return { ...t, metadata: { ...t?.metadata, labels } };
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalize);
  if (v === null || typeof v !== 'object') return v ?? undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const n = normalize(x);
    const isEmptyMap =
      (k === 'labels' || k === 'annotations') && typeof n === 'object' && n !== null && Object.keys(n).length === 0;
    if (n !== undefined && !isEmptyMap) out[k] = n;
  }
  return out;
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's (sorts rsList in place). */
export function findNewReplicaSet(d: Deployment, rsList: ReplicaSet[]): ReplicaSet | null {
  rsList.sort(byCreationTimestamp);
  return rsList.find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template)) ?? null;
}

/** FindOldReplicaSets: every other ReplicaSet (all) and those with replicas (required). */
export function findOldReplicaSets(d: Deployment, rsList: ReplicaSet[]): { required: ReplicaSet[]; all: ReplicaSet[] } {
  const newRS = findNewReplicaSet(d, rsList);
  const all = rsList.filter((rs) => newRS === null || rs.metadata.uid !== newRS.metadata.uid);
  return { required: all.filter((rs) => specReplicas(rs) !== 0), all };
}
