// The StatefulSet scenarios' reading of a snapshot: how a StatefulSet, its ControllerRevisions and its pods compare
// across the two sides (pods by name, which is the ordinal, and by revision number; revisions by number with their
// hash and data byte for byte), the OrderedReady invariant, and when a set has converged.
import { controllerOf, isActive, isPodReady, isTerminating } from './conformance-model.js';
import type { Check, ControllerRevision, Invariant, Pod, Snapshot, StatefulSet } from './conformance-types.js';

const REVISION_LABEL = 'controller-revision-hash';
/** The hash label on a StatefulSet's ControllerRevisions (history.ControllerRevisionHashLabel). */
const HASH_LABEL = 'controller.kubernetes.io/hash';

function revisionsOf(s: Snapshot, set: StatefulSet): ControllerRevision[] {
  return (s.controllerRevisions ?? []).filter((cr) => controllerOf(cr.metadata)?.uid === set.metadata.uid);
}

/** `<set>@<n>` of the revision named `name` (a pod's label, or a status field). */
function revisionKey(s: Snapshot, set: StatefulSet, name: string | undefined): string {
  const cr = revisionsOf(s, set).find((r) => r.metadata.name === name);
  return cr ? `@${cr.revision}` : name === undefined || name === '' ? 'none' : 'unknown';
}

/** The pod's name and revision, for a stateful pod's state in normalize. */
export function statefulPodParts(s: Snapshot, p: Pod): string[] {
  const owner = controllerOf(p.metadata);
  const set = s.statefulSets?.find((x) => x.metadata.uid === owner?.uid);
  if (set === undefined) return [];
  return [`name=${p.metadata.name ?? '?'}`, `rev${revisionKey(s, set, p.metadata.labels?.[REVISION_LABEL])}`];
}

export function normalizeStatefulSets(s: Snapshot): {
  statefulSets: Record<string, unknown>;
  controllerRevisions: Record<string, unknown>;
} {
  const statefulSets: Record<string, unknown> = {};
  const controllerRevisions: Record<string, unknown> = {};
  for (const set of s.statefulSets ?? []) {
    const st = set.status ?? {};
    const name = set.metadata.name ?? '?';
    statefulSets[name] = {
      spec: set.spec,
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (set.metadata.generation ?? 0),
        replicas: st.replicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        currentReplicas: st.currentReplicas,
        updatedReplicas: st.updatedReplicas,
        currentRevision: revisionKey(s, set, st.currentRevision),
        updateRevision: revisionKey(s, set, st.updateRevision),
        collisionCount: st.collisionCount,
      },
    };
    for (const cr of revisionsOf(s, set)) {
      const hash = cr.metadata.labels?.[HASH_LABEL];
      controllerRevisions[`${name}@${cr.revision}`] = {
        name: cr.metadata.name,
        hash,
        labels: cr.metadata.labels,
        annotations: cr.metadata.annotations,
        blockOwnerDeletion: controllerOf(cr.metadata)?.blockOwnerDeletion === true,
        data: cr.data,
      };
    }
  }
  return { statefulSets, controllerRevisions };
}

const ordinal = (p: Pod): number => Number(/-([0-9]+)$/.exec(p.metadata.name ?? '')?.[1] ?? -1);
const readySince = (p: Pod): number | undefined => {
  const c = (p.status?.conditions ?? []).find((x) => x.type === 'Ready' && x.status === 'True');
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : undefined;
};

function podsOf(s: Snapshot, set: StatefulSet): Pod[] {
  return s.pods.filter((p) => controllerOf(p.metadata)?.uid === set.metadata.uid);
}

/**
 * OrderedReady: pod N+1 is never created before pod N is Ready. Seen in a sample as: when pod N is older than pod
 * N+1 (a pod recreated by an update is younger), it became Ready no later than pod N+1 was created (seconds).
 */
export function orderedReadyInvariant(name: string, graceMs = 0): Invariant {
  return {
    name: `${name}: pod N+1 never before pod N is Ready`,
    graceMs,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      if (set === undefined) return null;
      const byOrdinal = new Map(podsOf(s, set).map((p) => [ordinal(p), p]));
      for (const [n, next] of byOrdinal) {
        const prev = byOrdinal.get(n - 1);
        if (prev === undefined) continue;
        const created = Date.parse(next.metadata.creationTimestamp ?? '');
        const prevCreated = Date.parse(prev.metadata.creationTimestamp ?? '');
        if (!(prevCreated <= created)) continue;
        const ready = readySince(prev);
        if (ready === undefined) continue; // not Ready now: nothing to tell from this sample
        if (ready > created) return `${next.metadata.name} created before ${prev.metadata.name} was Ready`;
      }
      return null;
    },
  };
}

/** Converged: status observed, `replicas` live Ready pods of `image`, every one updated and current. */
export const statefulSetRolledOut =
  (name: string, replicas: number, image?: string) =>
  (s: Snapshot): Check => {
    const set = s.statefulSets?.find((x) => x.metadata.name === name);
    if (set === undefined) return `statefulset ${name} not found`;
    const st = set.status ?? {};
    if ((st.observedGeneration ?? 0) < (set.metadata.generation ?? 0)) return `${name}: generation not observed`;
    const got = {
      replicas: st.replicas ?? 0,
      ready: st.readyReplicas ?? 0,
      updated: st.updatedReplicas ?? 0,
      current: st.currentReplicas ?? 0,
      same: st.currentRevision === st.updateRevision,
    };
    const want = { replicas, ready: replicas, updated: replicas, current: replicas, same: true };
    if (JSON.stringify(got) !== JSON.stringify(want)) return `${name}: status ${JSON.stringify(got)}`;
    const pods = podsOf(s, set);
    const live = pods.filter((p) => isActive(p) && !isTerminating(p.metadata));
    if (pods.length !== replicas || live.length !== replicas) return `${name}: ${pods.length} pods`;
    if (!live.every((p) => isPodReady(p))) return `${name}: not every pod ready`;
    if (image !== undefined) {
      const images = live.map((p) => ((p.spec.containers ?? []) as Array<{ image?: string }>)[0]?.image);
      if (!images.every((i) => i === image)) return `${name}: images ${images.join(', ')}`;
    }
    return true;
  };

/** Status observed and these counts, the pods as they are (a partition, or OnDelete, holds the rest back). */
export const statefulSetStatusIs =
  (name: string, want: { replicas: number; ready: number; updated: number }) =>
  (s: Snapshot): Check => {
    const set = s.statefulSets?.find((x) => x.metadata.name === name);
    const st = set?.status;
    if (!set || (st?.observedGeneration ?? 0) < (set.metadata.generation ?? 0)) return 'generation not observed';
    const got = { replicas: st?.replicas ?? 0, ready: st?.readyReplicas ?? 0, updated: st?.updatedReplicas ?? 0 };
    return JSON.stringify(got) === JSON.stringify(want) ? true : `status ${JSON.stringify(got)}`;
  };
