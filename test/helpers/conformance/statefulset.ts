// The StatefulSet scenarios' reading of a snapshot: how a StatefulSet, its ControllerRevisions and its pods compare
// across the two sides (pods by name, which is the ordinal, and by revision number; revisions by number with their
// hash and data byte for byte), the OrderedReady invariant, and when a set has converged.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controllerOf, isActive, isPodReady, isTerminating } from './model.js';
import type { ConformancePlugin } from './plugin.js';
import type { Check, ControllerRevision, Invariant, Pod, Snapshot, StatefulSet } from './types.js';

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
 * OrderedReady: pod N+1 is never created before pod N is Ready. Seen in samples as: when pod N was created in an
 * earlier second than pod N+1 (a pod recreated by an update is younger), it first became Ready no later than pod N+1 was created (seconds).
 * "First": the earliest Ready transition seen of that pod (by uid; a pod made unready and Ready again later keeps
 * it), remembered per side.
 */
export function orderedReadyInvariant(name: string, graceMs = 0): Invariant {
  const firstReady = new Map<string, number>();
  return {
    name: `${name}: pod N+1 never before pod N is Ready`,
    graceMs,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      if (set === undefined) return null;
      const pods = podsOf(s, set);
      for (const p of pods) {
        const ready = readySince(p);
        const key = `${s.namespace ?? ''}/${p.metadata.uid ?? ''}`;
        if (ready !== undefined && !(ready >= (firstReady.get(key) ?? Infinity))) firstReady.set(key, ready);
      }
      const byOrdinal = new Map(pods.map((p) => [ordinal(p), p]));
      for (const [n, next] of byOrdinal) {
        const prev = byOrdinal.get(n - 1);
        if (prev === undefined) continue;
        const created = Date.parse(next.metadata.creationTimestamp ?? '');
        const prevCreated = Date.parse(prev.metadata.creationTimestamp ?? '');
        // creationTimestamp has whole seconds: created in the same second, which came first is unknown.
        if (!(prevCreated < created)) continue;
        const ready = firstReady.get(`${s.namespace ?? ''}/${prev.metadata.uid ?? ''}`);
        if (ready === undefined) continue; // never seen Ready: nothing to tell from these samples
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

const isLive = (p: Pod): boolean => isActive(p) && !isTerminating(p.metadata);

/**
 * The pods present (terminating ones included) always hold a contiguous range of ordinals from the first: an
 * OrderedReady set creates N+1 only after N, and deletes N only once N+1 is gone. For scenarios that scale only
 * (a rolling update or a deleted pod opens a gap on purpose).
 */
export function contiguousOrdinalsInvariant(name: string, start = 0): Invariant {
  return {
    name: `${name}: pods hold ordinals ${start}..n without a gap`,
    graceMs: 0,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      if (set === undefined) return null;
      const ordinals = podsOf(s, set)
        .map(ordinal)
        .sort((a, b) => a - b);
      const gap = ordinals.findIndex((o, i) => o !== start + i);
      return gap < 0 ? null : `ordinals ${ordinals.join(',')}`;
    },
  };
}

/**
 * A partition never updates an ordinal below it: while an update is under way (currentRevision ≠ updateRevision,
 * both observed), every pod below spec.updateStrategy.rollingUpdate.partition is at the current revision.
 */
export function partitionInvariant(name: string): Invariant {
  return {
    name: `${name}: no pod below the partition at the update revision`,
    graceMs: 0,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      const st = set?.status;
      if (set === undefined || st === undefined || st.currentRevision === st.updateRevision) return null;
      const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
      const start = set.spec.ordinals?.start ?? 0;
      const below = podsOf(s, set).filter((p) => ordinal(p) < start + partition);
      const updated = below.filter((p) => p.metadata.labels?.[REVISION_LABEL] === st.updateRevision);
      return updated.length === 0
        ? null
        : `${updated.map((p) => p.metadata.name).join(', ')} updated below ${partition}`;
    },
  };
}

/**
 * During a rolling update, the ordinals of the range that have no live Ready pod (missing, terminating, not Ready)
 * never exceed `maxUnavailable` (the value the scenario computed from spec.replicas, upstream's rounding down).
 * Armed once the set has rolled out (creation itself starts with every slot empty).
 */
export function maxUnavailableInvariant(name: string, maxUnavailable: number): Invariant {
  return {
    name: `${name}: at most ${maxUnavailable} replicas unavailable`,
    graceMs: 0,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      if (set === undefined) return null;
      const start = set.spec.ordinals?.start ?? 0;
      const replicas = set.spec.replicas ?? 1;
      const ready = new Set(
        podsOf(s, set)
          .filter((p) => isLive(p) && isPodReady(p))
          .map(ordinal),
      );
      let unavailable = 0;
      for (let o = start; o < start + replicas; o++) if (!ready.has(o)) unavailable++;
      return unavailable <= maxUnavailable ? null : `${unavailable} unavailable`;
    },
  };
}

/**
 * status.availableReplicas never counts a pod Ready for less than minReadySeconds: it is at most the number of
 * live pods Ready since `minReadySeconds` before the sample (Ready's lastTransitionTime has whole seconds, so one
 * second of slack).
 */
export function minReadyInvariant(name: string, minReadySeconds: number): Invariant {
  return {
    name: `${name}: availableReplicas only counts pods Ready for ${minReadySeconds} s`,
    graceMs: 0,
    check(s) {
      const set = s.statefulSets?.find((x) => x.metadata.name === name);
      if (set === undefined) return null;
      const cutoff = s.at - (minReadySeconds - 1) * 1000;
      const available = podsOf(s, set).filter((p) => {
        const since = readySince(p);
        return isLive(p) && since !== undefined && since <= cutoff;
      }).length;
      const counted = set.status?.availableReplicas ?? 0;
      return counted <= available ? null : `availableReplicas ${counted}, ${available} pods Ready long enough`;
    },
  };
}

/** Status observed and this many available replicas (minReadySeconds elapsed). */
export const statefulSetAvailable =
  (name: string, available: number) =>
  (s: Snapshot): Check => {
    const set = s.statefulSets?.find((x) => x.metadata.name === name);
    const st = set?.status;
    if (!set || (st?.observedGeneration ?? 0) < (set.metadata.generation ?? 0)) return 'generation not observed';
    return (st?.availableReplicas ?? 0) === available ? true : `availableReplicas ${st?.availableReplicas ?? 0}`;
  };

/** The StatefulSet is gone, with its pods (a cascading delete). */
export const statefulSetGone =
  (name: string) =>
  (s: Snapshot): Check => {
    if (s.statefulSets?.some((x) => x.metadata.name === name)) return `statefulset ${name} still there`;
    return s.pods.length === 0 ? true : `${s.pods.length} pods left`;
  };

/**
 * PersistentVolumes for a scenario's claims (the sandbox has no provisioner; kube-controller-manager's PV binder,
 * on in both modes, binds a claim to an Available volume of its class): `count` hostPath volumes of 1Mi in class
 * `storageClass` (a class with no StorageClass object: immediate binding), reclaim policy Retain, labelled with the
 * class so one command removes them. Written to a file for `kubectl apply -f`.
 */
export function persistentVolumesFile(storageClass: string, count: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `${storageClass}-${i}`, labels: { [PV_LABEL]: storageClass } },
    spec: {
      capacity: { storage: '1Mi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: storageClass,
      hostPath: { path: `/tmp/${storageClass}/${i}` },
    },
  }));
  const file = join(tmpdir(), `${storageClass}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  return file;
}

/** The label on a scenario's PersistentVolumes: their class. */
export const PV_LABEL = 'conformance.fleetq.dev/sts-volumes';

/** The StatefulSet scenarios' plug-in: StatefulSets and their ControllerRevisions, pods by name and revision. */
export const statefulSetPlugin: ConformancePlugin = {
  kind: 'StatefulSet',
  needs: ['StatefulSet'],
  lists: [
    { kind: 'StatefulSet', field: 'statefulSets' },
    { kind: 'ControllerRevision', field: 'controllerRevisions' },
  ],
  normalize: normalizeStatefulSets,
  podParts: statefulPodParts,
};
