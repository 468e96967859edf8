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
// The environment is set by lws-pod-env.ts. A pod upstream refuses gets `refusal` (controller-runtime answers
// Denied: code 403, reason Forbidden, the error's text); where upstream's Go divides by zero, `panic` (answered
// with code 500 and the panic's text).
import { createHash } from 'node:crypto';
import type { JsonPatchOp } from './jobset-defaults.js';
import {
  EXCLUSIVE_KEY_ANNOTATION,
  GROUP_INDEX_LABEL,
  GROUP_UNIQUE_HASH_LABEL,
  LEADER_POD_NAME_ANNOTATION,
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
  WORKER_INDEX_LABEL,
} from '../controllers/leaderworkerset/types.js';

import type { Json, Pod } from './lws-pod-env.js';
import {
  addLWSVariables,
  addTPUVariables,
  atoi,
  goDiv,
  goMod,
  GoPanic,
  isObject,
  parentNameAndOrdinal,
  Refusal,
  tpuContainers,
} from './lws-pod-env.js';

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
} as const;

export type PodMutation = { pod: Json; patch: JsonPatchOp[] } | { refusal: string } | { panic: string };

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

// --- the webhook -------------------------------------------------------------------------------------------------

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
