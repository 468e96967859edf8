// The LeaderWorkerSet's reading of a snapshot (leaderworkerset.x-k8s.io/v1, a CRD: listed into `custom`). Upstream's
// side is the LWS manager of sigs.k8s.io/lws (its controllers and webhooks) with kube-controller-manager's
// StatefulSet controller; fleetq's side is fleetq's LeaderWorkerSet, LeaderWorkerSetPod and StatefulSet controllers
// with fleetq's LWS admission (test/helpers/sandbox/lws-admission.ts).
//
// What is compared:
// - the LWS: its spec as admitted (empty values left out, as upstream's webhook re-encodes the Go object), its
//   annotations, status counts, hpaPodSelector and conditions by type (reason and message);
// - every StatefulSet (the leader one, `<lws>`, and a worker one per leader pod, `<lws>-<group>`), listed here into
//   `custom` rather than the StatefulSet plug-in's typed field: its labels, annotations, controller, whole spec and
//   status, with each StatefulSet revision named by its number (`@1`) since its hash covers the template's group
//   key, which is a SHA-1 over the namespace;
// - the ControllerRevisions: the LWS's by their template-revision-hash (the hash is over the LWS template only, so
//   raw values compare), a StatefulSet's by `<set>@<n>`, data included;
// - each pod by name (StatefulSet names are deterministic): the leaderworkerset.sigs.k8s.io/* labels and annotations
//   the pod webhook wrote, its StatefulSet revision by number, subdomain, hostname and each container's LWS_* env;
// - the Services (the shared headless one, or one per group under UniquePerReplica).
// Text that holds the namespace (an address, an env value) compares with `<ns>`, and a group key (SHA-1 of
// `<ns>/<leader pod>`, pod_webhook.go genGroupUniqueKey) as `(sha1 of <ns>/<leader pod>)`.
// Listed in the order the controllers read: the LWS, then the StatefulSets (whose status the LWS counts), then the
// pods; ControllerRevisions and Services after.
import { createHash } from 'node:crypto';
import { CONTROLLERS } from '../../../shared/controllers/index.js';
import { controllerOf, isActive, isPodReady, isTerminating } from './model.js';
import type { ConformancePlugin, Naming } from './plugin.js';
import type { Check, ControllerRevision, Invariant, KubeJson, Pod, Snapshot } from './types.js';
import { startLwsAdmission } from '../sandbox/lws-admission.js';
import { withoutEmpty } from '../sandbox/jobset-admission.js';

export const LWS_KIND = 'LeaderWorkerSet';
const LWS_PREFIX = 'leaderworkerset.sigs.k8s.io/';
export const LWS_NAME_LABEL = `${LWS_PREFIX}name`;
export const GROUP_INDEX_LABEL = `${LWS_PREFIX}group-index`;
export const WORKER_INDEX_LABEL = `${LWS_PREFIX}worker-index`;
export const TEMPLATE_REVISION_LABEL = `${LWS_PREFIX}template-revision-hash`;
/** The StatefulSet pods' revision label. */
const STS_REVISION_LABEL = 'controller-revision-hash';
/** The hash label on a StatefulSet's ControllerRevisions. */
const STS_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

export type LwsCondition = { type: string; status: string; reason?: string; message?: string };
export type LwsStatus = {
  conditions?: LwsCondition[];
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  hpaPodSelector?: string;
  observedGeneration?: number;
};

export function leaderWorkerSetsOf(s: Snapshot): readonly KubeJson[] {
  return s.custom?.[LWS_KIND] ?? [];
}

export function findLeaderWorkerSet(s: Snapshot, name: string): KubeJson | undefined {
  return leaderWorkerSetsOf(s).find((x) => x.metadata.name === name);
}

export function statefulSetsOf(s: Snapshot): readonly KubeJson[] {
  return s.custom?.StatefulSet ?? [];
}

const isLive = (p: Pod): boolean => isActive(p) && !isTerminating(p.metadata);

/** The pods of the LWS `name` (by its name label), live (not terminating, not ended). */
export function lwsPodsOf(s: Snapshot, name: string): Pod[] {
  return s.pods.filter((p) => p.metadata.labels?.[LWS_NAME_LABEL] === name && isLive(p));
}

/**
 * Replaces, in every string of `v`, the namespace by `<ns>` and a SHA-1 of `<ns>/<name>` (a group key) for each
 * `name` among `names` by `(sha1 of <ns>/<name>)`.
 */
function scrubber(namespace: string, names: Iterable<string>): (v: unknown) => unknown {
  const keys = new Map<string, string>();
  for (const name of names)
    keys.set(createHash('sha1').update(`${namespace}/${name}`).digest('hex'), `(sha1 of <ns>/${name})`);
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const key = keys.get(v);
      if (key !== undefined) return key;
      return namespace === '' ? v : v.split(namespace).join('<ns>');
    }
    if (Array.isArray(v)) return v.map(scrub);
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
  };
  return scrub;
}

function revisionsOwnedBy(s: Snapshot, uid: string | undefined): ControllerRevision[] {
  return (s.controllerRevisions ?? []).filter((cr) => controllerOf(cr.metadata)?.uid === uid);
}

/** `@<n>` of the StatefulSet revision named `name` (a pod's label, or a status field). */
function stsRevisionKey(s: Snapshot, setUid: string | undefined, name: string | undefined): string {
  const cr = revisionsOwnedBy(s, setUid).find((r) => r.metadata.name === name);
  return cr ? `@${cr.revision}` : name === undefined || name === '' ? 'none' : 'unknown';
}

/** The leaderworkerset.sigs.k8s.io/* entries of a label or annotation map. */
function own(m: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k.startsWith(LWS_PREFIX)));
}

function normalizeLeaderWorkerSet(lws: KubeJson, n: Naming): Record<string, unknown> {
  const st = (lws.status ?? {}) as LwsStatus;
  return {
    spec: withoutEmpty(lws.spec),
    labels: lws.metadata.labels,
    annotations: n.annotations(lws.metadata),
    status: {
      observedCurrent: (st.observedGeneration ?? 0) >= (lws.metadata.generation ?? 0),
      replicas: st.replicas,
      readyReplicas: st.readyReplicas,
      updatedReplicas: st.updatedReplicas,
      hpaPodSelector: st.hpaPodSelector,
    },
    conditions: n.conditions(st.conditions),
  };
}

type StatefulSetJson = KubeJson & {
  spec?: { template?: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> } };
};

function normalizeLeaderWorkerSets(s: Snapshot, n: Naming): Record<string, Record<string, unknown>> {
  const namespace = s.namespace ?? '';
  const names = new Set<string>([
    ...s.pods.map((p) => p.metadata.name ?? ''),
    ...statefulSetsOf(s).map((x) => x.metadata.name ?? ''),
  ]);
  const scrub = scrubber(namespace, names);

  const leaderWorkerSets: Record<string, unknown> = {};
  for (const lws of leaderWorkerSetsOf(s))
    leaderWorkerSets[lws.metadata.name ?? '?'] = normalizeLeaderWorkerSet(lws, n);

  const lwsStatefulSets: Record<string, unknown> = {};
  const revisions: Record<string, unknown> = {};
  const setByUid = new Map<string | undefined, KubeJson>();
  for (const set of statefulSetsOf(s) as StatefulSetJson[]) {
    const name = set.metadata.name ?? '?';
    setByUid.set(set.metadata.uid, set);
    const st = (set.status ?? {}) as Record<string, unknown>;
    lwsStatefulSets[name] = {
      labels: scrub(set.metadata.labels),
      annotations: scrub(set.metadata.annotations),
      owner: n.owner(set.metadata),
      terminating: isTerminating(set.metadata),
      spec: scrub(set.spec),
      status: {
        observedCurrent: ((st.observedGeneration as number | undefined) ?? 0) >= (set.metadata.generation ?? 0),
        replicas: st.replicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        currentReplicas: st.currentReplicas,
        updatedReplicas: st.updatedReplicas,
        currentRevision: stsRevisionKey(s, set.metadata.uid, st.currentRevision as string | undefined),
        updateRevision: stsRevisionKey(s, set.metadata.uid, st.updateRevision as string | undefined),
        collisionCount: st.collisionCount,
      },
    };
    for (const cr of revisionsOwnedBy(s, set.metadata.uid))
      revisions[`${name}@${cr.revision}`] = {
        // The hash label (history.ControllerRevisionHashLabel) is over the template, which holds the group key: the
        // revision number names it here.
        labels: scrub({ ...cr.metadata.labels, [STS_REVISION_HASH_LABEL]: undefined }),
        owner: n.owner(cr.metadata),
        data: scrub(cr.data),
      };
  }
  // The LWS's own revisions (owned by it, or orphans still carrying its name label), by their hash label, without
  // their revision number: upstream's getOrCreateRevisionIfNonExist (leaderworkerset_controller.go) looks for the
  // revision by the leader StatefulSet's key in its informer cache, so a second pass run before that cache holds the
  // leader StatefulSet it just applied makes another revision with the same key (NewRevision: number highest + 1,
  // name `<lws>-<hash>-<number>`), recording CreatingRevision and GroupsProgressing again (seen in
  // lws-startup-leader-ready: lws-74984664d9-1 and -2). How many revisions share a key, and so their numbers, come
  // and go with that race; the keys, labels, owner and data compare.
  const lwsUids = new Set(leaderWorkerSetsOf(s).map((x) => x.metadata.uid));
  for (const cr of s.controllerRevisions ?? []) {
    const owner = controllerOf(cr.metadata);
    const isLws =
      owner?.kind === LWS_KIND || (owner === undefined && cr.metadata.labels?.[LWS_NAME_LABEL] !== undefined);
    if (!isLws) continue;
    const key = cr.metadata.labels?.[TEMPLATE_REVISION_LABEL] ?? cr.metadata.name ?? '?';
    revisions[`${LWS_KIND}:${key}`] = {
      named: cr.metadata.name === `${cr.metadata.labels?.[LWS_NAME_LABEL] ?? ''}-${key}-${cr.revision}`,
      labels: cr.metadata.labels,
      owner: owner === undefined ? null : lwsUids.has(owner.uid) ? n.owner(cr.metadata) : 'another LWS',
      data: scrub(cr.data),
    };
  }

  const lwsPods: Record<string, unknown> = {};
  for (const p of s.pods) {
    if (p.metadata.labels?.[LWS_NAME_LABEL] === undefined) continue;
    const owner = controllerOf(p.metadata);
    const containers = (p.spec.containers ?? []) as Array<{ name: string; env?: Array<{ name: string }> }>;
    const state = isTerminating(p.metadata) ? 'terminating' : isPodReady(p) ? 'ready' : (p.status?.phase ?? 'none');
    const key = `${p.metadata.name ?? '?'}${state === 'terminating' ? ' (terminating)' : ''}`;
    lwsPods[key] = {
      labels: scrub(own(p.metadata.labels)),
      annotations: scrub(own(p.metadata.annotations)),
      stsRevision: stsRevisionKey(s, owner?.uid, p.metadata.labels?.[STS_REVISION_LABEL]),
      subdomain: scrub(p.spec.subdomain),
      hostname: p.spec.hostname,
      env: Object.fromEntries(
        containers.map((c) => [c.name, scrub((c.env ?? []).filter((e) => e.name.startsWith('LWS_')))]),
      ),
      owner: n.owner(p.metadata),
      state,
    };
  }

  const lwsServices: Record<string, unknown> = {};
  for (const svc of s.custom?.Service ?? []) {
    const spec = (svc.spec ?? {}) as Record<string, unknown>;
    lwsServices[svc.metadata.name ?? '?'] = {
      labels: svc.metadata.labels,
      clusterIP: spec.clusterIP,
      selector: scrub(spec.selector),
      publishNotReadyAddresses: spec.publishNotReadyAddresses,
      ports: spec.ports,
      owner: n.owner(svc.metadata),
    };
  }
  return { leaderWorkerSets, lwsStatefulSets, lwsRevisions: revisions, lwsPods, lwsServices };
}

/** The LeaderWorkerSet plug-in: the LWS (a CRD) and what it makes; StatefulSets into `custom` (see the header). */
export const leaderWorkerSetPlugin: ConformancePlugin = {
  kind: LWS_KIND,
  // fleetq's side makes the pods with its own StatefulSet controller.
  needs: [LWS_KIND, 'LeaderWorkerSetPod', 'StatefulSet'],
  lists: [
    { kind: LWS_KIND, before: 'StatefulSet' },
    { kind: 'StatefulSet', before: 'Pod' },
    { kind: 'ControllerRevision', field: 'controllerRevisions' },
    { kind: 'Service' },
  ],
  normalize: normalizeLeaderWorkerSets,
  // Upstream records events.k8s.io/v1 Events and fleetq core/v1 ones (shared/controllers/leaderworkerset/index.ts);
  // both are read here through core/v1, where an events.k8s.io Event shows with `regarding` as involvedObject, so
  // the reason and type per object compare as they are.
  eventKinds: [LWS_KIND],
  // LeaderWorkerSets and their pods are admitted as on an upstream-mode cluster with the LWS manager's webhooks:
  // by fleetq's admission function, served from this process while fleetq runs.
  // Until fleetq registers the controller (shared/controllers/index.ts) there is nothing to admit for.
  fleetqSide: async ({ kc, root }) =>
    CONTROLLERS.has(LWS_KIND) ? startLwsAdmission({ root, kc, probeNamespace: 'default' }) : { stop: async () => {} },
};

// --- waits and invariants the scenarios use ---------------------------------------------------------------------

const imageOf = (p: Pod): string | undefined => ((p.spec.containers ?? []) as Array<{ image?: string }>)[0]?.image;
const restartsOf = (p: Pod): number =>
  (p.status?.containerStatuses ?? []).reduce(
    (a, c) => a + Number((c as { restartCount?: number }).restartCount ?? 0),
    0,
  );

/**
 * The LWS `name` has settled: its status observed with `replicas` groups ready and updated and Available True;
 * `replicas × size` live pods, every one Running and Ready, none with a container restart, of `image` when given.
 */
export const lwsSettled =
  (name: string, o: { replicas: number; size: number; image?: string }) =>
  (s: Snapshot): Check => {
    const lws = findLeaderWorkerSet(s, name);
    if (lws === undefined) return `${name} not found`;
    const st = (lws.status ?? {}) as LwsStatus;
    if ((st.observedGeneration ?? 0) < (lws.metadata.generation ?? 0)) return `${name}: generation not observed`;
    const got = { replicas: st.replicas ?? 0, ready: st.readyReplicas ?? 0, updated: st.updatedReplicas ?? 0 };
    const want = { replicas: o.replicas, ready: o.replicas, updated: o.replicas };
    if (JSON.stringify(got) !== JSON.stringify(want)) return `${name}: status ${JSON.stringify(got)}`;
    const available = st.conditions?.find((c) => c.type === 'Available');
    if (available?.status !== 'True') return `${name}: Available ${available?.status ?? 'absent'}`;
    const all = s.pods.filter((p) => p.metadata.labels?.[LWS_NAME_LABEL] === name);
    const live = lwsPodsOf(s, name);
    const total = o.replicas * o.size;
    if (all.length !== total || live.length !== total)
      return `${name}: ${live.length}/${all.length} pods, want ${total}`;
    const notReady = live.filter((p) => p.status?.phase !== 'Running' || !isPodReady(p)).length;
    if (notReady > 0) return `${name}: ${notReady} pods not ready`;
    if (live.some((p) => restartsOf(p) > 0)) return `${name}: a pod with a container restart is still there`;
    if (o.image !== undefined && live.some((p) => imageOf(p) !== o.image))
      return `${name}: not every pod on ${o.image}`;
    return true;
  };

/** Live pods of the LWS `name` by state: leaders and workers, Running and Ready, or Pending. */
export const lwsPodCounts =
  (name: string, want: { leadersPending?: number; leadersReady?: number; workersReady?: number; workers?: number }) =>
  (s: Snapshot): Check => {
    const pods = lwsPodsOf(s, name);
    const leader = (p: Pod): boolean => p.metadata.labels?.[WORKER_INDEX_LABEL] === '0';
    const ready = (p: Pod): boolean => p.status?.phase === 'Running' && isPodReady(p);
    const got = {
      leadersPending: pods.filter((p) => leader(p) && p.status?.phase === 'Pending').length,
      leadersReady: pods.filter((p) => leader(p) && ready(p)).length,
      workersReady: pods.filter((p) => !leader(p) && ready(p)).length,
      workers: pods.filter((p) => !leader(p)).length,
    };
    for (const k of Object.keys(want) as Array<keyof typeof want>)
      if (want[k] !== got[k]) return `${name}: pods ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
    return true;
  };

/** The StatefulSets (leader and workers) of the LWS `name`, by name, not being deleted, are exactly `names`. */
export const lwsStatefulSets =
  (name: string, names: readonly string[]) =>
  (s: Snapshot): Check => {
    const got = statefulSetsOf(s)
      .filter((x) => x.metadata.labels?.[LWS_NAME_LABEL] === name && !isTerminating(x.metadata))
      .map((x) => x.metadata.name ?? '')
      .sort();
    const want = [...names].sort();
    return JSON.stringify(got) === JSON.stringify(want) || `StatefulSets ${got.join(', ')}, want ${want.join(', ')}`;
  };

/** The LWS `name`'s condition `type` has `status`. */
export const lwsCondition =
  (name: string, type: string, status: string) =>
  (s: Snapshot): Check => {
    const c = (findLeaderWorkerSet(s, name)?.status as LwsStatus | undefined)?.conditions?.find((x) => x.type === type);
    return c?.status === status || `${name} condition ${type}: ${c?.status ?? 'absent'}, want ${status}`;
  };

/**
 * A memory of pod uids per side (by the snapshot's namespace): `note` records the uids of the named pods (a
 * step that always holds), `replaced` holds once each of them is live with a different uid.
 */
export function podUids(): {
  note: (...pods: string[]) => (s: Snapshot) => Check;
  replaced: (...pods: string[]) => (s: Snapshot) => Check;
} {
  const seen = new Map<string, string | undefined>();
  const key = (s: Snapshot, pod: string): string => `${s.namespace ?? ''}/${pod}`;
  const uidOf = (s: Snapshot, pod: string): string | undefined =>
    s.pods.find((p) => p.metadata.name === pod && isLive(p))?.metadata.uid;
  return {
    note:
      (...pods) =>
      (s) => {
        for (const pod of pods) seen.set(key(s, pod), uidOf(s, pod));
        return pods.every((pod) => seen.get(key(s, pod)) !== undefined) || `pods ${pods.join(', ')} not all live`;
      },
    replaced:
      (...pods) =>
      (s) => {
        const left = pods.filter((pod) => {
          const now = uidOf(s, pod);
          return now === undefined || now === seen.get(key(s, pod));
        });
        return left.length === 0 || `${left.join(', ')} not replaced yet`;
      },
  };
}

/**
 * A group never mixes revisions: every live pod of a worker StatefulSet whose controller is a live leader pod has
 * that leader's template-revision-hash, as does the worker StatefulSet's template. Workers of a leader already
 * gone (the garbage collector removes them) are not that leader's group any more and are left alone.
 */
export function groupRevisionsNotMixed(name: string): Invariant {
  return {
    name: `${name}: a group's workers have their leader's revision`,
    graceMs: 0,
    check(s) {
      const leaders = new Map(
        lwsPodsOf(s, name)
          .filter((p) => p.metadata.labels?.[WORKER_INDEX_LABEL] === '0')
          .map((p) => [p.metadata.uid, p]),
      );
      for (const set of statefulSetsOf(s) as StatefulSetJson[]) {
        const owner = controllerOf(set.metadata);
        const leader = owner?.kind === 'Pod' ? leaders.get(owner.uid) : undefined;
        if (leader === undefined) continue;
        const want = leader.metadata.labels?.[TEMPLATE_REVISION_LABEL];
        const templateLabels = (set.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
        if (templateLabels[TEMPLATE_REVISION_LABEL] !== want)
          return `worker StatefulSet ${set.metadata.name} template at ${templateLabels[TEMPLATE_REVISION_LABEL]}, leader ${leader.metadata.name} at ${want}`;
        for (const p of s.pods) {
          if (controllerOf(p.metadata)?.uid !== set.metadata.uid || !isLive(p)) continue;
          const rev = p.metadata.labels?.[TEMPLATE_REVISION_LABEL];
          if (rev !== want) return `worker ${p.metadata.name} at ${rev}, leader ${leader.metadata.name} at ${want}`;
        }
      }
      return null;
    },
  };
}
