// The environment lws v0.9.0's pod webhook gives a group's pods: pkg/utils/pod AddLWSVariables (LWS_LEADER_ADDRESS,
// LWS_GROUP_SIZE, LWS_WORKER_INDEX first in every container's and init container's env) and pkg/utils/accelerators
// AddTPUVariables (TPU_* for the containers that request google.com/tpu), with the Go helpers the webhook shares
// (strconv.Atoi's errors, Go's integer division, the StatefulSet ordinal of a pod name).
import { parseGoQuantity } from '../controllers/common/go-quantity.js';
import {
  EnvVar,
  GROUP_INDEX_LABEL,
  LEADER_REQUESTS_TPUS_ANNOTATION,
  SET_NAME_LABEL,
  SIZE_ANNOTATION,
  SUBGROUP_INDEX_LABEL,
  SUBGROUP_SIZE_ANNOTATION,
  TPU_PROCESS_DEFAULT_PORT,
  TPU_RESOURCE_NAME,
  TpuEnvVar,
  WORKER_INDEX_LABEL,
} from '../controllers/leaderworkerset/types.js';
import { goQuote } from './field-errors.js';
import { DIVIDE_BY_ZERO_PANIC } from './lws-validation.js';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An error upstream's webhook returns: controller-runtime denies the pod with its text. */
export class Refusal extends Error {}
/** Where upstream's Go panics: controller-runtime answers 500 with the panic's text. */
export class GoPanic extends Error {}

/** The pod being mutated: its label and annotation maps and spec are the copy's own objects. */
export type Pod = {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Json;
  readonly subdomain: string;
};

// --- Go helpers --------------------------------------------------------------------------------------------------

/** strconv.Atoi, throwing its error text. */
export function atoi(s: string): number {
  if (/^[+-]?[0-9]+$/.test(s)) {
    const n = BigInt(s);
    if (n <= 9223372036854775807n && n >= -9223372036854775808n) return Number(n);
    throw new Refusal(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  }
  throw new Refusal(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
}
/** Go's int `a % b` and `a / b`: truncated, a panic when b is 0. */
export function goMod(a: number, b: number): number {
  if (b === 0) throw new GoPanic(DIVIDE_BY_ZERO_PANIC);
  return a % b === 0 ? 0 : a % b;
}
export function goDiv(a: number, b: number): number {
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
export const tpuContainers = (spec: Json) =>
  [...containersOf(spec, 'containers'), ...containersOf(spec, 'initContainers')].filter(requestsTPUs);

function addTPUVariablesSubGroup(pod: Pod): void {
  const container = tpuContainers(pod.spec)[0];
  if (container === undefined) return;
  if (envOf(container).some((e) => e.name === TpuEnvVar.WorkerHostNames || e.name === TpuEnvVar.WorkerId)) return;
  let leaderName = pod.name;
  const subGroupSize = atoi(pod.annotations[SUBGROUP_SIZE_ANNOTATION] ?? '');
  const subGroupIndex = atoi(pod.labels[SUBGROUP_INDEX_LABEL] ?? '');
  const workerIndex = atoi(pod.labels[WORKER_INDEX_LABEL] ?? '');
  const leaderRequestsTPUs = pod.annotations[LEADER_REQUESTS_TPUS_ANNOTATION] === 'true';
  let tpuWorkerId = goMod(workerIndex, subGroupSize);
  if (!leaderRequestsTPUs) tpuWorkerId = goMod(workerIndex - 1, subGroupSize);
  const ownPort = envValue(container, TpuEnvVar.ProcessPort);
  const port = ownPort ?? String(TPU_PROCESS_DEFAULT_PORT);
  let start = subGroupSize * subGroupIndex + 1;
  let end = subGroupSize * (subGroupIndex + 1);
  const hostnames: string[] = [];
  const addresses: string[] = [];
  if (pod.labels[WORKER_INDEX_LABEL] === '0') {
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
export function addTPUVariables(pod: Pod, size: number): void {
  if (Object.hasOwn(pod.annotations, SUBGROUP_SIZE_ANNOTATION)) {
    addTPUVariablesSubGroup(pod);
    return;
  }
  const containers = tpuContainers(pod.spec);
  if (containers.length === 0) return;
  if (envOf(containers[0]!).some((e) => e.name === TpuEnvVar.WorkerHostNames || e.name === TpuEnvVar.WorkerId)) return;
  const isLeader = pod.labels[WORKER_INDEX_LABEL] === '0';
  const leaderRequestsTPUs = pod.annotations[LEADER_REQUESTS_TPUS_ANNOTATION] === 'true';
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
export function addLWSVariables(pod: Pod): void {
  const kObj = pod.namespace === '' ? pod.name : `${pod.namespace}/${pod.name}`;
  const missing = (what: string) =>
    new Refusal(`Failure constructing environment variables, no ${what} found for pod ${kObj}`);
  const lwsName = pod.labels[SET_NAME_LABEL];
  if (lwsName === undefined) throw missing('name label');
  const groupIndex = pod.labels[GROUP_INDEX_LABEL];
  if (groupIndex === undefined) throw missing('group index label');
  const size = pod.annotations[SIZE_ANNOTATION];
  if (size === undefined) throw missing('size annotation');
  const workerIndex = pod.labels[WORKER_INDEX_LABEL];
  if (workerIndex === undefined) throw missing('worker index label');
  const vars = [
    { name: EnvVar.LeaderAddress, value: `${lwsName}-${groupIndex}.${pod.subdomain}.${pod.namespace}` },
    { name: EnvVar.GroupSize, value: size },
    { name: EnvVar.WorkerIndex, value: workerIndex },
  ];
  for (const c of containersOf(pod.spec, 'containers')) putFirst(c, vars);
  for (const c of containersOf(pod.spec, 'initContainers')) putFirst(c, vars);
}
