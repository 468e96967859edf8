// The JobSet's reading of a snapshot (jobset.x-k8s.io/v1alpha2, a CRD: listed into `custom`). A JobSet compares by
// its spec as admitted (the webhooks' defaults: upstream's manager on one side, fleetq's admission function on the
// other; empty values left out, as upstream's re-encoding adds them) and its status: conditions by type with reason
// and message, restarts, restartsCountTowardsMax, terminalState and replicatedJobsStatus by name. Its child Jobs
// (the Job plug-in compares their spec and status) add what the JobSet wrote on them: the jobset.sigs.k8s.io/* labels
// and annotations (the uid by presence, the job-key as the hash of its own namespaced name), suspend and their
// controller. Its headless Service compares by what the JobSet sets. JobSets are listed before the Jobs (a status
// counts Jobs already in the same sample), Services after.
import { createHash } from 'node:crypto';
import { controllerOf } from './model.js';
import type { ConformancePlugin, Naming } from './plugin.js';
import type { Check, Job, KubeEvent, KubeJson, Snapshot } from './types.js';
import { startJobSetAdmission, withoutEmpty } from '../sandbox/jobset-admission.js';

export const JOBSET_KIND = 'JobSet';
const JOBSET_PREFIX = 'jobset.sigs.k8s.io/';
const JOBSET_UID_KEY = 'jobset.sigs.k8s.io/jobset-uid';
const JOB_KEY = 'jobset.sigs.k8s.io/job-key';
export const JOBSET_NAME_KEY = 'jobset.sigs.k8s.io/jobset-name';

export type JobSetCondition = { type: string; status: string; reason?: string; message?: string };
export type ReplicatedJobStatus = {
  name: string;
  ready?: number;
  succeeded?: number;
  failed?: number;
  active?: number;
  suspended?: number;
};
export type JobSetStatus = {
  conditions?: JobSetCondition[];
  restarts?: number;
  restartsCountTowardsMax?: number;
  terminalState?: string;
  replicatedJobsStatus?: ReplicatedJobStatus[];
};

export function jobSetsOf(s: Snapshot): readonly KubeJson[] {
  return s.custom?.[JOBSET_KIND] ?? [];
}

export function findJobSet(s: Snapshot, name: string): KubeJson | undefined {
  return jobSetsOf(s).find((j) => j.metadata.name === name);
}

export function jobSetStatusOf(s: Snapshot, name: string): JobSetStatus | undefined {
  return findJobSet(s, name)?.status as JobSetStatus | undefined;
}

/** The Jobs the JobSet `name` controls (by its uid), by name. */
export function childJobsOf(s: Snapshot, name: string): Job[] {
  const uid = findJobSet(s, name)?.metadata.uid;
  if (uid === undefined) return [];
  return s.jobs
    .filter((j) => controllerOf(j.metadata)?.uid === uid)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

function normalizeJobSet(js: KubeJson, n: Naming): Record<string, unknown> {
  const st = (js.status ?? {}) as JobSetStatus & Record<string, unknown>;
  const replicated = [...(st.replicatedJobsStatus ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return {
    spec: withoutEmpty(js.spec),
    annotations: n.annotations(js.metadata),
    status: {
      restarts: st.restarts,
      restartsCountTowardsMax: st.restartsCountTowardsMax,
      terminalState: st.terminalState,
      replicatedJobsStatus: Object.fromEntries(replicated.map(({ name, ...counts }) => [name, counts])),
    },
    conditions: n.conditions(st.conditions),
  };
}

/** What the JobSet wrote on a child Job: its labels and annotations, suspend, its controller. */
function normalizeChildJob(j: Job, n: Naming): Record<string, unknown> {
  const ns = j.metadata.namespace ?? '';
  const name = j.metadata.name ?? '';
  const own = (m: Record<string, string> | undefined): Record<string, string | undefined> => {
    const out: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(m ?? {})) {
      if (!k.startsWith(JOBSET_PREFIX) && !k.startsWith(`alpha.${JOBSET_PREFIX}`)) continue;
      if (k === JOBSET_UID_KEY) out[k] = v === '' ? '(empty)' : '(uid)';
      else if (k === JOB_KEY) out[k] = v === sha1(`${ns}/${name}`) ? '(sha1 of <ns>/<job>)' : v;
      else out[k] = n.text(v);
    }
    return out;
  };
  const tpl = j.spec.template.metadata;
  return {
    labels: own(j.metadata.labels),
    annotations: own(j.metadata.annotations),
    podLabels: own(tpl?.labels),
    podAnnotations: own(tpl?.annotations),
    subdomain: (j.spec.template.spec as { subdomain?: string } | undefined)?.subdomain,
    volumes: (j.spec.template.spec as { volumes?: unknown[] } | undefined)?.volumes,
    suspend: j.spec.suspend,
    terminating: j.metadata.deletionTimestamp !== undefined,
    owner: n.owner(j.metadata),
  };
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function normalizeJobSets(s: Snapshot, n: Naming): Record<string, Record<string, unknown>> {
  const jobSets: Record<string, unknown> = {};
  for (const js of jobSetsOf(s)) jobSets[js.metadata.name ?? '?'] = normalizeJobSet(js, n);
  // Every Job that names a JobSet (by label or controller), so an orphan a JobSet would adopt shows too.
  const jobSetJobs: Record<string, unknown> = {};
  for (const j of s.jobs) {
    const named = j.metadata.labels?.[JOBSET_NAME_KEY] !== undefined || controllerOf(j.metadata)?.kind === JOBSET_KIND;
    if (named) jobSetJobs[n.key('Job', j.metadata.name ?? '?')] = normalizeChildJob(j, n);
  }
  const services: Record<string, unknown> = {};
  for (const svc of s.custom?.Service ?? []) {
    const spec = (svc.spec ?? {}) as Record<string, unknown>;
    services[svc.metadata.name ?? '?'] = {
      clusterIP: spec.clusterIP,
      selector: spec.selector,
      publishNotReadyAddresses: spec.publishNotReadyAddresses,
      ports: spec.ports,
      owner: n.owner(svc.metadata),
    };
  }
  // The claims of volumeClaimPolicies (those carrying a JobSet's name label).
  const claims: Record<string, unknown> = {};
  for (const c of s.custom?.PersistentVolumeClaim ?? []) {
    if (c.metadata.labels?.[JOBSET_NAME_KEY] === undefined) continue;
    const spec = (c.spec ?? {}) as Record<string, unknown>;
    claims[c.metadata.name ?? '?'] = {
      labels: c.metadata.labels,
      annotations: c.metadata.annotations,
      accessModes: spec.accessModes,
      resources: spec.resources,
      owner: n.owner(c.metadata),
      deleting: c.metadata.deletionTimestamp !== undefined,
    };
  }
  return { jobSets, jobSetJobs, services, claims };
}

/** The JobSet `name`'s volumeClaimPolicies claims (by its name label, not being deleted) number `n`. */
export const jobSetClaims =
  (name: string, n: number) =>
  (s: Snapshot): Check => {
    const live = (s.custom?.PersistentVolumeClaim ?? []).filter(
      (c) => c.metadata.labels?.[JOBSET_NAME_KEY] === name && c.metadata.deletionTimestamp === undefined,
    );
    return live.length === n || `${name}: ${live.length} claims, want ${n}`;
  };

/** The JobSet `name`'s condition `type` has `status` (and `reason`, when given). */
export const jobSetCondition =
  (name: string, type: string, status: string, reason?: string) =>
  (s: Snapshot): Check => {
    const c = jobSetStatusOf(s, name)?.conditions?.find((x) => x.type === type);
    if (c?.status === status && (reason === undefined || c.reason === reason)) return true;
    return `${name} condition ${type}: ${c === undefined ? 'absent' : `${c.status} ${c.reason ?? ''}`}, want ${status} ${reason ?? ''}`;
  };

/** The JobSet `name` has exactly `n` child Jobs (none being deleted), each with `active` pods running when given. */
export const childJobs =
  (name: string, n: number, o: { restartAttempt?: number; suspended?: boolean } = {}) =>
  (s: Snapshot): Check => {
    const jobs = childJobsOf(s, name).filter((j) => j.metadata.deletionTimestamp === undefined);
    const matching = jobs.filter(
      (j) =>
        (o.restartAttempt === undefined ||
          j.metadata.labels?.['jobset.sigs.k8s.io/restart-attempt'] === String(o.restartAttempt)) &&
        (o.suspended === undefined || (j.spec.suspend === true) === o.suspended),
    );
    return (matching.length === n && jobs.length === n) || `${name}: ${matching.length}/${jobs.length} Jobs, want ${n}`;
  };

/** The JobSet `name` is gone. */
export const jobSetGone =
  (name: string) =>
  (s: Snapshot): Check =>
    findJobSet(s, name) === undefined || `${name} still there`;

/**
 * Upstream's JobSet manager reads its child Jobs from its informer cache and keeps no expectations: after a restart,
 * a reconcile run (on an old Job's deletion) before the cache holds a Job it just created creates that Job again and
 * records JobCreationFailed for the AlreadyExists (`job "<name>" creation failed with error: jobs.batch "<name>"
 * already exists`, one line per Job). Whether it happens depends on the order the deletions reach its cache, so a
 * JobCreationFailed whose every error is an AlreadyExists is left out; any other creation failure is compared.
 */
function isCreateRaceEvent(e: KubeEvent): boolean {
  if (e.involvedObject.kind !== JOBSET_KIND || e.reason !== 'JobCreationFailed') return false;
  const lines = (e.message ?? '').split('\n').filter((l) => l.trim() !== '');
  return lines.length > 0 && lines.every((l) => /creation failed with error: .*already exists/.test(l));
}

/** The JobSet plug-in: JobSets (a CRD) before the Jobs, their Services after; its child Jobs are the Job plug-in's. */
export const jobSetPlugin: ConformancePlugin = {
  kind: JOBSET_KIND,
  needs: [JOBSET_KIND, 'Job'],
  lists: [{ kind: JOBSET_KIND, before: 'Job' }, { kind: 'Service' }, { kind: 'PersistentVolumeClaim' }],
  normalize: normalizeJobSets,
  racyEvent: isCreateRaceEvent,
  // JobSets are admitted as on an upstream-mode cluster (where the JobSet manager's webhooks default and validate
  // them): by fleetq's admission function, served from this process while fleetq runs.
  fleetqSide: ({ kc, root }) => startJobSetAdmission({ root, kc, probeNamespace: 'default' }),
};

/** `n` pods of the JobSet `name`'s Jobs are Running (not being deleted), of its restart attempt `attempt` if given. */
export const jobSetPodsRunning =
  (name: string, n: number, attempt?: number) =>
  (s: Snapshot): Check => {
    const jobs = childJobsOf(s, name).filter(
      (j) => attempt === undefined || j.metadata.labels?.['jobset.sigs.k8s.io/restart-attempt'] === String(attempt),
    );
    const uids = new Set(jobs.map((j) => j.metadata.uid));
    const running = s.pods.filter(
      (p) =>
        uids.has(controllerOf(p.metadata)?.uid) &&
        p.status?.phase === 'Running' &&
        p.metadata.deletionTimestamp === undefined,
    ).length;
    return running === n || `${name}: ${running} pods running, want ${n}`;
  };
