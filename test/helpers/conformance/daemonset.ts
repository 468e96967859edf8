// The DaemonSet scenarios' reading of a snapshot: how a DaemonSet, its ControllerRevisions and its pods compare
// across the two sides, what its rollouts must never do (invariants), and when it has converged (predicates).
// Node names are the same on both sides (kwok-node-0, …), so pods are compared per node; revisions are named by
// number (`agent@2`), and their hashes and data byte for byte (both come from the same template).
import { controllerOf, isActive, isPodReady, isTerminating } from './model.js';
import type { ConformancePlugin } from './plugin.js';
import type { Check, ControllerRevision, DaemonSet, Invariant, Pod, Snapshot } from './types.js';

export const REVISION_HASH = 'controller-revision-hash';

/** The node a daemon pod is for: spec.nodeName, else its `metadata.name In [node]` affinity term. */
export function daemonPodNode(p: Pod): string {
  const bound = p.spec.nodeName;
  if (typeof bound === 'string' && bound !== '') return bound;
  type Terms = { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; values?: string[] }> }> };
  const affinity = p.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: Terms } };
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms)
    for (const f of t.matchFields ?? []) if (f.key === 'metadata.name') return f.values?.[0] ?? '?';
  return '?';
}

function revisionsOf(s: Snapshot, ds: DaemonSet): ControllerRevision[] {
  return (s.controllerRevisions ?? []).filter((cr) => controllerOf(cr.metadata)?.uid === ds.metadata.uid);
}

/** `rev=<n>` of the DaemonSet's revision whose hash the pod carries, for a daemon pod's state in normalize. */
export function daemonPodParts(s: Snapshot, p: Pod): string[] {
  const owner = controllerOf(p.metadata);
  const ds = s.daemonSets?.find((d) => d.metadata.uid === owner?.uid);
  if (ds === undefined) return [];
  const hash = p.metadata.labels?.[REVISION_HASH];
  const cr = revisionsOf(s, ds).find((r) => r.metadata.labels?.[REVISION_HASH] === hash);
  return [`node=${daemonPodNode(p)}`, cr ? `rev=${cr.revision}` : `hash=${hash ?? 'none'}`];
}

/** The DaemonSets and their revisions as compared. */
export function normalizeDaemonSets(s: Snapshot): {
  daemonSets: Record<string, unknown>;
  controllerRevisions: Record<string, unknown>;
} {
  const daemonSets: Record<string, unknown> = {};
  const controllerRevisions: Record<string, unknown> = {};
  for (const ds of s.daemonSets ?? []) {
    const st = ds.status ?? {};
    const name = ds.metadata.name ?? '?';
    daemonSets[name] = {
      spec: ds.spec,
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0),
        desiredNumberScheduled: st.desiredNumberScheduled,
        currentNumberScheduled: st.currentNumberScheduled,
        numberMisscheduled: st.numberMisscheduled,
        numberReady: st.numberReady,
        numberAvailable: st.numberAvailable,
        numberUnavailable: st.numberUnavailable,
        updatedNumberScheduled: st.updatedNumberScheduled,
        collisionCount: st.collisionCount,
      },
    };
    for (const cr of revisionsOf(s, ds)) {
      const hash = cr.metadata.labels?.[REVISION_HASH];
      controllerRevisions[`${name}@${cr.revision}`] = {
        hash,
        nameIsDaemonSetDashHash: cr.metadata.name === `${name}-${hash}`,
        labels: cr.metadata.labels,
        blockOwnerDeletion: controllerOf(cr.metadata)?.blockOwnerDeletion === true,
        data: cr.data,
      };
    }
  }
  return { daemonSets, controllerRevisions };
}

/** Active pods of the DaemonSet not being deleted. */
function livePods(s: Snapshot, ds: DaemonSet): Pod[] {
  return s.pods.filter(
    (p) => controllerOf(p.metadata)?.uid === ds.metadata.uid && isActive(p) && !isTerminating(p.metadata),
  );
}

/** Never two live pods of one revision (controller-revision-hash) on one node. */
export function daemonSetOnePodPerRevision(name: string, graceMs = 0): Invariant {
  return {
    name: `${name}: never two pods of one revision on a node`,
    graceMs,
    check(s) {
      const ds = s.daemonSets?.find((d) => d.metadata.name === name);
      if (ds === undefined) return null;
      const seen = new Map<string, number>();
      for (const p of livePods(s, ds)) {
        const key = `${daemonPodNode(p)}/${p.metadata.labels?.[REVISION_HASH] ?? ''}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      const twice = [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${n} on ${k}`);
      return twice.length === 0 ? null : twice.join(', ');
    },
  };
}

/**
 * Nodes of the DaemonSet's (status.desiredNumberScheduled, once observed) without a live Ready pod never exceed
 * `maxUnavailable` (armed once it has rolled out: pods appearing the first time are all unavailable).
 */
export function daemonSetUnavailableBound(name: string, maxUnavailable: number, graceMs = 0): Invariant {
  return {
    name: `${name}: unavailable nodes ≤ ${maxUnavailable}`,
    graceMs,
    check(s) {
      const ds = s.daemonSets?.find((d) => d.metadata.name === name);
      const desired = ds?.status?.desiredNumberScheduled;
      if (ds === undefined || desired === undefined) return null;
      const ready = new Set(
        livePods(s, ds)
          .filter((p) => isPodReady(p))
          .map((p) => daemonPodNode(p)),
      );
      const unavailable = desired - ready.size;
      return unavailable <= maxUnavailable ? null : `${unavailable} of ${desired} nodes without a ready pod`;
    },
  };
}

/**
 * The DaemonSet has rolled out: status observed and complete (every desired node scheduled, updated and
 * available, none misscheduled), and exactly `nodes` live pods, each Ready and of the current template's image.
 */
export const daemonSetRolledOut =
  (name: string, nodes: number, image?: string) =>
  (s: Snapshot): Check => {
    const ds = s.daemonSets?.find((d) => d.metadata.name === name);
    if (ds === undefined) return `daemonset ${name} not found`;
    const st = ds.status ?? {};
    if ((st.observedGeneration ?? 0) < (ds.metadata.generation ?? 0)) return `${name}: generation not observed`;
    const want = { desired: nodes, updated: nodes, available: nodes, ready: nodes, misscheduled: 0 };
    const got = {
      desired: st.desiredNumberScheduled ?? 0,
      updated: st.updatedNumberScheduled ?? 0,
      available: st.numberAvailable ?? 0,
      ready: st.numberReady ?? 0,
      misscheduled: st.numberMisscheduled ?? 0,
    };
    if (JSON.stringify(got) !== JSON.stringify(want)) return `${name}: status ${JSON.stringify(got)}`;
    const pods = s.pods.filter((p) => controllerOf(p.metadata)?.uid === ds.metadata.uid);
    const live = livePods(s, ds);
    if (pods.length !== nodes || live.length !== nodes) return `${name}: ${pods.length} pods (${live.length} live)`;
    if (!live.every((p) => isPodReady(p))) return `${name}: not every pod ready`;
    if (image !== undefined) {
      const images = live.map((p) => ((p.spec.containers ?? []) as Array<{ image?: string }>)[0]?.image);
      if (!images.every((i) => i === image)) return `${name}: images ${images.join(', ')}`;
    }
    return true;
  };

/** The DaemonSet's live pods run `image` on exactly `n` nodes (OnDelete: only replaced pods are updated). */
export const daemonSetPodsWithImage =
  (name: string, image: string, n: number) =>
  (s: Snapshot): Check => {
    const ds = s.daemonSets?.find((d) => d.metadata.name === name);
    if (ds === undefined) return `daemonset ${name} not found`;
    const count = livePods(s, ds).filter(
      (p) => isPodReady(p) && ((p.spec.containers ?? []) as Array<{ image?: string }>)[0]?.image === image,
    ).length;
    return count === n ? true : `${name}: ${count} ready pods run ${image}, want ${n}`;
  };

/** The DaemonSet scenarios' plug-in: DaemonSets and their ControllerRevisions, pods by node and revision. */
export const daemonSetPlugin: ConformancePlugin = {
  kind: 'DaemonSet',
  needs: ['DaemonSet'],
  lists: [
    { kind: 'DaemonSet', field: 'daemonSets' },
    { kind: 'ControllerRevision', field: 'controllerRevisions' },
  ],
  normalize: normalizeDaemonSets,
  podParts: daemonPodParts,
};
