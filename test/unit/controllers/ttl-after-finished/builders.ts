// Builders for TTL-after-finished tests: a Job described by what the controller reads (deletionTimestamp,
// spec.ttlSecondsAfterFinished, its conditions), and a fixed clock.
import type { Job, JobCondition } from '../../../../shared/controllers/job/types.js';
import type { ObservedTtlJob } from '../../../../shared/controllers/ttl-after-finished/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const JOB = 'pi';
export const JOB_UID = 'uid-job';

/** A wire time `s` seconds after NOW (negative: before), as the apiserver writes it (whole seconds). */
export const at = (s: number): string => new Date(NOW.getTime() + s * 1000).toISOString().replace('.000Z', 'Z');

export type TtlJobOptions = {
  /** spec.ttlSecondsAfterFinished; absent: none. */
  ttl?: number;
  /** The terminal condition, True, with its lastTransitionTime `s` seconds from NOW. */
  finished?: { type: 'Complete' | 'Failed'; at: number | null };
  /** Conditions before the terminal one. */
  conditions?: JobCondition[];
  deleting?: boolean;
  uid?: string;
};

export function aJob(o: TtlJobOptions = {}): Job {
  const terminal: JobCondition[] = o.finished
    ? [
        {
          type: o.finished.type,
          status: 'True',
          ...(o.finished.at !== null && { lastTransitionTime: at(o.finished.at), lastProbeTime: at(o.finished.at) }),
          reason: o.finished.type === 'Complete' ? 'CompletionsReached' : 'BackoffLimitExceeded',
        },
      ]
    : [];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: JOB,
      namespace: NS,
      uid: o.uid ?? JOB_UID,
      resourceVersion: '100',
      ...(o.deleting && { deletionTimestamp: at(-1), finalizers: ['foregroundDeletion'] }),
    },
    spec: { completions: 1, parallelism: 1, ...(o.ttl !== undefined && { ttlSecondsAfterFinished: o.ttl }) },
    status: { conditions: [...(o.conditions ?? []), ...terminal] },
  };
}

export const complete = (secondsFromNow: number): TtlJobOptions['finished'] => ({
  type: 'Complete',
  at: secondsFromNow,
});

export function observed(job: Job | null, fresh?: Job | null): ObservedTtlJob {
  return { namespace: NS, name: JOB, job, ...(fresh !== undefined && { fresh }) };
}
