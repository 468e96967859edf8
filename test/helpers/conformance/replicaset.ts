// The ReplicaSet's reading of a snapshot: a Deployment's ReplicaSet is named by the revision that carries it
// (`web@2`), any other by its name, and one gone by the time of an Event as `deleted`; pod-template-hash values are
// compared by equivalence class (each hash must be consistent with its ReplicaSet's name, selector, template and
// pods), and byte for byte only when asked. ReplicaSets are listed on every poll (Deployments create them).
import { HASH_LABEL, controllerOf, revisionOf, templateIgnoringHash } from './model.js';
import type { ConformancePlugin, Naming, ObjectNames } from './plugin.js';
import type { Labels, Pod, PodTemplate, ReplicaSet, Snapshot } from './types.js';

const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** `web@3` for a Deployment's ReplicaSet, the name for any other. */
export function replicaSetKey(s: Snapshot, rs: ReplicaSet): string {
  const owner = controllerOf(rs.metadata);
  if (owner?.kind === 'Deployment') {
    const d = s.deployments.find((x) => x.metadata.uid === owner.uid);
    return `${d?.metadata.name ?? owner.name}@${revisionOf(rs)}`;
  }
  return rs.metadata.name ?? '?';
}

/** A template as compared: without the hash label, time-valued annotations (kubectl rollout restart) as `<time>`. */
export function comparedTemplate(t: PodTemplate): unknown {
  const base = templateIgnoringHash(t) as PodTemplate;
  const ann = base.metadata?.annotations;
  if (ann?.[RESTARTED_AT] === undefined) return base;
  return { ...base, metadata: { ...base.metadata, annotations: { ...ann, [RESTARTED_AT]: '<time>' } } };
}

type Keys = { byUid: Map<string, string>; byName: Map<string, string>; hashes: Record<string, string> };

const keysOf = new WeakMap<Snapshot, Keys>();

/** Every ReplicaSet's key by uid and by name, and the hash label of each key (once per snapshot). */
function keys(s: Snapshot): Keys {
  const known = keysOf.get(s);
  if (known !== undefined) return known;
  const k: Keys = { byUid: new Map(), byName: new Map(), hashes: {} };
  for (const rs of s.replicaSets) {
    const key = replicaSetKey(s, rs);
    k.byUid.set(rs.metadata.uid ?? '', key);
    k.byName.set(rs.metadata.name ?? '', key);
    const h = rs.metadata.labels?.[HASH_LABEL];
    if (h !== undefined) k.hashes[key] = h;
  }
  keysOf.set(s, k);
  return k;
}

function names(s: Snapshot): ObjectNames {
  const k = keys(s);
  return {
    byOwnerRef: (r) => k.byUid.get(r.uid) ?? `${r.name}?`,
    byName: (name) => k.byName.get(name) ?? 'deleted',
    inText: k.byName,
  };
}

function withoutHash(labels: Labels | undefined): Labels {
  const out = { ...labels };
  delete out[HASH_LABEL];
  return out;
}

function normalizeReplicaSets(s: Snapshot, n: Naming): { replicaSets: Record<string, unknown> } {
  const k = keys(s);
  const replicaSets: Record<string, unknown> = {};
  for (const rs of s.replicaSets) {
    const key = k.byUid.get(rs.metadata.uid ?? '') ?? '?';
    const st = rs.status ?? {};
    const o = controllerOf(rs.metadata);
    const h = rs.metadata.labels?.[HASH_LABEL];
    replicaSets[key] = {
      owner: n.owner(rs.metadata),
      annotations: n.annotations(rs.metadata),
      spec: {
        replicas: rs.spec.replicas,
        selector: withoutHash(rs.spec.selector.matchLabels),
        minReadySeconds: rs.spec.minReadySeconds,
        template: comparedTemplate(rs.spec.template),
      },
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (rs.metadata.generation ?? 0),
        replicas: st.replicas,
        fullyLabeledReplicas: st.fullyLabeledReplicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        terminatingReplicas: st.terminatingReplicas,
      },
      conditions: n.conditions(st.conditions),
      ...(o?.kind === 'Deployment' && {
        hash: {
          labelled: h !== undefined,
          nameIsDeploymentDashHash: rs.metadata.name === `${o.name}-${h}`,
          selectorHasHash: rs.spec.selector.matchLabels?.[HASH_LABEL] === h,
          templateHasHash: rs.spec.template.metadata?.labels?.[HASH_LABEL] === h,
          unique: Object.values(k.hashes).filter((x) => x === h).length === 1,
        },
      }),
    };
  }
  return { replicaSets };
}

/** `hash≠owner`: the pod's pod-template-hash is not its ReplicaSet's. */
function hashChecks(s: Snapshot, p: Pod): string[] {
  const k = keys(s);
  const r = controllerOf(p.metadata);
  const key = r === undefined ? undefined : k.byUid.get(r.uid);
  const own = key === undefined ? undefined : k.hashes[key];
  return own !== undefined && p.metadata.labels?.[HASH_LABEL] !== own ? ['hash≠owner'] : [];
}

/** The ReplicaSet plug-in: ReplicaSets by revision key, their pods checked against their hash. */
export const replicaSetPlugin: ConformancePlugin = {
  kind: 'ReplicaSet',
  needs: ['ReplicaSet'],
  lists: [{ kind: 'ReplicaSet', field: 'replicaSets', always: true, before: 'Pod' }],
  names,
  normalize: normalizeReplicaSets,
  podChecks: hashChecks,
  hashes: (s) => keys(s).hashes,
};
