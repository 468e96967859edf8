// The pod mutating webhook of lws v0.9.0 (pkg/webhooks/pod_webhook.go Default, with pkg/utils/pod AddLWSVariables
// and pkg/utils/accelerators AddTPUVariables), ported: a pod a LeaderWorkerSet's StatefulSets create (it carries
// the leaderworkerset.sigs.k8s.io/name label) gets, in upstream's order,
//   leader (worker-index "0"): group-index (its ordinal) when absent; spec.subdomain = its name under the
//     UniquePerReplica subdomain policy; group-key = sha1("<namespace>/<name>") when absent; the exclusive-topology
//     affinities; subgroup-index "0" and subgroup-key = sha1("<name>/0") unless the policy is LeaderExcluded;
//   worker: worker-index (its ordinal); subgroup-index and subgroup-key from its leader's name;
//   every container and init container: LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX first in its env,
//     and, in a pod that requests google.com/tpu, the TPU_* variables.
// The template-revision-hash label is not the webhook's: the controller puts it on the StatefulSets' templates.
// Upstream's optional gang-scheduling provider (volcano, off unless configured) is not ported.
//
// A pod upstream refuses gets `refusal` (controller-runtime answers Denied: code 403, reason Forbidden, the error's
// text); where upstream's Go divides by zero, `panic` (answered with code 500 and the panic's text).
import { createHash } from 'node:crypto';
import { parseGoQuantity } from '../controllers/common/go-quantity.js';
import { goQuote } from './field-errors.js';
import type { JsonPatchOp } from './jobset-defaults.js';
import { DIVIDE_BY_ZERO_PANIC } from './lws-validation.js';
import {
  EnvVar,
  EXCLUSIVE_KEY_ANNOTATION,
  GROUP_INDEX_LABEL,
  GROUP_UNIQUE_HASH_LABEL,
  LEADER_POD_NAME_ANNOTATION,
  LEADER_REQUESTS_TPUS_ANNOTATION,
  SET_NAME_LABEL,
  SIZE_ANNOTATION,
  SUBDOMAIN_POLICY_ANNOTATION,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_INDEX_LABEL,
  SUBGROUP_POLICY_TYPE_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
  SUBGROUP_UNIQUE_HASH_LABEL,
  SubdomainPolicy,
  SubGroupPolicyType,
  TPU_PROCESS_DEFAULT_PORT,
  TPU_RESOURCE_NAME,
  TpuEnvVar,
  WORKER_INDEX_LABEL,
} from '../controllers/leaderworkerset/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pod's labels and annotations the webhook reads and writes. */
const Key = {
  SetName: SET_NAME_LABEL,
  GroupIndex: GROUP_INDEX_LABEL,
  WorkerIndex: WORKER_INDEX_LABEL,
  GroupKey: GROUP_UNIQUE_HASH_LABEL,
  SubGroupIndex: SUBGROUP_INDEX_LABEL,
  SubGroupKey: SUBGROUP_UNIQUE_HASH_LABEL,
  Size: SIZE_ANNOTATION,
  LeaderName: LEADER_POD_NAME_ANNOTATION,
  ExclusiveTopology: EXCLUSIVE_KEY_ANNOTATION,
  SubGroupExclusiveTopology: SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SubGroupSize: SUBGROUP_SIZE_ANNOTATION,
  SubGroupPolicyType: SUBGROUP_POLICY_TYPE_ANNOTATION,
  SubdomainPolicy: SUBDOMAIN_POLICY_ANNOTATION,
  LeaderRequestsTPUs: LEADER_REQUESTS_TPUS_ANNOTATION,
} as const;

export type PodMutation = { pod: Json; patch: JsonPatchOp[] } | { refusal: string } | { panic: string };

class Refusal extends Error {}
class GoPanic extends Error {}

// --- Go helpers --------------------------------------------------------------------------------------------------

/** strconv.Atoi, throwing its error text. */
function atoi(s: string): number {
  if (/^[+-]?[0-9]+$/.test(s)) {
    const n = BigInt(s);
    if (n <= 9223372036854775807n && n >= -9223372036854775808n) return Number(n);
    throw new Refusal(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  }
  throw new Refusal(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
}
/** Go's int `a % b` and `a / b`: truncated, a panic when b is 0. */
function goMod(a: number, b: number): number {
  if (b === 0) throw new GoPanic(DIVIDE_BY_ZERO_PANIC);
  return a % b === 0 ? 0 : a % b;
}
function goDiv(a: number, b: number): number {
  if (b === 0) throw new GoPanic(DIVIDE_BY_ZERO_PANIC);
  return Math.trunc(a / b);
}

/** statefulsetutils.GetParentNameAndOrdinal: `(.*)-([0-9]+)$`; the ordinal is -1 when absent or past int32. */
export function parentNameAndOrdinal(name: string): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(name);
  if (m === null) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1]!, ordinal: n <= 2147483647 ? n : -1 };
}

const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');
/** genGroupUniqueKey(a, b): sha1("a/b"). */
export const groupUniqueKey = (a: string, b: string) => sha1(`${a}/${b}`);

// --- affinity ----------------------------------------------------------------------------------------------------

const terms = (v: unknown): Json[] =>
  isObject(v) && Array.isArray(v.requiredDuringSchedulingIgnoredDuringExecution)
    ? (v.requiredDuringSchedulingIgnoredDuringExecution as Json[])
    : [];

function exclusiveAffinityApplied(spec: Json, topologyKey: string): boolean {
  const affinity = spec.affinity;
  if (!isObject(affinity) || !isObject(affinity.podAffinity) || !isObject(affinity.podAntiAffinity)) return false;
  const has = (v: unknown) => terms(v).some((t) => isObject(t) && (t.topologyKey ?? '') === topologyKey);
  return has(affinity.podAffinity) && has(affinity.podAntiAffinity);
}

/** SetExclusiveAffinities: pods sharing `key` under `labelKey` together on one `topologyKey` domain, and alone. */
function setExclusiveAffinities(spec: Json, key: string, topologyKey: string, labelKey: string): void {
  if (exclusiveAffinityApplied(spec, topologyKey)) return;
  if (!isObject(spec.affinity)) spec.affinity = {};
  const affinity = spec.affinity as Json;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    if (!isObject(affinity[kind])) affinity[kind] = {};
    const a = affinity[kind] as Json;
    if (!Array.isArray(a.requiredDuringSchedulingIgnoredDuringExecution)) {
      a.requiredDuringSchedulingIgnoredDuringExecution = [];
    }
  }
  (terms(affinity.podAffinity) as unknown[]).push({
    labelSelector: { matchExpressions: [{ key: labelKey, operator: 'In', values: [key] }] },
    topologyKey,
  });
  (terms(affinity.podAntiAffinity) as unknown[]).push({
    labelSelector: {
      matchExpressions: [
        { key: labelKey, operator: 'Exists' },
        { key: labelKey, operator: 'NotIn', values: [key] },
      ],
    },
    topologyKey,
  });
}

// --- environment -------------------------------------------------------------------------------------------------

const containersOf = (spec: Json, field: 'containers' | 'initContainers'): Json[] =>
  Array.isArray(spec[field]) ? (spec[field] as unknown[]).filter(isObject) : [];
const envOf = (c: Json): Json[] => (Array.isArray(c.env) ? (c.env as unknown[]).filter(isObject) : []);
const envValue = (c: Json, name: string): string | undefined => {
  const e = envOf(c).find((x) => x.name === name);
  return e === undefined ? undefined : typeof e.value === 'string' ? e.value : '';
};
const appendEnv = (c: Json, ...vars: { name: string; value: string }[]) => {
  c.env = [...envOf(c), ...vars];
};

/** addEnvVarsIfNotExists: `first` and `rest` lead, then the container's own variables not already named. */
function putFirst(c: Json, vars: { name: string; value: string }[]): void {
  const seen = new Set(vars.map((v) => v.name));
  const env: Json[] = [...vars];
  for (const e of envOf(c)) {
    const name = typeof e.name === 'string' ? e.name : '';
    if (!seen.has(name)) {
      env.push(e);
      seen.add(name);
    }
  }
  c.env = env;
}

/** numTPUsRequested(c) != 0: the limit if it is not zero, else the request. */
function requestsTPUs(c: Json): boolean {
  const resources = isObject(c.resources) ? c.resources : {};
  for (const list of [resources.limits, resources.requests]) {
    if (!isObject(list)) continue;
    const raw = list[TPU_RESOURCE_NAME];
    if (raw === undefined || raw === null) continue;
    const q = parseGoQuantity(String(raw));
    if (q !== null && (q.kind === 'int' ? q.value !== 0n : q.unscaled !== 0n)) return true;
  }
  return false;
}
const tpuContainers = (spec: Json) =>
  [...containersOf(spec, 'containers'), ...containersOf(spec, 'initContainers')].filter(requestsTPUs);

function addTPUVariablesSubGroup(pod: Pod): void {
  const container = tpuContainers(pod.spec)[0];
  if (container === undefined) return;
  if (envOf(container).some((e) => e.name === TpuEnvVar.WorkerHostNames || e.name === TpuEnvVar.WorkerId)) return;
  let leaderName = pod.name;
  const subGroupSize = atoi(pod.annotations[Key.SubGroupSize] ?? '');
  const subGroupIndex = atoi(pod.labels[Key.SubGroupIndex] ?? '');
  const workerIndex = atoi(pod.labels[Key.WorkerIndex] ?? '');
  const leaderRequestsTPUs = pod.annotations[Key.LeaderRequestsTPUs] === 'true';
  let tpuWorkerId = goMod(workerIndex, subGroupSize);
  if (!leaderRequestsTPUs) tpuWorkerId = goMod(workerIndex - 1, subGroupSize);
  const ownPort = envValue(container, TpuEnvVar.ProcessPort);
  const port = ownPort ?? String(TPU_PROCESS_DEFAULT_PORT);
  let start = subGroupSize * subGroupIndex + 1;
  let end = subGroupSize * (subGroupIndex + 1);
  const hostnames: string[] = [];
  const addresses: string[] = [];
  if (pod.labels[Key.WorkerIndex] === '0') {
    hostnames.push(`${leaderName}.${pod.subdomain}`);
    addresses.push(`${leaderName}.${pod.subdomain}:${port}`);
    end -= 1;
  } else {
    leaderName = parentNameAndOrdinal(pod.name).parent;
    if (leaderName === '') throw new Refusal(`parsing parent name from pod ${pod.name}`);
    if (leaderRequestsTPUs && subGroupIndex === 0) {
      end -= 1;
      hostnames.push(`${leaderName}.${pod.subdomain}`);
      addresses.push(`${leaderName}.${pod.subdomain}:${port}`);
    } else if (leaderRequestsTPUs) {
      start -= 1;
      end -= 1;
    }
  }
  for (let i = start; i <= end; i++) {
    hostnames.push(`${leaderName}-${i}.${pod.subdomain}`);
    addresses.push(`${leaderName}-${i}.${pod.subdomain}:${port}`);
  }
  appendEnv(
    container,
    { name: TpuEnvVar.WorkerHostNames, value: hostnames.join(',') },
    { name: TpuEnvVar.WorkerId, value: String(tpuWorkerId) },
    { name: TpuEnvVar.Name, value: leaderName },
    { name: TpuEnvVar.ProcessAddresses, value: addresses.join(',') },
  );
  if (ownPort === undefined) appendEnv(container, { name: TpuEnvVar.ProcessPort, value: port });
}

/** AddTPUVariables(pod, size). */
function addTPUVariables(pod: Pod, size: number): void {
  if (Object.hasOwn(pod.annotations, Key.SubGroupSize)) {
    addTPUVariablesSubGroup(pod);
    return;
  }
  const containers = tpuContainers(pod.spec);
  if (containers.length === 0) return;
  if (envOf(containers[0]!).some((e) => e.name === TpuEnvVar.WorkerHostNames || e.name === TpuEnvVar.WorkerId)) return;
  const isLeader = pod.labels[Key.WorkerIndex] === '0';
  const leaderRequestsTPUs = pod.annotations[Key.LeaderRequestsTPUs] === 'true';
  let leaderPodName: string;
  let podWorkerIndex: number;
  if (isLeader) {
    leaderPodName = pod.name;
    podWorkerIndex = 0;
  } else {
    ({ parent: leaderPodName, ordinal: podWorkerIndex } = parentNameAndOrdinal(pod.name));
    if (leaderPodName === '') throw new Refusal(`parsing parent name from pod ${pod.name}`);
    if (!leaderRequestsTPUs) podWorkerIndex -= 1;
  }
  const n = containers.length;
  const ports = containers.map((c, i) => envValue(c, TpuEnvVar.ProcessPort) ?? String(TPU_PROCESS_DEFAULT_PORT + i));
  const hostnames: string[] = [];
  const addresses: string[] = [];
  if (leaderRequestsTPUs || isLeader) {
    const host = `${leaderPodName}.${pod.subdomain}`;
    for (let i = 0; i < n; i++) {
      hostnames.push(host);
      addresses.push(`${host}:${ports[i]}`);
    }
  }
  for (let i = 1; i <= size - 1; i++) {
    const host = `${leaderPodName}-${i}.${pod.subdomain}`;
    for (let j = 0; j < n; j++) {
      hostnames.push(host);
      addresses.push(`${host}:${ports[j]}`);
    }
  }
  containers.forEach((c, i) => {
    const hasPort = envValue(c, TpuEnvVar.ProcessPort) !== undefined;
    appendEnv(
      c,
      { name: TpuEnvVar.WorkerHostNames, value: hostnames.join(',') },
      { name: TpuEnvVar.WorkerId, value: String(podWorkerIndex * n + i) },
      { name: TpuEnvVar.Name, value: leaderPodName },
      { name: TpuEnvVar.ProcessAddresses, value: addresses.join(',') },
    );
    if (!hasPort) appendEnv(c, { name: TpuEnvVar.ProcessPort, value: ports[i]! });
  });
}

/** podutils.AddLWSVariables. */
function addLWSVariables(pod: Pod): void {
  const kObj = pod.namespace === '' ? pod.name : `${pod.namespace}/${pod.name}`;
  const missing = (what: string) =>
    new Refusal(`Failure constructing environment variables, no ${what} found for pod ${kObj}`);
  const lwsName = pod.labels[Key.SetName];
  if (lwsName === undefined) throw missing('name label');
  const groupIndex = pod.labels[Key.GroupIndex];
  if (groupIndex === undefined) throw missing('group index label');
  const size = pod.annotations[Key.Size];
  if (size === undefined) throw missing('size annotation');
  const workerIndex = pod.labels[Key.WorkerIndex];
  if (workerIndex === undefined) throw missing('worker index label');
  const vars = [
    { name: EnvVar.LeaderAddress, value: `${lwsName}-${groupIndex}.${pod.subdomain}.${pod.namespace}` },
    { name: EnvVar.GroupSize, value: size },
    { name: EnvVar.WorkerIndex, value: workerIndex },
  ];
  for (const c of containersOf(pod.spec, 'containers')) putFirst(c, vars);
  for (const c of containersOf(pod.spec, 'initContainers')) putFirst(c, vars);
}

// --- the webhook -------------------------------------------------------------------------------------------------

/** The pod being mutated: its label and annotation maps and spec are the copy's own objects. */
type Pod = {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Json;
  readonly subdomain: string;
};

function mutate(pod: Pod): void {
  const sizeText = pod.annotations[Key.Size];
  if (sizeText === undefined) throw new Refusal(`size annotation is unexpectedly missing for pod ${pod.name}`);
  const podCount = atoi(sizeText);
  if (pod.labels[Key.WorkerIndex] === '0') {
    if (!Object.hasOwn(pod.labels, Key.GroupIndex)) {
      const { ordinal } = parentNameAndOrdinal(pod.name);
      if (ordinal === -1) throw new Refusal(`parsing pod ordinal for pod ${pod.name}`);
      pod.labels[Key.GroupIndex] = String(ordinal);
    }
    if (pod.annotations[Key.SubdomainPolicy] === SubdomainPolicy.UniquePerReplica) pod.spec.subdomain = pod.name;
    let groupKey = pod.labels[Key.GroupKey];
    if (groupKey === undefined) {
      groupKey = groupUniqueKey(pod.namespace, pod.name);
      pod.labels[Key.GroupKey] = groupKey;
    }
    const topology = pod.annotations[Key.ExclusiveTopology];
    if (topology !== undefined) setExclusiveAffinities(pod.spec, groupKey, topology, Key.GroupKey);
    if (
      Object.hasOwn(pod.annotations, Key.SubGroupSize) &&
      (pod.labels[Key.SubGroupIndex] ?? '') === '' &&
      pod.annotations[Key.SubGroupPolicyType] !== SubGroupPolicyType.LeaderExcluded
    ) {
      pod.labels[Key.SubGroupIndex] = '0';
      const subGroupKey = groupUniqueKey(pod.name, '0');
      pod.labels[Key.SubGroupKey] = subGroupKey;
      const subTopology = pod.annotations[Key.SubGroupExclusiveTopology];
      if (subTopology !== undefined) setExclusiveAffinities(pod.spec, subGroupKey, subTopology, Key.SubGroupKey);
    }
  } else {
    const { ordinal: workerIndex } = parentNameAndOrdinal(pod.name);
    if (workerIndex === -1) throw new Refusal(`parsing pod ordinal for pod ${pod.name}`);
    pod.labels[Key.WorkerIndex] = String(workerIndex);
    const subGroupSizeText = pod.annotations[Key.SubGroupSize];
    if (subGroupSizeText !== undefined && (pod.labels[Key.SubGroupIndex] ?? '') === '') {
      const subGroupSize = atoi(subGroupSizeText);
      const leaderName = pod.annotations[Key.LeaderName] ?? '';
      // getSubGroupIndex: when size - 1 divides evenly, the leader is the extra pod of the first subgroup.
      const index =
        goMod(podCount - 1, subGroupSize) === 0
          ? goDiv(workerIndex - 1, subGroupSize)
          : goDiv(workerIndex, subGroupSize);
      pod.labels[Key.SubGroupIndex] = String(index);
      const subGroupKey = groupUniqueKey(leaderName, String(index));
      pod.labels[Key.SubGroupKey] = subGroupKey;
      const subTopology = pod.annotations[Key.SubGroupExclusiveTopology];
      if (subTopology !== undefined) setExclusiveAffinities(pod.spec, subGroupKey, subTopology, Key.SubGroupKey);
    }
  }
  if (tpuContainers(pod.spec).length > 0) addTPUVariables(pod, podCount);
  addLWSVariables(pod);
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'string' ? x : '';
  return out;
};

/** Default() on a pod as raw JSON: the mutated copy and the patch, or upstream's refusal. Never throws. */
export function mutateLwsPod(input: unknown): PodMutation {
  if (!isObject(input)) return { pod: {}, patch: [] };
  const meta = isObject(input.metadata) ? input.metadata : {};
  const labels = stringMap(meta.labels);
  if (!Object.hasOwn(labels, Key.SetName)) return { pod: input, patch: [] };
  const before = structuredClone(input);
  const out = structuredClone(input);
  const spec = (isObject(out.spec) ? out.spec : (out.spec = {})) as Json;
  const pod: Pod = {
    name: typeof meta.name === 'string' ? meta.name : '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    labels,
    annotations: stringMap(meta.annotations),
    spec,
    get subdomain() {
      return typeof spec.subdomain === 'string' ? spec.subdomain : '';
    },
  };
  try {
    mutate(pod);
  } catch (err) {
    if (err instanceof Refusal) return { refusal: err.message };
    if (err instanceof GoPanic) return { panic: err.message };
    throw err;
  }

  const patch: JsonPatchOp[] = [];
  const beforeLabels = (before.metadata as Json).labels as Json;
  for (const [k, v] of Object.entries(pod.labels)) {
    if (beforeLabels[k] === v) continue;
    patch.push({
      op: beforeLabels[k] === undefined ? 'add' : 'replace',
      path: `/metadata/labels/${escape(k)}`,
      value: v,
    });
  }
  (out.metadata as Json).labels = { ...(beforeLabels ?? {}), ...pod.labels };
  const beforeSpec = isObject(before.spec) ? before.spec : undefined;
  if (beforeSpec === undefined) {
    patch.push({ op: 'add', path: '/spec', value: structuredClone(spec) });
    return { pod: out, patch };
  }
  const field = (path: string, was: unknown, now: unknown) => {
    if (JSON.stringify(was) === JSON.stringify(now)) return;
    patch.push({ op: was === undefined ? 'add' : 'replace', path, value: structuredClone(now) });
  };
  field('/spec/subdomain', beforeSpec.subdomain, spec.subdomain);
  field('/spec/affinity', beforeSpec.affinity, spec.affinity);
  for (const kind of ['containers', 'initContainers'] as const) {
    const was = Array.isArray(beforeSpec[kind]) ? (beforeSpec[kind] as unknown[]) : [];
    const now = Array.isArray(spec[kind]) ? (spec[kind] as unknown[]) : [];
    now.forEach((c, i) => {
      if (isObject(c)) field(`/spec/${kind}/${i}/env`, (was[i] as Json | undefined)?.env, c.env);
    });
  }
  return { pod: out, patch };
}
