// The comparable form of one side's end state: names with random suffixes, uids, timestamps and
// resourceVersions are normalized away. A Deployment's ReplicaSet is named by the revision that carries
// it (`web@2`); pod-template-hash values are compared by equivalence class (each hash must be consistent
// with its ReplicaSet's name, selector, template and pods), and byte for byte only when asked.
import {
  COMPLETION_INDEX,
  HASH_LABEL,
  JOB_TRACKING_FINALIZER,
  controllerOf,
  isPodReady,
  isTerminating,
  revisionOf,
  templateIgnoringHash,
} from './conformance-model.js';
import type { ConformancePlugin } from './conformance-plugin.js';
import { comparedEventKinds, PLUGINS } from './conformance-plugins.js';
import type {
  Condition,
  CronJob,
  Job,
  KubeEvent,
  Labels,
  ObjectMeta,
  Pod,
  PodTemplate,
  ReplicaSet,
  Snapshot,
} from './conformance-types.js';

export type Normalized = {
  deployments: Record<string, unknown>;
  replicaSets: Record<string, unknown>;
  /** Only when the namespace has Jobs, so the states of the other scenarios compare as before. */
  jobs?: Record<string, unknown>;
  /** Only in CronJob scenarios (cronJobKeys says how their Jobs and times are named). */
  cronJobs?: Record<string, unknown>;
  /**
   * The plug-ins' parts (conformance-plugin.ts), each only once its resources are listed: DaemonSet scenarios'
   * `daemonSets`, StatefulSet scenarios' `statefulSets`, both with `controllerRevisions` as `<owner>@<revision>`.
   */
  [plugin: string]: Record<string, unknown> | undefined;
  /** Active and terminating pods per owner key, counted by state. */
  pods: Record<string, Record<string, number>>;
};

/** The snapshot lists the plug-in's own objects (the scenario created one of its kind on this side). */
function isListed(s: Snapshot, p: ConformancePlugin): boolean {
  const own = p.lists?.find((l) => l.kind === p.kind);
  if (own === undefined) return false;
  return own.field === undefined ? s.custom?.[own.kind] !== undefined : s[own.field] !== undefined;
}

const EVENT_KINDS = comparedEventKinds();

export type NormalizedSide = {
  state: Normalized;
  /**
   * The events of each Deployment and ReplicaSet as the set of `Reason (Type)` recorded on it (a difference
   * reads `ReplicaSet/web@2.FailedCreate (Warning): (absent) / true`), keyed by
   * `<kind>/<name>` with a Deployment's ReplicaSets named by revision (`ReplicaSet/web@2`) and ReplicaSets gone
   * by the time of the comparison as `ReplicaSet/deleted` (compared apart: see the runner).
   */
  events: Record<string, Record<string, true>>;
  /** owner key → raw pod-template-hash, for the exact-hash comparison. */
  hashes: Record<string, string>;
  /** kubectl outputs recorded by the scenario (only in the summary's kubectl checkpoint). */
  recordings?: Record<string, unknown>;
};

/** `web@3` for a Deployment's ReplicaSet, the name for any other. */
export function replicaSetKey(s: Snapshot, rs: ReplicaSet): string {
  const owner = controllerOf(rs.metadata);
  if (owner?.kind === 'Deployment') {
    const d = s.deployments.find((x) => x.metadata.uid === owner.uid);
    return `${d?.metadata.name ?? owner.name}@${revisionOf(rs)}`;
  }
  return rs.metadata.name ?? '?';
}

const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const INDEX_FAILURE_COUNTS = [
  ['batch.kubernetes.io/job-index-failure-count', 'failures'],
  ['batch.kubernetes.io/job-index-ignored-failure-count', 'ignored'],
] as const;

/** A template with time-valued annotations (kubectl rollout restart) replaced by a placeholder. */
function template(t: PodTemplate): unknown {
  const base = templateIgnoringHash(t) as PodTemplate;
  const ann = base.metadata?.annotations;
  if (ann?.[RESTARTED_AT] === undefined) return base;
  return { ...base, metadata: { ...base.metadata, annotations: { ...ann, [RESTARTED_AT]: '<time>' } } };
}

export function normalize(s: Snapshot, namespace: string, events: readonly KubeEvent[] = []): NormalizedSide {
  const keyByUid = new Map<string, string>();
  const keyByName = new Map<string, string>();
  const cron = cronJobKeys(s);
  const jobKey = (name: string): string => cron.jobKeys.get(name) ?? cron.byName(name) ?? name;
  const hashes: Record<string, string> = {};
  for (const rs of s.replicaSets) {
    const key = replicaSetKey(s, rs);
    keyByUid.set(rs.metadata.uid ?? '', key);
    keyByName.set(rs.metadata.name ?? '', key);
    const h = rs.metadata.labels?.[HASH_LABEL];
    if (h !== undefined) hashes[key] = h;
  }
  // A pod named in a message (a Job's podFailurePolicy FailJob message) has a random name: `<ns>/<pod>`.
  const podNames = s.pods.map((p) => p.metadata.name ?? '').filter((n) => n !== '');
  const text = (m: string | undefined): string | undefined => {
    if (m === undefined) return undefined;
    let out = m;
    for (const name of podNames) out = out.split(`${namespace}/${name} `).join('<ns>/<pod> ');
    out = out.split(namespace).join('<ns>');
    for (const [name, key] of keyByName) if (name !== key) out = out.split(`"${name}"`).join(`"<${key}>"`);
    return out;
  };
  const conditions = (cs: readonly Condition[] | undefined): Record<string, unknown> =>
    Object.fromEntries(
      (cs ?? []).map((c) => [c.type, { status: c.status, reason: c.reason, message: text(c.message) }]),
    );
  const annotations = (m: ObjectMeta): Record<string, string | undefined> =>
    Object.fromEntries(Object.entries(m.annotations ?? {}).map(([k, v]) => [k, text(v)]));
  const owner = (m: ObjectMeta): string | null => {
    const r = controllerOf(m);
    if (!r) return null;
    const flags = r.blockOwnerDeletion === true ? '' : ' (blockOwnerDeletion not set)';
    const name =
      r.kind === 'ReplicaSet' ? (keyByUid.get(r.uid) ?? `${r.name}?`) : r.kind === 'Job' ? jobKey(r.name) : r.name;
    return `${r.kind}/${name}${flags}`;
  };

  const deployments: Record<string, unknown> = {};
  for (const d of s.deployments) {
    const st = d.status ?? {};
    deployments[d.metadata.name ?? '?'] = {
      annotations: annotations(d.metadata),
      spec: { ...d.spec, template: template(d.spec.template) },
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0),
        replicas: st.replicas,
        updatedReplicas: st.updatedReplicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        unavailableReplicas: st.unavailableReplicas,
        terminatingReplicas: st.terminatingReplicas,
        collisionCount: st.collisionCount,
      },
      conditions: conditions(st.conditions),
    };
  }

  const replicaSets: Record<string, unknown> = {};
  for (const rs of s.replicaSets) {
    const key = keyByUid.get(rs.metadata.uid ?? '') ?? '?';
    const st = rs.status ?? {};
    const o = controllerOf(rs.metadata);
    const h = rs.metadata.labels?.[HASH_LABEL];
    replicaSets[key] = {
      owner: owner(rs.metadata),
      annotations: annotations(rs.metadata),
      spec: {
        replicas: rs.spec.replicas,
        selector: withoutHash(rs.spec.selector.matchLabels),
        minReadySeconds: rs.spec.minReadySeconds,
        template: template(rs.spec.template),
      },
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (rs.metadata.generation ?? 0),
        replicas: st.replicas,
        fullyLabeledReplicas: st.fullyLabeledReplicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        terminatingReplicas: st.terminatingReplicas,
      },
      conditions: conditions(st.conditions),
      ...(o?.kind === 'Deployment' && {
        hash: {
          labelled: h !== undefined,
          nameIsDeploymentDashHash: rs.metadata.name === `${o.name}-${h}`,
          selectorHasHash: rs.spec.selector.matchLabels?.[HASH_LABEL] === h,
          templateHasHash: rs.spec.template.metadata?.labels?.[HASH_LABEL] === h,
          unique: Object.values(hashes).filter((x) => x === h).length === 1,
        },
      }),
    };
  }

  const jobs: Record<string, unknown> = {};
  for (const j of s.jobs) {
    const run = cron.runOf(j);
    jobs[jobKey(j.metadata.name ?? '?')] = {
      ...normalizeJob(j, conditions),
      ...(run !== undefined && { cronJob: run }),
    };
  }
  const cronJobs: Record<string, unknown> = {};
  for (const c of s.cronJobs ?? []) cronJobs[c.metadata.name ?? '?'] = cron.normalize(c, conditions);

  const pods: Record<string, Record<string, number>> = {};
  for (const p of s.pods) {
    const r = controllerOf(p.metadata);
    const ownerKey = r ? (owner(p.metadata) ?? '?') : 'orphan';
    const parts = [p.status?.phase ?? 'NoPhase', isPodReady(p) ? 'ready' : 'unready'];
    if (isTerminating(p.metadata)) parts.push('terminating');
    if (r?.kind === 'Job') parts.push(...jobIndexParts(p, r.name));
    const plugin = r === undefined ? undefined : PLUGINS.find((x) => x.kind === r.kind);
    if (plugin?.podParts !== undefined) parts.push(...plugin.podParts(s, p));
    // Any pod, owned or not: a pod a Job released (or never adopted) must not keep the Job's finalizer.
    if (p.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER)) parts.push('tracking-finalizer');
    const rsKey = r?.kind === 'ReplicaSet' ? keyByUid.get(r.uid) : undefined;
    const h = p.metadata.labels?.[HASH_LABEL];
    if (rsKey !== undefined && hashes[rsKey] !== undefined && h !== hashes[rsKey]) parts.push('hash≠owner');
    const byState = (pods[ownerKey] ??= {});
    const state = parts.join('/');
    byState[state] = (byState[state] ?? 0) + 1;
  }

  const eventReasons: Record<string, Set<string>> = {};
  for (const e of events) {
    const kind = e.involvedObject.kind;
    if (kind === undefined || !EVENT_KINDS.has(kind)) continue;
    const name = e.involvedObject.name ?? '?';
    const key = `${kind}/${kind === 'ReplicaSet' ? (keyByName.get(name) ?? 'deleted') : kind === 'Job' ? jobKey(name) : name}`;
    (eventReasons[key] ??= new Set()).add(`${e.reason ?? '?'} (${e.type ?? '?'})`);
  }
  const eventsOut = Object.fromEntries(
    Object.entries(eventReasons).map(([k, v]) => [k, Object.fromEntries([...v].sort().map((r) => [r, true as const]))]),
  );

  const state: Normalized = {
    deployments,
    replicaSets,
    ...(s.jobs.length > 0 && { jobs }),
    ...(s.cronJobs !== undefined && { cronJobs }),
    ...Object.assign(
      {},
      ...PLUGINS.filter((p) => p.normalize !== undefined && isListed(s, p)).map((p) => p.normalize?.(s)),
    ),
    pods,
  };
  return { state, events: eventsOut, hashes };
}

/**
 * A Job as compared: its spec as written (the selector and template carry the generated controller-uid, so they
 * are left out), its status counts and indexes, uncountedTerminatedPods as counts (empty at rest), the presence
 * of startTime and completionTime, and its conditions by type with status, reason and message (job-controller's
 * messages name no pod, so they are deterministic).
 */
function normalizeJob(
  j: Job,
  conditions: (cs: readonly Condition[] | undefined) => Record<string, unknown>,
): Record<string, unknown> {
  const st = j.status ?? {};
  const { selector: _selector, template: _template, ...spec } = j.spec;
  return {
    spec,
    status: {
      active: st.active,
      succeeded: st.succeeded,
      failed: st.failed,
      ready: st.ready,
      terminating: st.terminating,
      completedIndexes: st.completedIndexes,
      failedIndexes: st.failedIndexes,
      uncounted: {
        succeeded: st.uncountedTerminatedPods?.succeeded?.length ?? 0,
        failed: st.uncountedTerminatedPods?.failed?.length ?? 0,
      },
      startTime: st.startTime !== undefined,
      completionTime: st.completionTime !== undefined,
    },
    conditions: conditions(st.conditions),
  };
}

const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
const MINUTE_MS = 60_000;

/**
 * A CronJob's Jobs are named `<cronjob>-<scheduled time in minutes since the epoch>`, and its status holds times:
 * both sides run at the same wall-clock time but may create their CronJob either side of a minute, so each time is
 * written as the minutes since the minute its CronJob was created (`backup-+2` is the run two minutes after),
 * a Job of another name (kubectl create job --from) keeps its name, and lastSuccessfulTime is compared by presence.
 */
function cronJobKeys(s: Snapshot): {
  jobKeys: Map<string, string>;
  /** A Job gone by now (named only by an event) whose name is `<cronjob>-<minutes>` of a CronJob here. */
  byName: (name: string) => string | undefined;
  runOf: (j: Job) => Record<string, unknown> | undefined;
  normalize: (c: CronJob, conditions: (cs: readonly Condition[] | undefined) => Record<string, unknown>) => unknown;
} {
  const byUid = new Map((s.cronJobs ?? []).map((c) => [c.metadata.uid ?? '', c]));
  const base = (c: CronJob | undefined): number | undefined => {
    const t = Date.parse(c?.metadata.creationTimestamp ?? '');
    return Number.isNaN(t) ? undefined : Math.floor(t / MINUTE_MS);
  };
  const relative = (c: CronJob | undefined, ms: number): string => {
    const b = base(c);
    return b === undefined ? '?' : `+${Math.floor(ms / MINUTE_MS) - b}`;
  };
  const jobKeys = new Map<string, string>();
  const runs = new Map<string, Record<string, unknown>>();
  for (const j of s.jobs) {
    const r = controllerOf(j.metadata);
    if (r?.kind !== 'CronJob') continue;
    const c = byUid.get(r.uid);
    const name = j.metadata.name ?? '';
    const m = /^(.*)-(\d+)$/.exec(name);
    const scheduled = j.metadata.annotations?.[SCHEDULED_TIMESTAMP];
    const at = scheduled === undefined ? undefined : Date.parse(scheduled);
    if (m !== null && m[1] === r.name) jobKeys.set(name, `${r.name}-${relative(c, Number(m[2]) * MINUTE_MS)}`);
    runs.set(name, {
      scheduled: at === undefined ? '(no annotation)' : relative(c, at),
      nameIsScheduledMinute: m !== null && at !== undefined && Number(m[2]) === Math.floor(at / MINUTE_MS),
    });
  }
  return {
    jobKeys,
    byName: (name) => {
      const m = /^(.*)-(\d+)$/.exec(name);
      const c = m === null ? undefined : (s.cronJobs ?? []).find((x) => x.metadata.name === m[1]);
      return m === null || c === undefined ? undefined : `${m[1]}-${relative(c, Number(m[2]) * MINUTE_MS)}`;
    },
    runOf: (j) => runs.get(j.metadata.name ?? ''),
    normalize: (c) => {
      const st = c.status ?? {};
      const last = st.lastScheduleTime === undefined ? undefined : Date.parse(st.lastScheduleTime);
      return {
        spec: { ...c.spec, jobTemplate: '(as written)' },
        status: {
          active: (st.active ?? []).map((a) => jobKeys.get(a.name ?? '') ?? a.name).sort(),
          lastScheduleTime: last === undefined ? undefined : relative(c, last),
          lastSuccessfulTime: st.lastSuccessfulTime !== undefined,
        },
      };
    },
  };
}

/** What a Job's pod adds to its state: its completion index, and its hostname when it is not <job>-<index>. */
function jobIndexParts(p: Pod, jobName: string): string[] {
  const parts: string[] = [];
  const index = p.metadata.labels?.[COMPLETION_INDEX];
  if (index !== undefined) {
    parts.push(`index=${index}`);
    if (p.metadata.annotations?.[COMPLETION_INDEX] !== index) parts.push('annotation≠label');
    if (p.spec.hostname !== `${jobName}-${index}`) parts.push(`hostname=${String(p.spec.hostname)}`);
  }
  // backoffLimitPerIndex: the failures of the index before this pod, counted and ignored.
  for (const [key, label] of INDEX_FAILURE_COUNTS) {
    const v = p.metadata.annotations?.[key];
    if (v !== undefined) parts.push(`${label}=${v}`);
  }
  return parts;
}

function withoutHash(labels: Labels | undefined): Labels {
  const out = { ...labels };
  delete out[HASH_LABEL];
  return out;
}

export type Difference = { path: string; a: unknown; b: unknown };

/** Every path where a and b differ (objects by key, arrays by index); undefined and missing are equal. */
export function diff(a: unknown, b: unknown, path = ''): Difference[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diff(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
  }
  return [{ path: path || '(root)', a, b }];
}

export function formatDiff(ds: readonly Difference[], labelA: string, labelB: string): string {
  const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));
  return ds.map((d) => `  ${d.path}\n    ${labelA}: ${show(d.a)}\n    ${labelB}: ${show(d.b)}`).join('\n');
}
