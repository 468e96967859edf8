// The Job's reading of a snapshot: a Job by its name, or by its CronJob run (conformance/cronjob.ts), its spec as
// written, status counts and conditions; its pods by completion index and per-index failure counts; and the Job
// tracking finalizer on any pod. Jobs are listed on every poll, before the pods.
import { COMPLETION_INDEX, JOB_TRACKING_FINALIZER, controllerOf } from './model.js';
import type { ConformancePlugin, Naming, ObjectNames } from './plugin.js';
import { cronJobRuns } from './cronjob.js';
import type { Job, Pod, Snapshot } from './types.js';

const INDEX_FAILURE_COUNTS = [
  ['batch.kubernetes.io/job-index-failure-count', 'failures'],
  ['batch.kubernetes.io/job-index-ignored-failure-count', 'ignored'],
] as const;

function names(s: Snapshot): ObjectNames {
  const runs = cronJobRuns(s);
  const byName = (name: string): string => runs.jobKeys.get(name) ?? runs.byName(name) ?? name;
  return { byName, byOwnerRef: (r) => byName(r.name) };
}

/**
 * A Job as compared: its spec as written (the selector and template carry the generated controller-uid, so they
 * are left out), its status counts and indexes, uncountedTerminatedPods as counts (empty at rest), the presence
 * of startTime and completionTime, and its conditions by type with status, reason and message (job-controller's
 * messages name no pod, so they are deterministic).
 */
function normalizeJob(j: Job, n: Naming): Record<string, unknown> {
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
    conditions: n.conditions(st.conditions),
  };
}

/** Only when the namespace has Jobs, so the states of the other scenarios compare as they always did. */
function normalizeJobs(s: Snapshot, n: Naming): { jobs?: Record<string, unknown> } {
  if (s.jobs.length === 0) return {};
  const runs = cronJobRuns(s);
  const jobs: Record<string, unknown> = {};
  for (const j of s.jobs) {
    const run = runs.runOf(j);
    jobs[n.key('Job', j.metadata.name ?? '?')] = { ...normalizeJob(j, n), ...(run !== undefined && { cronJob: run }) };
  }
  return { jobs };
}

/** What a Job's pod adds to its state: its completion index, and its hostname when it is not <job>-<index>. */
function jobIndexParts(_s: Snapshot, p: Pod): string[] {
  const jobName = controllerOf(p.metadata)?.name ?? '';
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

/** The Job plug-in: Jobs by name or CronJob run, their pods by index; a pod it released must not keep its finalizer. */
export const jobPlugin: ConformancePlugin = {
  kind: 'Job',
  needs: ['Job'],
  lists: [{ kind: 'Job', field: 'jobs', always: true, before: 'Pod' }],
  names,
  normalize: normalizeJobs,
  podParts: jobIndexParts,
  podFinalizers: { [JOB_TRACKING_FINALIZER]: 'tracking-finalizer' },
};
