// A constructed side state holding every base kind the conformance harness compares (a Deployment with two
// revisions and a rollout restart, a bare ReplicaSet, an Indexed Job with per-index failures, a CronJob with its
// scheduled Jobs and a Job created from it by hand, a DaemonSet and a StatefulSet with their revisions) and the
// corner cases the normalizer names: pods of every owner (terminating, hash ≠ owner, a kept Job tracking
// finalizer, orphans), messages naming pods, the namespace and ReplicaSets, and Events of objects gone since.
import type { KubeEvent, OwnerRef, Pod, Snapshot } from '../../helpers/conformance/types.js';

export const NS = 'conf-base-kinds-1a2b3c';

const ref = (kind: string, name: string, uid: string, blockOwnerDeletion = true): OwnerRef => ({
  apiVersion: kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1',
  kind,
  name,
  uid,
  controller: true,
  blockOwnerDeletion,
});

const tpl = (image: string, hash?: string, annotations?: Record<string, string>) => ({
  metadata: { labels: { app: 'web', ...(hash !== undefined && { 'pod-template-hash': hash }) }, annotations },
  spec: { containers: [{ name: 'c', image }] },
});

const readyCondition = (status: string) => [{ type: 'Ready', status, lastTransitionTime: '2025-01-01T00:01:00Z' }];

function pod(
  name: string,
  owner: OwnerRef | undefined,
  o: Partial<Pod['metadata']> & { phase?: string; ready?: boolean; spec?: Record<string, unknown> } = {},
): Pod {
  const { phase = 'Running', ready = true, spec = {}, ...meta } = o;
  return {
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: '2025-01-01T00:00:30Z',
      ...(owner !== undefined && { ownerReferences: [owner] }),
      ...meta,
    },
    spec: { containers: [{ name: 'c', image: 'img:1' }], ...spec },
    status: { phase, conditions: readyCondition(ready ? 'True' : 'False') },
  };
}

const web = ref('Deployment', 'web', 'uid-web');
const rs1 = ref('ReplicaSet', 'web-5d8f7c', 'uid-rs1');
const rs2 = ref('ReplicaSet', 'web-6b9d4f', 'uid-rs2');
const plainRs = ref('ReplicaSet', 'plain', 'uid-plain', false);
const indexed = ref('Job', 'indexed', 'uid-indexed');
const backup = ref('CronJob', 'backup', 'uid-backup');
// 2025-01-01T00:02:00Z and 00:03:00Z in minutes since the epoch; the CronJob was created at 00:00:40Z.
const RUN_2 = 28_928_162;
const RUN_3 = 28_928_163;
const agent = ref('DaemonSet', 'agent', 'uid-agent');
const db = ref('StatefulSet', 'db', 'uid-db');

export function baseKindsSnapshot(): Snapshot {
  return {
    at: Date.parse('2025-01-01T00:05:00Z'),
    namespace: NS,
    deployments: [
      {
        metadata: {
          name: 'web',
          namespace: NS,
          uid: 'uid-web',
          generation: 3,
          annotations: { 'deployment.kubernetes.io/revision': '2', note: `made in ${NS}` },
        },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: tpl('img:2', undefined, { 'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:01:02Z' }),
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
          minReadySeconds: 0,
        },
        status: {
          observedGeneration: 3,
          replicas: 4,
          updatedReplicas: 2,
          readyReplicas: 3,
          availableReplicas: 3,
          unavailableReplicas: 1,
          terminatingReplicas: 1,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'ReplicaSetUpdated',
              message: 'ReplicaSet "web-6b9d4f" is progressing.',
              lastUpdateTime: '2025-01-01T00:02:00Z',
            },
            { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' },
          ],
        },
      },
    ],
    replicaSets: [
      {
        metadata: {
          name: 'web-5d8f7c',
          namespace: NS,
          uid: 'uid-rs1',
          generation: 2,
          labels: { app: 'web', 'pod-template-hash': '5d8f7c' },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
          ownerReferences: [web],
        },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d8f7c' } },
          template: tpl('img:1', '5d8f7c'),
        },
        status: { observedGeneration: 1, replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
      },
      {
        metadata: {
          name: 'web-6b9d4f',
          namespace: NS,
          uid: 'uid-rs2',
          generation: 1,
          labels: { app: 'web', 'pod-template-hash': '6b9d4f' },
          annotations: { 'deployment.kubernetes.io/revision': '2' },
          ownerReferences: [web],
        },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web', 'pod-template-hash': '6b9d4f' } },
          template: tpl('img:2', '6b9d4f', { 'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:01:02Z' }),
        },
        status: {
          observedGeneration: 1,
          replicas: 2,
          fullyLabeledReplicas: 2,
          readyReplicas: 1,
          availableReplicas: 1,
          terminatingReplicas: 0,
          conditions: [
            { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: `quota in ${NS} exceeded` },
          ],
        },
      },
      {
        metadata: { name: 'plain', namespace: NS, uid: 'uid-plain', generation: 1, labels: { app: 'plain' } },
        spec: { replicas: 1, minReadySeconds: 5, selector: { matchLabels: { app: 'plain' } }, template: tpl('img:p') },
        status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 0 },
      },
    ],
    cronJobs: [
      {
        metadata: { name: 'backup', namespace: NS, uid: 'uid-backup', creationTimestamp: '2025-01-01T00:00:40Z' },
        spec: {
          schedule: '* * * * *',
          concurrencyPolicy: 'Allow',
          successfulJobsHistoryLimit: 2,
          jobTemplate: { spec: { template: tpl('img:b') } },
        },
        status: {
          active: [{ kind: 'Job', name: `backup-${RUN_3}`, namespace: NS, uid: 'uid-run3' }],
          lastScheduleTime: '2025-01-01T00:03:00Z',
          lastSuccessfulTime: '2025-01-01T00:02:20Z',
        },
      },
    ],
    jobs: [
      {
        metadata: { name: 'indexed', namespace: NS, uid: 'uid-indexed' },
        spec: {
          parallelism: 2,
          completions: 3,
          completionMode: 'Indexed',
          backoffLimit: 6,
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'uid-indexed' } },
          template: tpl('img:j'),
        },
        status: {
          active: 2,
          succeeded: 1,
          failed: 1,
          ready: 1,
          terminating: 0,
          completedIndexes: '0',
          uncountedTerminatedPods: { succeeded: ['uid-x'], failed: [] },
          startTime: '2025-01-01T00:00:10Z',
          conditions: [
            {
              type: 'FailureTarget',
              status: 'False',
              reason: 'PodFailurePolicy',
              message: `Container c for pod ${NS}/indexed-1-abcde failed with exit code 42 matching FailJob rule at index 0`,
            },
          ],
        },
      },
      {
        metadata: {
          name: `backup-${RUN_2}`,
          namespace: NS,
          uid: 'uid-run2',
          annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2025-01-01T00:02:00Z' },
          ownerReferences: [backup],
        },
        spec: { template: tpl('img:b') },
        status: {
          succeeded: 1,
          startTime: '2025-01-01T00:02:01Z',
          completionTime: '2025-01-01T00:02:20Z',
          conditions: [
            {
              type: 'SuccessCriteriaMet',
              status: 'True',
              reason: 'CompletionsReached',
              message: 'Reached expected number of succeeded pods',
            },
            {
              type: 'Complete',
              status: 'True',
              reason: 'CompletionsReached',
              message: 'Reached expected number of succeeded pods',
            },
          ],
        },
      },
      {
        metadata: {
          name: `backup-${RUN_3}`,
          namespace: NS,
          uid: 'uid-run3',
          annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2025-01-01T00:03:00Z' },
          ownerReferences: [backup],
        },
        spec: { template: tpl('img:b') },
        status: { active: 1, startTime: '2025-01-01T00:03:01Z' },
      },
      {
        metadata: { name: 'backup-by-hand', namespace: NS, uid: 'uid-by-hand', ownerReferences: [backup] },
        spec: { template: tpl('img:b') },
        status: { active: 1 },
      },
    ],
    pods: [
      pod('web-5d8f7c-aaaaa', rs1, { labels: { app: 'web', 'pod-template-hash': '5d8f7c' } }),
      pod('web-5d8f7c-bbbbb', rs1, {
        labels: { app: 'web', 'pod-template-hash': '5d8f7c' },
        deletionTimestamp: '2025-01-01T00:04:00Z',
      }),
      pod('web-6b9d4f-ccccc', rs2, { labels: { app: 'web', 'pod-template-hash': '6b9d4f' } }),
      pod('web-6b9d4f-ddddd', rs2, { labels: { app: 'web', 'pod-template-hash': 'other' }, ready: false }),
      pod('web-6b9d4f-eeeee', rs2, {
        labels: { app: 'web', 'pod-template-hash': 'other' },
        finalizers: ['batch.kubernetes.io/job-tracking'],
      }),
      pod('plain-fffff', plainRs, { labels: { app: 'plain' } }),
      pod('gone-owner-ggggg', ref('ReplicaSet', 'web-gone', 'uid-gone'), { labels: { app: 'web' } }),
      pod('indexed-0-hhhhh', indexed, {
        phase: 'Succeeded',
        ready: false,
        labels: { 'batch.kubernetes.io/job-completion-index': '0' },
        annotations: { 'batch.kubernetes.io/job-completion-index': '0' },
        finalizers: ['batch.kubernetes.io/job-tracking'],
        spec: { hostname: 'indexed-0' },
      }),
      pod('indexed-1-abcde', indexed, {
        phase: 'Failed',
        ready: false,
        labels: { 'batch.kubernetes.io/job-completion-index': '1' },
        annotations: {
          'batch.kubernetes.io/job-completion-index': '2',
          'batch.kubernetes.io/job-index-failure-count': '1',
          'batch.kubernetes.io/job-index-ignored-failure-count': '0',
        },
        spec: { hostname: 'other-host' },
      }),
      pod('indexed-2-iiiii', indexed, {
        labels: { 'batch.kubernetes.io/job-completion-index': '2' },
        annotations: { 'batch.kubernetes.io/job-completion-index': '2' },
        finalizers: ['batch.kubernetes.io/job-tracking'],
        spec: { hostname: 'indexed-2' },
      }),
      pod(`backup-${RUN_3}-jjjjj`, ref('Job', `backup-${RUN_3}`, 'uid-run3'), {
        finalizers: ['batch.kubernetes.io/job-tracking'],
      }),
      pod('released-kkkkk', undefined, { finalizers: ['batch.kubernetes.io/job-tracking'], phase: 'Succeeded' }),
      pod('loose-lllll', undefined, {}),
      pod('agent-mmmmm', agent, {
        labels: { 'controller-revision-hash': 'agent-hash-1' },
        spec: { nodeName: 'kwok-node-0' },
      }),
      pod('agent-nnnnn', agent, {
        labels: { 'controller-revision-hash': 'agent-hash-x' },
        spec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', values: ['kwok-node-1'] }] }],
              },
            },
          },
        },
      }),
      pod('db-0', db, { labels: { 'controller-revision-hash': 'db-rev-1' } }),
      pod('db-1', db, { labels: { 'controller-revision-hash': 'db-rev-9' }, ready: false }),
    ],
    daemonSets: [
      {
        metadata: { name: 'agent', namespace: NS, uid: 'uid-agent', generation: 1 },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: tpl('img:a') },
        status: { observedGeneration: 1, desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 1 },
      },
    ],
    statefulSets: [
      {
        metadata: { name: 'db', namespace: NS, uid: 'uid-db', generation: 2 },
        spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: tpl('img:d') },
        status: {
          observedGeneration: 1,
          replicas: 2,
          readyReplicas: 1,
          currentRevision: 'db-rev-1',
          updateRevision: 'db-rev-2',
        },
      },
    ],
    controllerRevisions: [
      {
        metadata: {
          name: 'agent-agent-hash-1',
          namespace: NS,
          uid: 'uid-cr-a1',
          labels: { 'controller-revision-hash': 'agent-hash-1' },
          ownerReferences: [agent],
        },
        revision: 1,
        data: { spec: { template: 'a' } },
      },
      {
        metadata: {
          name: 'db-rev-1',
          namespace: NS,
          uid: 'uid-cr-d1',
          labels: { 'controller.kubernetes.io/hash': 'rev-1' },
          ownerReferences: [db],
        },
        revision: 1,
        data: { spec: { template: 'd1' } },
      },
      {
        metadata: {
          name: 'db-rev-2',
          namespace: NS,
          uid: 'uid-cr-d2',
          labels: { 'controller.kubernetes.io/hash': 'rev-2' },
          annotations: { a: 'b' },
          ownerReferences: [db],
        },
        revision: 2,
        data: { spec: { template: 'd2' } },
      },
    ],
  };
}

/** The same side without Jobs, CronJobs, DaemonSets and StatefulSets (their parts are then absent). */
export function deploymentsOnlySnapshot(): Snapshot {
  const s = baseKindsSnapshot();
  const rsUids = new Set(s.replicaSets.map((rs) => rs.metadata.uid));
  return {
    at: s.at,
    namespace: NS,
    deployments: s.deployments,
    replicaSets: s.replicaSets,
    jobs: [],
    pods: s.pods.filter((p) => rsUids.has(p.metadata.ownerReferences?.[0]?.uid)),
  };
}

const event = (kind: string, name: string, reason: string, type = 'Normal'): KubeEvent => ({
  metadata: { name: `${name}.${reason}`, namespace: NS },
  involvedObject: { kind, name },
  reason,
  type,
});

export const BASE_KINDS_EVENTS: readonly KubeEvent[] = [
  event('Deployment', 'web', 'ScalingReplicaSet'),
  event('ReplicaSet', 'web-5d8f7c', 'SuccessfulCreate'),
  event('ReplicaSet', 'web-6b9d4f', 'SuccessfulCreate'),
  event('ReplicaSet', 'web-6b9d4f', 'FailedCreate', 'Warning'),
  event('ReplicaSet', 'web-old123', 'SuccessfulDelete'),
  event('ReplicaSet', 'plain', 'SuccessfulCreate'),
  event('Job', 'indexed', 'SuccessfulCreate'),
  event('Job', `backup-${RUN_2}`, 'Completed'),
  event('Job', `backup-${RUN_3 - 2}`, 'Completed'),
  event('Job', 'backup-by-hand', 'SuccessfulCreate'),
  event('CronJob', 'backup', 'SuccessfulCreate'),
  event('CronJob', 'backup', 'SawCompletedJob'),
  event('DaemonSet', 'agent', 'SuccessfulCreate'),
  event('StatefulSet', 'db', 'SuccessfulCreate'),
  event('Pod', 'web-5d8f7c-aaaaa', 'Scheduled'),
  event('Widget', 'w', 'Made'),
];
