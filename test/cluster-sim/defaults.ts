// The defaults the apiserver fills in on create and update (pkg/apis/apps/v1/defaults.go, core/v1/defaults.go), as
// far as they reach what fleetq reads or hashes: the pod-template-hash is computed over the defaulted template, so a
// template defaulted otherwise than the real apiserver's would name ReplicaSets differently.
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

function setDefault(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

function defaultContainer(c: Obj): void {
  const image = typeof c.image === 'string' ? c.image : '';
  const tag = image.includes('@') ? 'digest' : (/:([^/:]+)$/.exec(image)?.[1] ?? 'latest');
  setDefault(c, 'imagePullPolicy', tag === 'latest' ? 'Always' : 'IfNotPresent');
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  setDefault(c, 'resources', {});
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) setDefault(p, 'protocol', 'TCP');
}

export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (Array.isArray(cs)) for (const c of cs) if (isObj(c)) defaultContainer(c);
  }
  if (Array.isArray(spec.tolerations)) {
    for (const t of spec.tolerations) if (isObj(t) && t.operator === undefined) t.operator = 'Equal';
  }
}

function defaultTemplate(spec: Obj): void {
  defaultPodSpec(obj(obj(spec, 'template'), 'spec'));
}

/** Fills in the defaults of a Deployment, ReplicaSet or Pod in place (other kinds: none). */
export function applyDefaults(kind: string, o: Obj): void {
  if (kind === 'Deployment') {
    const spec = obj(o, 'spec');
    setDefault(spec, 'replicas', 1);
    const strategy = obj(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = obj(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultTemplate(spec);
  } else if (kind === 'ReplicaSet') {
    const spec = obj(o, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultTemplate(spec);
  } else if (kind === 'Pod') {
    const spec = obj(o, 'spec');
    defaultPodSpec(spec);
    setDefault(spec, 'enableServiceLinks', true);
    setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
    setDefault(spec, 'priority', 0);
    const status = obj(o, 'status');
    setDefault(status, 'phase', 'Pending');
    setDefault(status, 'qosClass', 'BestEffort');
  }
}

/**
 * The apiserver decodes a write into Go types and encodes them back: an `int32` field tagged `omitempty` that is 0
 * is gone from what it stores and serves (a status written with `availableReplicas: 0` reads back without it).
 * Pointer fields (`spec.replicas`, `revisionHistoryLimit`, `terminatingReplicas`, `collisionCount`, ...) keep 0.
 * The non-pointer `omitempty` integers of apps/v1 Deployment and ReplicaSet (k8s.io/api/apps/v1/types.go).
 */
const OMITTED_ZEROS: Readonly<Record<string, { spec: readonly string[]; status: readonly string[] }>> = {
  Deployment: {
    spec: ['minReadySeconds'],
    status: [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
    ],
  },
  ReplicaSet: {
    spec: ['minReadySeconds'],
    status: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  },
};

export function dropOmittedZeros(kind: string, o: Obj): void {
  const fields = OMITTED_ZEROS[kind];
  if (!fields) return;
  for (const part of ['spec', 'status'] as const) {
    const v = o[part];
    if (isObj(v)) for (const k of fields[part]) if (v[k] === 0) delete v[k];
  }
}
