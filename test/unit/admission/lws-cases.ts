// LeaderWorkerSet webhook cases, modelled on lws v0.9.0's webhook tests (pkg/webhooks/*_test.go and
// test/integration/webhooks) and on the pods its StatefulSets create. What upstream's own webhooks answer for each,
// served by controller-runtime, is in lws-golden.json (see upstream-golden/README.md); lws-webhook.test.ts checks
// that fleetq answers the same.
import {
  EXCLUSIVE_KEY_ANNOTATION,
  GROUP_INDEX_LABEL,
  GROUP_UNIQUE_HASH_LABEL,
  LEADER_POD_NAME_ANNOTATION,
  LEADER_REQUESTS_TPUS_ANNOTATION,
  REVISION_KEY_LABEL,
  SET_NAME_LABEL,
  SIZE_ANNOTATION,
  SUBDOMAIN_POLICY_ANNOTATION,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_INDEX_LABEL,
  SUBGROUP_POLICY_TYPE_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
  WORKER_INDEX_LABEL,
} from '../../../shared/controllers/leaderworkerset/types.js';

export type LwsGoldenCase = {
  name: string;
  webhook: 'mutate-lws' | 'validate-lws' | 'mutate-pod' | 'validate-pod';
  operation: 'CREATE' | 'UPDATE';
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
};

type Json = Record<string, unknown>;
const MAX_INT32 = 2147483647;
const podTemplate = () => ({ spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });

/** A LeaderWorkerSet as the API server hands it to the mutating webhook: after the CRD's schema defaults. */
function bare(template: Json = {}, spec: Json = {}, metadata: Json = {}): Json {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'lws', namespace: 'default', ...metadata },
    spec: {
      replicas: 1,
      startupPolicy: 'LeaderCreated',
      leaderWorkerTemplate: { workerTemplate: podTemplate(), size: 1, ...template },
      ...spec,
    },
  };
}
/** As the validating webhook sees it: after the mutating webhook too. */
function valid(template: Json = {}, spec: Json = {}, metadata: Json = {}): Json {
  return bare(
    { restartPolicy: 'RecreateGroupOnPodRestart', ...template },
    {
      rolloutStrategy: {
        type: 'RollingUpdate',
        rollingUpdateConfiguration: { partition: 0, maxUnavailable: 1, maxSurge: 0 },
      },
      networkConfig: { subdomainPolicy: 'Shared' },
      ...spec,
    },
    metadata,
  );
}
const rolling = (config: Json) => ({
  rolloutStrategy: {
    type: 'RollingUpdate',
    rollingUpdateConfiguration: { partition: 0, maxUnavailable: 1, maxSurge: 0, ...config },
  },
});
const subGroups = (subGroupSize: number | null, subGroupPolicyType = 'LeaderWorker') => ({
  subGroupPolicy: subGroupSize === null ? { subGroupPolicyType } : { subGroupPolicyType, subGroupSize },
});

const mutateLws = (name: string, object: Json, operation: 'CREATE' | 'UPDATE' = 'CREATE'): LwsGoldenCase => ({
  name,
  webhook: 'mutate-lws',
  operation,
  object,
});
const create = (name: string, object: Json): LwsGoldenCase => ({
  name,
  webhook: 'validate-lws',
  operation: 'CREATE',
  object,
});
const update = (name: string, oldObject: Json, object: Json): LwsGoldenCase => ({
  name,
  webhook: 'validate-lws',
  operation: 'UPDATE',
  object,
  oldObject,
});

export const DEFAULT_CASES: LwsGoldenCase[] = [
  mutateLws('a minimal LeaderWorkerSet', bare()),
  mutateLws('restartPolicy empty', bare({ restartPolicy: '' })),
  mutateLws('restartPolicy Default becomes None', bare({ restartPolicy: 'Default' })),
  mutateLws('restartPolicy RecreateGroupAfterStart is kept', bare({ restartPolicy: 'RecreateGroupAfterStart' })),
  mutateLws('rolloutStrategy type empty', bare({}, { rolloutStrategy: { type: '' } })),
  mutateLws(
    'rollingUpdateConfiguration set is kept',
    bare(
      {},
      {
        rolloutStrategy: {
          type: 'RollingUpdate',
          rollingUpdateConfiguration: { partition: 2, maxUnavailable: '50%', maxSurge: 1 },
        },
      },
    ),
  ),
  mutateLws('networkConfig without subdomainPolicy', bare({}, { networkConfig: {} })),
  mutateLws(
    'networkConfig UniquePerReplica is kept',
    bare({}, { networkConfig: { subdomainPolicy: 'UniquePerReplica' } }),
  ),
  mutateLws('a defaulted LeaderWorkerSet is not patched', valid()),
  mutateLws(
    'a defaulted LeaderWorkerSet is not patched, quantities as written',
    valid({
      workerTemplate: {
        spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1000m', memory: '0.5Gi' } } }] },
      },
    }),
    'UPDATE',
  ),
  mutateLws('unknown fields are kept', bare({}, { somethingNew: { a: 1 } })),
  mutateLws('subdomainPolicy removed on update is defaulted again', valid({}, { networkConfig: {} }), 'UPDATE'),
  mutateLws(
    'leader template and subgroups are left alone',
    bare({ leaderTemplate: podTemplate(), size: 4, ...subGroups(2) }),
  ),
  mutateLws(
    'more quantity forms, as Go writes them',
    bare({
      workerTemplate: {
        spec: {
          containers: [
            {
              name: 'c',
              image: 'x',
              resources: {
                requests: {
                  'example.com/q0': '-0.5',
                  'example.com/q1': '-1500m',
                  'example.com/q2': '1.0001Gi',
                  'example.com/q3': '5e-3',
                  'example.com/q4': '1E',
                  'example.com/q5': '0.1Ki',
                  'example.com/q6': '+1',
                  'example.com/q7': '1M',
                  'example.com/q8': '1000000',
                  'example.com/q9': '1e-9',
                  'example.com/q10': '1.5e3',
                  'example.com/q11': '123456789012345678',
                  'example.com/q12': '9223372036854775807',
                  'example.com/q13': '9223372036854775808',
                  'example.com/q14': '18446744073709551616Ki',
                  'example.com/q15': '1.999999999999',
                  'example.com/q16': '0.0',
                  'example.com/q17': '-0',
                  'example.com/q18': '100m',
                  'example.com/q19': '1000Mi',
                  'example.com/q20': '1024Ki',
                  'example.com/q21': '3Ti',
                  'example.com/q22': '7e0',
                  'example.com/q23': '0.5e1',
                  'example.com/q24': '2.5E-3',
                },
              },
            },
          ],
        },
      },
    }),
  ),
  mutateLws(
    'quantities in the templates are written as Go writes them',
    bare({
      leaderTemplate: {
        spec: {
          overhead: { cpu: '250m' },
          containers: [
            {
              name: 'l',
              image: 'x',
              resources: {
                requests: { cpu: '1000m', memory: '0.5Gi', 'ephemeral-storage': '1G' },
                limits: { cpu: 2, memory: '1.5Gi' },
              },
              env: [{ name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }],
            },
          ],
          volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }],
        },
      },
      workerTemplate: {
        spec: {
          containers: [
            {
              name: 'w',
              image: 'x',
              resources: {
                requests: {
                  cpu: '0.1',
                  memory: '100Mi',
                  'example.com/a': '1500k',
                  'example.com/b': '2000Ki',
                  'example.com/c': '1e3',
                  'example.com/d': '1024',
                  'example.com/e': '0.000000001',
                  'example.com/l': '0.0000000001',
                  'example.com/m': ' 5 ',
                },
                limits: {
                  'example.com/f': '12e6',
                  'example.com/g': '1.5',
                  'example.com/h': '1025Ki',
                  'example.com/i': '-2Gi',
                  'example.com/j': '1Ei',
                  'example.com/k': '0',
                  'example.com/n': '1.5Ki',
                  'example.com/o': '1e21',
                  'example.com/p': '0.5Ki',
                  'example.com/q': '100000000000000000000',
                },
              },
              env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1000m' } } }],
            },
          ],
          initContainers: [{ name: 'i', image: 'x', resources: { requests: { memory: '1048576' } } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10240Mi' } } },
          status: { capacity: { storage: '0.5Ti' } },
        },
      ],
    }),
  ),
];

export const CREATE_CASES: LwsGoldenCase[] = [
  create('a valid LeaderWorkerSet', valid()),
  create(
    'a valid LeaderWorkerSet of 3 groups of 4 with a leader template',
    valid({ size: 4, leaderTemplate: podTemplate() }, { replicas: 3 }),
  ),
  create('name not a DNS-1035 label (leading digit)', valid({}, {}, { name: '1lws' })),
  create('name not a DNS-1035 label (a dot)', valid({}, {}, { name: 'lws.a' })),
  create('name longer than 63', valid({}, {}, { name: 'l'.repeat(64) })),
  create('generateName with a trailing dash is accepted', valid({}, {}, { name: 'lws-abcde', generateName: 'lws-' })),
  create('generateName not a DNS-1035 label', valid({}, {}, { name: 'lws-abcde', generateName: 'Lws-' })),
  create('namespace missing', valid({}, {}, { namespace: '' })),
  create('namespace not a DNS-1123 label', valid({}, {}, { namespace: 'a.b' })),
  create('a label key that is not a qualified name', valid({}, {}, { labels: { 'a/b/c': 'x' } })),
  create('a label value that is not valid', valid({}, {}, { labels: { app: '-x' } })),
  create('an annotation key that is not a qualified name', valid({}, {}, { annotations: { '-bad': 'x' } })),
  create('a finalizer that is not a qualified name', valid({}, {}, { finalizers: ['example.com/a/b'] })),
  create('finalizers orphan and foregroundDeletion', valid({}, {}, { finalizers: ['orphan', 'foregroundDeletion'] })),
  create(
    'an owner reference without version, kind, name or uid',
    valid({}, {}, { ownerReferences: [{ apiVersion: 'example.com/', kind: '', name: '', uid: '' }] }),
  ),
  create(
    'an Event as owner',
    valid(
      {},
      {},
      { ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u1', blockOwnerDeletion: true }] },
    ),
  ),
  create(
    'two controller owner references',
    valid(
      {},
      {},
      {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a', uid: 'u1', controller: true },
          { apiVersion: 'example.com/v1', kind: 'Thing', name: 'b', uid: 'u2', controller: true },
        ],
      },
    ),
  ),
  create('generation < 0', valid({}, {}, { generation: -1 })),
  create('replicas < 0', valid({}, { replicas: -1 })),
  create(
    'replicas 0 with maxUnavailable 0 and maxSurge 0',
    valid({}, { replicas: 0, ...rolling({ maxUnavailable: 0 }) }),
  ),
  create('size < 1', valid({ size: 0 })),
  create('replicas times size over MaxInt32', valid({ size: 2 }, { replicas: Math.floor(MAX_INT32 / 2) + 1 })),
  create('maxUnavailable < 0', valid({}, rolling({ maxUnavailable: -1 }))),
  create('maxUnavailable a string not a percent', valid({}, rolling({ maxUnavailable: '1' }))),
  create('maxUnavailable a word', valid({}, rolling({ maxUnavailable: 'abc' }))),
  create('maxUnavailable over 100%', valid({}, rolling({ maxUnavailable: '101%' }))),
  create('maxUnavailable 100%', valid({}, { replicas: 4, ...rolling({ maxUnavailable: '100%' }) })),
  create('maxUnavailable 50% of one replica rounds down to 0', valid({}, rolling({ maxUnavailable: '50%' }))),
  create('maxUnavailable 0 and maxSurge 0', valid({}, rolling({ maxUnavailable: 0 }))),
  create('maxUnavailable 0 and maxSurge 1', valid({}, rolling({ maxUnavailable: 0, maxSurge: 1 }))),
  create('maxUnavailable 0 and maxSurge 1% rounds up to 1', valid({}, rolling({ maxUnavailable: 0, maxSurge: '1%' }))),
  create('maxSurge < 0', valid({}, rolling({ maxSurge: -2 }))),
  create('maxSurge over 100%', valid({}, rolling({ maxSurge: '200%' }))),
  create('maxSurge with a sign', valid({}, rolling({ maxUnavailable: 0, maxSurge: '+5%' }))),
  create('maxSurge a word and maxUnavailable 0', valid({}, rolling({ maxUnavailable: 0, maxSurge: 'x%' }))),
  create('partition < 0', valid({}, rolling({ partition: -1 }))),
  create('partition above replicas is allowed', valid({}, { replicas: 2, ...rolling({ partition: 5 }) })),
  create('subGroupSize 2 of size 4', valid({ size: 4, ...subGroups(2) })),
  create('subGroupSize 2 of size 5 (leader extra)', valid({ size: 5, ...subGroups(2) })),
  create('subGroupSize < 1', valid({ size: 4, ...subGroups(-1) })),
  create('subGroupSize 0 divides by zero', valid({ size: 4, ...subGroups(0) })),
  create('size nor size - 1 divisible by subGroupSize', valid({ size: 7, ...subGroups(4) })),
  create('subGroupSize larger than size', valid({ size: 2, ...subGroups(3) })),
  create('LeaderExcluded needs size - 1 divisible', valid({ size: 4, ...subGroups(2, 'LeaderExcluded') })),
  create('LeaderExcluded with size - 1 divisible', valid({ size: 5, ...subGroups(2, 'LeaderExcluded') })),
  create(
    'subgroup-exclusive-topology without subGroupSize',
    valid({}, {}, { annotations: { [SUBGROUP_EXCLUSIVE_KEY_ANNOTATION]: 'cloud.google.com/gke-nodepool' } }),
  ),
  create(
    'subgroup-exclusive-topology with subGroupSize',
    valid({ size: 4, ...subGroups(2) }, {}, { annotations: { [SUBGROUP_EXCLUSIVE_KEY_ANNOTATION]: 'topology' } }),
  ),
  create(
    'several errors at once',
    valid({ size: 0 }, { replicas: -1, ...rolling({ partition: -3, maxSurge: '300%' }) }, { name: 'Bad' }),
  ),
  create('size missing (Go dereferences nil)', valid({ size: undefined })),
  create('replicas missing (Go dereferences nil)', valid({}, { replicas: undefined })),
  create(
    'rollingUpdateConfiguration missing (Go dereferences nil)',
    bare({}, { rolloutStrategy: { type: 'RollingUpdate' } }),
  ),
  create(
    'partition missing (Go dereferences nil)',
    valid({}, { rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxUnavailable: 1 } } }),
  ),
  create('subGroupSize missing (Go dereferences nil)', valid({ size: 4, ...subGroups(null) })),
  create(
    'a quantity Go cannot decode',
    valid({
      workerTemplate: { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: 'lots' } } }] } },
    }),
  ),
];

const withSubGroups = (size: number, subGroupSize: number) => valid({ size, ...subGroups(subGroupSize) });
export const UPDATE_CASES: LwsGoldenCase[] = [
  update('replicas changed', valid(), valid({}, { replicas: 3 })),
  update(
    'template changed',
    valid(),
    valid({ workerTemplate: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } }),
  ),
  update('subGroupSize changed', withSubGroups(4, 2), withSubGroups(4, 4)),
  update('subGroupSize unchanged', withSubGroups(4, 2), withSubGroups(4, 2)),
  update('subGroupPolicy added', valid({ size: 4 }), withSubGroups(4, 2)),
  update('subGroupPolicy removed', withSubGroups(4, 2), valid({ size: 4 })),
  update('subdomainPolicy set to null', valid(), valid({}, { networkConfig: {} })),
  update('subdomainPolicy changed', valid(), valid({}, { networkConfig: { subdomainPolicy: 'UniquePerReplica' } })),
  update(
    'subdomainPolicy null where there was no networkConfig (Go dereferences nil)',
    bare({ restartPolicy: 'None' }, rolling({})),
    valid({}, { networkConfig: {} }),
  ),
  update('the new object invalid', valid(), valid({ size: 0 }, rolling({ maxUnavailable: '110%' }))),
];

// --- pods --------------------------------------------------------------------------------------------------------

const REVISION = 'abc123';
const groupKey = '4ed7f1b8e6b5d2b8bca5b91e8f9f0d2f3e8a9c11';

type PodOptions = {
  labels?: Json;
  annotations?: Json;
  spec?: Json;
  containers?: Json[];
  initContainers?: Json[];
  namespace?: string;
};
function pod(name: string, o: PodOptions): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', labels: o.labels ?? {}, annotations: o.annotations ?? {} },
    spec: {
      containers: o.containers ?? [{ name: 'c', image: 'nginx:1.27' }],
      ...(o.initContainers ? { initContainers: o.initContainers } : {}),
      subdomain: 'lws',
      ...o.spec,
    },
  };
}
/** A leader pod as the leader StatefulSet creates it (its template's labels and annotations). */
const leader = (name: string, annotations: Json = {}, o: PodOptions = {}) =>
  pod(name, {
    ...o,
    labels: { [SET_NAME_LABEL]: 'lws', [WORKER_INDEX_LABEL]: '0', [REVISION_KEY_LABEL]: REVISION, ...o.labels },
    annotations: { [SIZE_ANNOTATION]: '3', ...annotations },
  });
/** A worker pod as its group's worker StatefulSet creates it. */
const worker = (name: string, annotations: Json = {}, o: PodOptions = {}) =>
  pod(name, {
    ...o,
    labels: {
      [SET_NAME_LABEL]: 'lws',
      [GROUP_INDEX_LABEL]: '0',
      [GROUP_UNIQUE_HASH_LABEL]: groupKey,
      [REVISION_KEY_LABEL]: REVISION,
      ...o.labels,
    },
    annotations: { [SIZE_ANNOTATION]: '3', [LEADER_POD_NAME_ANNOTATION]: 'lws-0', ...annotations },
  });
const mutatePod = (name: string, object: Json): LwsGoldenCase => ({
  name,
  webhook: 'mutate-pod',
  operation: 'CREATE',
  object,
});
const tpu = (n: number, env: Json[] = [], name = 'tpu') => ({
  name,
  image: 'jax:latest',
  resources: { limits: { 'google.com/tpu': String(n) } },
  ...(env.length ? { env } : {}),
});
const subGroupAnnotations = (size: string, subGroupSize: string, type?: string): Json => ({
  [SIZE_ANNOTATION]: size,
  [SUBGROUP_SIZE_ANNOTATION]: subGroupSize,
  ...(type === undefined ? {} : { [SUBGROUP_POLICY_TYPE_ANNOTATION]: type }),
});
const exclusive = { [EXCLUSIVE_KEY_ANNOTATION]: 'cloud.google.com/gke-nodepool' };
const subExclusive = { [SUBGROUP_EXCLUSIVE_KEY_ANNOTATION]: 'kubernetes.io/hostname' };

export const POD_CASES: LwsGoldenCase[] = [
  mutatePod('a pod of no LeaderWorkerSet is left alone', pod('web-0', { labels: { app: 'web' } })),
  mutatePod('leader pod', leader('lws-0')),
  mutatePod('leader pod of group 12 in another namespace', leader('lws-12', {}, { namespace: 'team-a' })),
  mutatePod(
    'leader pod with group index and group key already set',
    leader('lws-1', {}, { labels: { [GROUP_INDEX_LABEL]: '7', [GROUP_UNIQUE_HASH_LABEL]: 'preset' } }),
  ),
  mutatePod(
    'leader pod, UniquePerReplica subdomain',
    leader('lws-2', { [SUBDOMAIN_POLICY_ANNOTATION]: 'UniquePerReplica' }),
  ),
  mutatePod(
    'leader pod with containers and init containers with env',
    leader(
      'lws-0',
      {},
      {
        containers: [
          {
            name: 'a',
            image: 'x',
            env: [
              { name: 'FOO', value: 'bar' },
              { name: 'LWS_WORKER_INDEX', value: 'old' },
            ],
          },
          {
            name: 'b',
            image: 'y',
            env: [
              { name: 'FOO', value: '1' },
              { name: 'FOO', value: '2' },
              { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
          },
        ],
        initContainers: [{ name: 'init', image: 'z' }],
      },
    ),
  ),
  mutatePod('leader pod, exclusive topology', leader('lws-0', exclusive)),
  mutatePod(
    'leader pod, exclusive topology with other affinities',
    leader('lws-0', exclusive, {
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: 'other', labelSelector: { matchLabels: { a: 'b' } } },
            ],
          },
        },
      },
    }),
  ),
  mutatePod(
    'leader pod, exclusive topology already applied',
    leader('lws-0', exclusive, {
      spec: {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'cloud.google.com/gke-nodepool' }],
          },
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'cloud.google.com/gke-nodepool' }],
          },
        },
      },
    }),
  ),
  mutatePod('leader pod, subgroups', leader('lws-0', subGroupAnnotations('4', '2', 'LeaderWorker'))),
  mutatePod(
    'leader pod, subgroups with both exclusive topologies',
    leader('lws-1', { ...subGroupAnnotations('4', '2', 'LeaderWorker'), ...exclusive, ...subExclusive }),
  ),
  mutatePod(
    'leader pod, LeaderExcluded subgroups',
    leader('lws-0', { ...subGroupAnnotations('5', '2', 'LeaderExcluded'), ...subExclusive }),
  ),
  mutatePod(
    'leader pod, subgroup index already set',
    leader('lws-0', subGroupAnnotations('4', '2'), { labels: { [SUBGROUP_INDEX_LABEL]: '3' } }),
  ),
  mutatePod('worker pod', worker('lws-0-1')),
  mutatePod('worker pod 2 of group 3', worker('lws-3-2', {}, { labels: { [GROUP_INDEX_LABEL]: '3' } })),
  mutatePod("worker pod, exclusive topology is not the webhook's on workers", worker('lws-0-1', exclusive)),
  mutatePod(
    'worker pod, worker-index label already wrong',
    worker('lws-0-2', {}, { labels: { [WORKER_INDEX_LABEL]: '9' } }),
  ),
  mutatePod('worker pod, subgroups (size divisible)', worker('lws-0-3', subGroupAnnotations('4', '2'))),
  mutatePod('worker pod, subgroups (size - 1 divisible)', worker('lws-0-3', subGroupAnnotations('5', '2'))),
  mutatePod(
    'worker pod, subgroups with exclusive topology',
    worker('lws-0-2', { ...subGroupAnnotations('4', '2'), ...subExclusive }),
  ),
  mutatePod(
    'worker pod, subgroup index already set',
    worker('lws-0-3', subGroupAnnotations('4', '2'), { labels: { [SUBGROUP_INDEX_LABEL]: '0' } }),
  ),
  mutatePod(
    'worker pod, UniquePerReplica (subdomain from its StatefulSet)',
    worker('lws-1-1', {}, { labels: { [GROUP_INDEX_LABEL]: '1' }, spec: { subdomain: 'lws-1' } }),
  ),
  mutatePod('leader pod requesting TPUs', leader('lws-0', {}, { containers: [tpu(4)] })),
  mutatePod('worker pod requesting TPUs, leader does not', worker('lws-0-2', {}, { containers: [tpu(4)] })),
  mutatePod(
    'worker pod requesting TPUs, leader does too',
    worker('lws-0-2', { [LEADER_REQUESTS_TPUS_ANNOTATION]: 'true' }, { containers: [tpu(4)] }),
  ),
  mutatePod(
    'worker pod with two TPU containers, one port set',
    worker(
      'lws-0-1',
      {},
      {
        containers: [
          tpu(2, [], 'a'),
          tpu(2, [{ name: 'TPU_PROCESS_PORT', value: '9000' }], 'b'),
          { name: 'side', image: 's' },
        ],
      },
    ),
  ),
  mutatePod(
    'worker pod with TPU env already set',
    worker('lws-0-1', {}, { containers: [tpu(4, [{ name: 'TPU_WORKER_ID', value: '5' }])] }),
  ),
  mutatePod(
    'worker pod requesting TPUs as a request, in an init container',
    worker(
      'lws-0-1',
      {},
      { initContainers: [{ name: 'i', image: 'x', resources: { requests: { 'google.com/tpu': '4' } } }] },
    ),
  ),
  mutatePod(
    'TPU limit 0 is not a TPU request',
    worker(
      'lws-0-1',
      {},
      {
        containers: [
          {
            name: 'c',
            image: 'x',
            resources: { limits: { 'google.com/tpu': '0' }, requests: { 'google.com/tpu': '4' } },
          },
        ],
      },
    ),
  ),
  mutatePod(
    'leader pod requesting TPUs, subgroups',
    leader('lws-0', subGroupAnnotations('5', '2', 'LeaderWorker'), { containers: [tpu(4)] }),
  ),
  mutatePod(
    'worker pod requesting TPUs, subgroups',
    worker('lws-0-3', subGroupAnnotations('5', '2'), { containers: [tpu(4)] }),
  ),
  mutatePod(
    'worker pod requesting TPUs, subgroups, leader requests TPUs, first subgroup',
    worker(
      'lws-0-1',
      { ...subGroupAnnotations('4', '2'), [LEADER_REQUESTS_TPUS_ANNOTATION]: 'true' },
      { containers: [tpu(4, [{ name: 'TPU_PROCESS_PORT', value: '7000' }])] },
    ),
  ),
  mutatePod(
    'worker pod requesting TPUs, subgroups, leader requests TPUs, second subgroup',
    worker(
      'lws-0-3',
      { ...subGroupAnnotations('4', '2'), [LEADER_REQUESTS_TPUS_ANNOTATION]: 'true' },
      { containers: [tpu(4)] },
    ),
  ),
  mutatePod(
    'leader pod requesting TPUs, LeaderExcluded subgroups (no subgroup index)',
    leader('lws-0', subGroupAnnotations('5', '2', 'LeaderExcluded'), { containers: [tpu(4)] }),
  ),
  mutatePod(
    'size annotation missing',
    pod('lws-0', { labels: { [SET_NAME_LABEL]: 'lws', [WORKER_INDEX_LABEL]: '0' } }),
  ),
  mutatePod('size annotation not a number', leader('lws-0', { [SIZE_ANNOTATION]: 'three' })),
  mutatePod('leader pod name without an ordinal', leader('lws')),
  mutatePod('worker pod name ordinal past int32', worker('lws-0-99999999999')),
  mutatePod(
    'worker pod without a group index label',
    pod('lws-0-1', { labels: { [SET_NAME_LABEL]: 'lws' }, annotations: { [SIZE_ANNOTATION]: '3' } }),
  ),
  mutatePod('worker pod, subgroup size not a number', worker('lws-0-1', subGroupAnnotations('4', 'two'))),
  mutatePod(
    'a pod with a quantity Go cannot decode',
    leader('lws-0', {}, { containers: [{ name: 'c', image: 'x', resources: { requests: { memory: '1 Gi' } } }] }),
  ),
  mutatePod('worker pod, subgroup size 0 (Go divides by zero)', worker('lws-0-1', subGroupAnnotations('4', '0'))),
  { name: 'pod validation admits an LWS pod', webhook: 'validate-pod', operation: 'CREATE', object: leader('lws-0') },
];

export const ALL_CASES: LwsGoldenCase[] = [...DEFAULT_CASES, ...CREATE_CASES, ...UPDATE_CASES, ...POD_CASES];
