// Builders for Job planner tests: a Job selecting its controller-uid label, pods described by what the planner
// looks at, and a fixed clock.
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import { plannedEvents, type Action } from '../../../../shared/kube/actions.js';
import type {
  Job,
  JobStatus,
  ObservedJob,
  PodFailurePolicy,
  SuccessPolicy,
} from '../../../../shared/controllers/job/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const JOB = 'pi';
export const JOB_UID = 'uid-job';
export const LABELS = { 'batch.kubernetes.io/controller-uid': JOB_UID, 'batch.kubernetes.io/job-name': JOB } as const;
export const FINALIZER = 'batch.kubernetes.io/job-tracking';

export const ago = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString().replace('.000Z', 'Z');
export const wire = (d: Date = NOW): string => d.toISOString().replace('.000Z', 'Z');

export const jobRef = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  name: JOB,
  uid: JOB_UID,
  controller: true,
  blockOwnerDeletion: true,
};

export type JobOptions = {
  completions?: number;
  parallelism?: number;
  indexed?: boolean;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  status?: JobStatus;
  managedBy?: string;
  deleting?: boolean;
  restartPolicy?: string;
  podFailurePolicy?: PodFailurePolicy;
  podReplacementPolicy?: 'Failed' | 'TerminatingOrFailed';
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  successPolicy?: SuccessPolicy;
  annotations?: Record<string, string>;
};

export function aJob(o: JobOptions = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: JOB,
      namespace: NS,
      uid: JOB_UID,
      resourceVersion: '100',
      labels: { ...LABELS },
      ...(o.annotations && { annotations: o.annotations }),
      ...(o.deleting && { deletionTimestamp: ago(1) }),
    },
    spec: {
      ...('completions' in o ? o.completions !== undefined && { completions: o.completions } : { completions: 1 }),
      parallelism: o.parallelism ?? 1,
      ...(o.backoffLimitPerIndex === undefined || o.backoffLimit !== undefined
        ? { backoffLimit: o.backoffLimit ?? 6 }
        : { backoffLimitPerIndex: o.backoffLimitPerIndex }),
      ...(o.backoffLimitPerIndex !== undefined && { backoffLimitPerIndex: o.backoffLimitPerIndex }),
      ...(o.maxFailedIndexes !== undefined && { maxFailedIndexes: o.maxFailedIndexes }),
      ...(o.podFailurePolicy && { podFailurePolicy: o.podFailurePolicy }),
      ...(o.podReplacementPolicy && { podReplacementPolicy: o.podReplacementPolicy }),
      ...(o.successPolicy && { successPolicy: o.successPolicy }),
      ...(o.indexed && { completionMode: 'Indexed' }),
      ...(o.activeDeadlineSeconds !== undefined && { activeDeadlineSeconds: o.activeDeadlineSeconds }),
      ...(o.suspend !== undefined && { suspend: o.suspend }),
      ...(o.managedBy !== undefined && { managedBy: o.managedBy }),
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': JOB_UID } },
      template: {
        metadata: { labels: { ...LABELS } },
        spec: { restartPolicy: o.restartPolicy ?? 'Never', containers: [{ name: 'c', image: 'busybox' }] },
      },
    },
    ...(o.status !== undefined && { status: o.status }),
  };
}

export type PodOptions = {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  ready?: boolean;
  finalizer?: boolean;
  index?: number;
  /** Seconds before NOW the containers finished. */
  finishedAgo?: number;
  deleting?: boolean;
  orphan?: boolean;
  labels?: Record<string, string>;
  node?: string;
  /** Failed pods: the container's exit code (default 1). */
  exitCode?: number;
  /** Extra pod conditions, e.g. DisruptionTarget. */
  conditions?: { type: string; status: 'True' | 'False'; reason?: string }[];
  /** Extra annotations, e.g. the per-index failure counts. */
  annotations?: Record<string, string>;
};

export function aPod(name: string, o: PodOptions = {}): Pod {
  const phase = o.phase ?? 'Running';
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      labels: {
        ...(o.labels ?? LABELS),
        ...(o.index !== undefined && { 'batch.kubernetes.io/job-completion-index': String(o.index) }),
      },
      ...((o.index !== undefined || o.annotations) && {
        annotations: {
          ...(o.index !== undefined && { 'batch.kubernetes.io/job-completion-index': String(o.index) }),
          ...o.annotations,
        },
      }),
      ...(o.finalizer !== false && { finalizers: [FINALIZER] }),
      ...(!o.orphan && { ownerReferences: [jobRef] }),
      ...(o.deleting && { deletionTimestamp: wireTime(NOW.getTime() - 1000) }),
      creationTimestamp: wireTime(NOW.getTime() - 600_000),
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...(o.node !== undefined && { nodeName: o.node }) },
    status: {
      phase,
      ...((o.ready || o.conditions) && {
        conditions: [
          ...(o.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: wireTime(NOW.getTime() - 60_000) }] : []),
          ...(o.conditions ?? []),
        ],
      }),
      ...(terminal && {
        containerStatuses: [
          {
            name: 'c',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: {
              terminated: {
                exitCode: phase === 'Succeeded' ? 0 : (o.exitCode ?? 1),
                finishedAt: wireTime(NOW.getTime() - (o.finishedAgo ?? 30) * 1000),
              },
            },
          },
        ],
      }),
    },
  };
}

export function observed(job: Job | null, pods: Pod[] = [], extra: Partial<ObservedJob> = {}): ObservedJob {
  return { namespace: NS, name: JOB, job, pods, ...(job && { adoptionRecheck: job }), ...extra };
}

/** The status a plan writes, if any. */
export function statusOf(actions: readonly Action[]): JobStatus | undefined {
  const a = actions.find((x) => x.type === 'updateStatus');
  return a?.type === 'updateStatus' ? (a.object as Job).status : undefined;
}

export const ofType = (actions: readonly Action[], type: Action['type']): Action[] =>
  actions.filter((a) => a.type === type);

/** The events a plan records, as `<type> <reason>: <message>`. */
export const eventsOf = (actions: readonly Action[]): string[] =>
  plannedEvents(actions).map((e) => `${e.type} ${e.reason}: ${e.message}`);

/** The created pods' objects. */
export const createdPods = (actions: readonly Action[]): Pod[] =>
  actions.flatMap((a) => (a.type === 'create' ? [a.object as Pod] : []));

/** `type/reason` of the True conditions a plan writes. */
export const conditionsOf = (actions: readonly Action[]): string[] =>
  (statusOf(actions)?.conditions ?? []).filter((c) => c.status === 'True').map((c) => `${c.type}/${c.reason}`);
