// JobSet webhook cases, named after and modelled on jobset v0.12.0's own webhook unit tests
// (pkg/webhooks/jobset_webhook_test.go: TestJobSetDefaulting, TestValidateCreate, TestValidateUpdate). What upstream
// answers for each is in jobset-golden.json, produced by running upstream's webhook itself over these same objects
// (see upstream-golden/README.md); jobset-webhook.test.ts checks that fleetq answers the same.
import type { JobSet, ReplicatedJob } from '../../../shared/controllers/jobset/types.js';

import type { JobSetFeatures } from '../../../shared/admission/jobset-validation.js';

/** `features`: the alpha gates turned on for the case (upstream's InPlaceRestart, RestartJob, ElasticJobSet). */
export type GoldenCase = { features?: JobSetFeatures } & (
  | { name: string; op: 'default'; object: JobSet }
  | { name: string; op: 'create'; object: JobSet }
  | { name: string; op: 'update'; object: JobSet; oldObject: JobSet }
);

const MAX_INT32 = 2147483647;
const podTemplate = { spec: { containers: [{ name: 'test', image: 'bash:latest' }] } };

function rj(name: string, extra: Partial<ReplicatedJob> = {}, jobSpec: Record<string, unknown> = {}): ReplicatedJob {
  return {
    name,
    groupName: 'default',
    replicas: 1,
    ...extra,
    template: { spec: { template: structuredClone(podTemplate), ...jobSpec } as never },
  };
}
const indexed = (completions: number, parallelism = completions) => ({
  completionMode: 'Indexed',
  completions,
  parallelism,
});

function js(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): JobSet {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: 'default', ...metadata },
    spec: { successPolicy: { operator: 'All' }, ...spec },
  } as JobSet;
}
/** A JobSet as the API server hands it to the validating webhook: after the mutating one. */
const valid = (name: string, spec: Record<string, unknown>, metadata?: Record<string, unknown>) =>
  js(name, { replicatedJobs: [rj('rj')], ...spec }, metadata);

const bare = (spec: Record<string, unknown>): JobSet =>
  ({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js' }, spec }) as JobSet;

export const DEFAULT_CASES: GoldenCase[] = [
  { name: 'job completion mode is unset', op: 'default', object: bare({ replicatedJobs: [rj('rj')] }) },
  {
    name: 'job completion mode is set to non-indexed',
    op: 'default',
    object: bare({ replicatedJobs: [rj('rj', {}, { completionMode: 'NonIndexed' })] }),
  },
  { name: 'enableDNSHostnames is unset', op: 'default', object: bare({ network: {} }) },
  { name: 'enableDNSHostnames is false', op: 'default', object: bare({ network: { enableDNSHostnames: false } }) },
  {
    name: 'PublishNotReadyNetworkAddresess is false',
    op: 'default',
    object: bare({ network: { publishNotReadyAddresses: false } }),
  },
  {
    name: 'PublishNotReadyNetworkAddresess is true',
    op: 'default',
    object: bare({ network: { publishNotReadyAddresses: true, subdomain: 'custom' } }),
  },
  { name: 'pod restart policy unset', op: 'default', object: bare({ replicatedJobs: [rj('rj')] }) },
  {
    name: 'pod restart policy set',
    op: 'default',
    object: bare({
      replicatedJobs: [
        { ...rj('rj'), template: { spec: { template: { spec: { ...podTemplate.spec, restartPolicy: 'Always' } } } } },
      ],
    }),
  },
  { name: 'success policy unset', op: 'default', object: bare({}) },
  {
    name: 'success policy operator set, replicatedJobNames unset',
    op: 'default',
    object: bare({ successPolicy: { operator: 'Any' } }),
  },
  {
    name: 'startup policy order InOrder set',
    op: 'default',
    object: bare({ startupPolicy: { startupPolicyOrder: 'InOrder' } }),
  },
  { name: 'managedBy field is left nil', op: 'default', object: bare({}) },
  {
    name: 'when provided, managedBy field is preserved',
    op: 'default',
    object: bare({ managedBy: 'other-controller' }),
  },
  {
    name: 'failure policy rule name is defaulted when there is one rule',
    op: 'default',
    object: bare({ failurePolicy: { rules: [{ action: 'FailJobSet' }] } }),
  },
  {
    name: 'failure policy rule name is defaulted when there are two rules',
    op: 'default',
    object: bare({ failurePolicy: { rules: [{ action: 'FailJobSet' }, { action: 'RestartJobSet', name: 'named' }] } }),
  },
  {
    name: 'volumeClaimPolicy retentionPolicy is defaulted to Delete when nil',
    op: 'default',
    object: bare({
      volumeClaimPolicies: [
        { templates: [{ metadata: { name: 'data' } }] },
        { templates: [{ metadata: { name: 'keep' } }], retentionPolicy: { whenDeleted: 'Retain' } },
      ],
    }),
  },
  {
    name: 'no spec at all (fleetq)',
    op: 'default',
    object: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js' } } as JobSet,
  },
  {
    name: 'replicated job without a pod spec (fleetq)',
    op: 'default',
    object: bare({ replicatedJobs: [{ name: 'rj', replicas: 1, template: { spec: {} } }] }),
  },
];

const volumeMount = (claim: string) => ({
  spec: { containers: [{ name: 'test', image: 'bash:latest', volumeMounts: [{ name: claim, mountPath: '/data' }] }] },
});
const withPod = (r: ReplicatedJob, template: unknown): ReplicatedJob => ({
  ...r,
  template: { spec: { ...r.template.spec, template } as never },
});

export const CREATE_CASES: GoldenCase[] = [
  {
    name: 'number of pods exceeds the limit',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [rj('test-jobset-replicated-job-0', { replicas: MAX_INT32 }, { parallelism: MAX_INT32 })],
    }),
  },
  {
    name: 'number of pods within the limit',
    op: 'create',
    object: valid('js', { replicatedJobs: [rj('test-jobset-replicated-job-0', { replicas: 1 }, { parallelism: 1 })] }),
  },
  {
    name: 'success policy has non matching replicated job',
    op: 'create',
    object: valid('js', { successPolicy: { operator: 'All', targetReplicatedJobs: ['does-not-exist'] } }),
  },
  {
    name: 'network has invalid dns name',
    op: 'create',
    object: valid('js', { network: { subdomain: 'username.domain' } }),
  },
  {
    name: 'network subdomain is too long (fleetq)',
    op: 'create',
    object: valid('js', { network: { subdomain: 'a'.repeat(64) } }),
  },
  { name: 'jobset name with invalid character', op: 'create', object: valid('username.domain', {}) },
  {
    name: 'group name is not DNS 1035 compliant',
    op: 'create',
    object: valid('js', { replicatedJobs: [rj('rj', { groupName: 'Not_Valid' })] }),
  },
  {
    name: 'group name is too long (fleetq)',
    op: 'create',
    object: valid('js', { replicatedJobs: [rj('rj', { groupName: 'g'.repeat(64) })] }),
  },
  {
    name: 'jobset name will result in job name being too long',
    op: 'create',
    object: valid('a'.repeat(62), { replicatedJobs: [rj('rj', { replicas: 101 })] }),
  },
  {
    name: 'jobset name will result in a pod name being too long',
    op: 'create',
    object: valid('a'.repeat(56), { replicatedJobs: [rj('rj', {}, indexed(1))] }),
  },
  {
    name: 'jobset controller name is not a domain-prefixed path',
    op: 'create',
    object: valid('js', { managedBy: 'notDomainPrefixedPathControllerName' }),
  },
  {
    name: 'jobset controller name is too long',
    op: 'create',
    object: valid('js', { managedBy: 'foo.bar/' + 'a'.repeat(63) }),
  },
  {
    name: 'jobset controller name is set and valid',
    op: 'create',
    object: valid('js', { managedBy: 'example.com/foo' }),
  },
  { name: 'jobset controller name is unset', op: 'create', object: valid('js', {}) },
  { name: 'jobset controller name is empty (fleetq)', op: 'create', object: valid('js', { managedBy: '' }) },
  {
    name: 'jobset controller name has an invalid host and path (fleetq)',
    op: 'create',
    object: valid('js', { managedBy: 'Foo_Bar/a b' }),
  },
  {
    name: 'failure policy rule name is valid',
    op: 'create',
    object: valid('js', {
      failurePolicy: { rules: [{ name: 'superAwesomeFailurePolicyRule', action: 'FailJobSet' }] },
    }),
  },
  {
    name: 'jobset failure policy has an invalid on job failure reason',
    op: 'create',
    object: valid('js', {
      failurePolicy: { rules: [{ name: 'rule0', action: 'FailJobSet', onJobFailureReasons: ['fakeReason'] }] },
    }),
  },
  {
    name: 'jobset failure policy has an invalid replicated job',
    op: 'create',
    object: valid('js', {
      failurePolicy: { rules: [{ name: 'rule0', action: 'FailJobSet', targetReplicatedJobs: ['fakeReplicatedJob'] }] },
    }),
  },
  {
    name: 'jobset failure policy rule name is 0 characters long a.k.a unset',
    op: 'create',
    object: valid('js', { failurePolicy: { rules: [{ name: '', action: 'FailJobSet' }] } }),
  },
  {
    name: 'jobset failure policy rule name is greater than 128 characters long',
    op: 'create',
    object: valid('js', { failurePolicy: { rules: [{ name: 'a'.repeat(129), action: 'FailJobSet' }] } }),
  },
  {
    name: 'there are two failure policy rules with the same name',
    op: 'create',
    object: valid('js', {
      failurePolicy: {
        rules: [
          { name: 'repeatedRuleName', action: 'FailJobSet' },
          { name: 'repeatedRuleName', action: 'FailJobSet' },
        ],
      },
    }),
  },
  {
    name: 'failure policy rule name does not start with an alphabetic character',
    op: 'create',
    object: valid('js', { failurePolicy: { rules: [{ name: '1FailurePolicyRule', action: 'FailJobSet' }] } }),
  },
  {
    name: "failure policy rule name does not end with an alphanumeric nor '_'",
    op: 'create',
    object: valid('js', { failurePolicy: { rules: [{ name: 'ruleName,', action: 'FailJobSet' }] } }),
  },
  {
    name: 'RestartJob action is refused while its feature gate is off (fleetq)',
    op: 'create',
    object: valid('js', { failurePolicy: { rules: [{ name: 'r', action: 'RestartJob' }] } }),
  },
  {
    name: 'InPlaceRestart is refused while its feature gate is off (fleetq)',
    op: 'create',
    object: valid('js', { failurePolicy: { restartStrategy: 'InPlaceRestart' } }),
  },
  {
    name: 'coordinator replicated job does not exist',
    op: 'create',
    object: valid('js', { coordinator: { replicatedJob: 'fake-rjob', jobIndex: 0, podIndex: 0 } }),
  },
  {
    name: 'coordinator replicated job missing completions',
    op: 'create',
    object: valid('js', {
      coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 },
      replicatedJobs: [rj('replicatedjob-a', {}, { completionMode: 'Indexed', parallelism: 1 })],
    }),
  },
  {
    name: 'coordinator job index invalid',
    op: 'create',
    object: valid('js', {
      coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 2, podIndex: 0 },
      replicatedJobs: [rj('replicatedjob-a', {}, indexed(1))],
    }),
  },
  {
    name: 'coordinator pod index invalid',
    op: 'create',
    object: valid('js', {
      coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 2 },
      replicatedJobs: [rj('replicatedjob-a', {}, indexed(1))],
    }),
  },
  {
    name: 'coordinator label value is too long due to long JobSet name',
    op: 'create',
    object: valid('a'.repeat(40), {
      coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 },
      replicatedJobs: [rj('replicatedjob-a', {}, indexed(1))],
    }),
  },
  {
    name: 'coordinator label value is too long due to long SubDomain',
    op: 'create',
    object: valid('js', {
      network: { subdomain: 's'.repeat(50) },
      coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 },
      replicatedJobs: [rj('replicatedjob-a', {}, indexed(1))],
    }),
  },
  {
    name: 'DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [
        rj('job-1'),
        rj('job-2', { dependsOn: [{ name: 'job-1', status: 'Ready' }] }),
        rj('job-3', { dependsOn: [{ name: 'job-2', status: 'Complete' }] }),
      ],
    }),
  },
  {
    name: 'DependsOn is invalid since job-2 depends on job-3',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [rj('job-1'), rj('job-2', { dependsOn: [{ name: 'job-3', status: 'Ready' }] }), rj('job-3')],
    }),
  },
  {
    name: 'job-2 depends on invalid ReplicatedJob',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [rj('job-1'), rj('job-2', { dependsOn: [{ name: 'invalid', status: 'Ready' }] })],
    }),
  },
  {
    name: 'dependsOn should not fail if there are no replicated jobs',
    op: 'create',
    object: valid('js', { replicatedJobs: [] }),
  },
  {
    name: 'dependsOn cannot be set for first replicated job',
    op: 'create',
    object: valid('js', { replicatedJobs: [rj('job-1', { dependsOn: [{ name: 'job-1', status: 'Ready' }] })] }),
  },
  {
    name: 'volumeClaimPolicy is valid since volume exists in the container',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [withPod(rj('rj'), volumeMount('data'))],
      volumeClaimPolicies: [
        { templates: [{ metadata: { name: 'data' } }], retentionPolicy: { whenDeleted: 'Delete' } },
      ],
    }),
  },
  {
    name: 'volumeClaimPolicy is valid since volume exists in the initContainer',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [
        withPod(rj('rj'), {
          spec: {
            initContainers: [{ name: 'init', image: 'bash', volumeMounts: [{ name: 'data', mountPath: '/d' }] }],
            containers: [{ name: 'test', image: 'bash:latest' }],
          },
        }),
      ],
      volumeClaimPolicies: [{ templates: [{ metadata: { name: 'data' } }] }],
    }),
  },
  {
    name: 'volumeClaimPolicy is invalid since template names are not unique',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [withPod(rj('rj'), volumeMount('data'))],
      volumeClaimPolicies: [{ templates: [{ metadata: { name: 'data' } }, { metadata: { name: 'data' } }] }],
    }),
  },
  {
    name: 'volumeClaimPolicy is invalid since template name has uppercase letters',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [withPod(rj('rj'), volumeMount('Data'))],
      volumeClaimPolicies: [{ templates: [{ metadata: { name: 'Data' } }] }],
    }),
  },
  {
    name: 'volumeClaimPolicy is invalid since template name is too long',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [withPod(rj('rj'), volumeMount('d'.repeat(61)))],
      volumeClaimPolicies: [{ templates: [{ metadata: { name: 'd'.repeat(61) } }] }],
    }),
  },
  {
    name: 'volumeClaimPolicy is invalid since no matching volumeMount in containers',
    op: 'create',
    object: valid('js', { volumeClaimPolicies: [{ templates: [{ metadata: { name: 'data' } }] }] }),
  },
  {
    name: 'volumeClaimPolicy is invalid since volume name conflicts with existing volume',
    op: 'create',
    object: valid('js', {
      replicatedJobs: [
        withPod(rj('rj'), {
          spec: { ...volumeMount('data').spec, volumes: [{ name: 'data', emptyDir: {} }] },
        }),
      ],
      volumeClaimPolicies: [{ templates: [{ metadata: { name: 'data' } }] }],
    }),
  },
  {
    name: 'several errors at once are listed in brackets (fleetq)',
    op: 'create',
    object: valid('a'.repeat(62), {
      network: { subdomain: 'Bad.Sub' },
      replicatedJobs: [rj('rj', { replicas: 101, groupName: '1bad' })],
      successPolicy: { operator: 'All', targetReplicatedJobs: ['nope'] },
    }),
  },
];

const suspended = (spec: Record<string, unknown>) => valid('js', { suspend: true, ...spec });
const podWith = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { ...podTemplate.spec, ...spec },
});

export const UPDATE_CASES: GoldenCase[] = [
  { name: 'update suspend', op: 'update', oldObject: valid('js', {}), object: valid('js', { suspend: true }) },
  {
    name: 'update labels',
    op: 'update',
    oldObject: valid('js', {}),
    object: valid('js', {}, { labels: { foo: 'bar' } }),
  },
  {
    name: 'managedBy is immutable',
    op: 'update',
    oldObject: valid('js', { managedBy: 'example.com/old' }),
    object: valid('js', { managedBy: 'example.com/new' }),
  },
  {
    name: 'replicated job pod template can be updated for suspended jobset',
    op: 'update',
    oldObject: suspended({ replicatedJobs: [withPod(rj('rj'), podWith({ a: '1' }))] }),
    object: suspended({
      replicatedJobs: [withPod(rj('rj'), podWith({ a: '2' }, { nodeSelector: { zone: 'a' } }))],
    }),
  },
  {
    name: 'replicated job pod template can be updated for jobset getting suspended',
    op: 'update',
    oldObject: valid('js', { replicatedJobs: [withPod(rj('rj'), podWith({ a: '1' }))] }),
    object: suspended({ replicatedJobs: [withPod(rj('rj'), podWith({ a: '2' }))] }),
  },
  {
    name: 'replicated job pod template cannot be updated for running jobset',
    op: 'update',
    oldObject: valid('js', { replicatedJobs: [withPod(rj('rj'), podWith({ a: '1' }))] }),
    object: valid('js', { replicatedJobs: [withPod(rj('rj'), podWith({ a: '2' }))] }),
  },
  {
    name: 'schedulingGates for pod template can be updated for suspended JobSet',
    op: 'update',
    oldObject: suspended({ replicatedJobs: [withPod(rj('rj'), podWith({}))] }),
    object: suspended({ replicatedJobs: [withPod(rj('rj'), podWith({}, { schedulingGates: [{ name: 'gate' }] }))] }),
  },
  {
    name: 'schedulingGates for pod template cannot be updated for unsuspended JobSet',
    op: 'update',
    oldObject: valid('js', { replicatedJobs: [withPod(rj('rj'), podWith({}))] }),
    object: valid('js', { replicatedJobs: [withPod(rj('rj'), podWith({}, { schedulingGates: [{ name: 'gate' }] }))] }),
  },
  {
    name: 'invalid scaling of parallelism and completions when feature gate is disabled',
    op: 'update',
    oldObject: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(3))] }),
  },
  {
    name: 'an empty list and an absent one are equal (fleetq)',
    op: 'update',
    oldObject: valid('js', {
      replicatedJobs: [withPod(rj('rj'), { spec: { containers: [{ name: 'c', image: 'i' }] } })],
    }),
    object: valid('js', {
      replicatedJobs: [
        withPod(rj('rj'), { metadata: {}, spec: { containers: [{ name: 'c', image: 'i', args: [] }] } }),
      ],
    }),
  },
];

const inPlace = { inPlaceRestart: true };
const elastic = { elasticJobSet: true };
const completed = (j: JobSet, type: string): JobSet => ({
  ...j,
  status: { conditions: [{ type, status: 'True', reason: 'r', message: 'm' }] },
});

export const GATED_CASES: GoldenCase[] = [
  {
    name: 'in-place restart with its gate: backoffLimit, podReplacementPolicy, completions unset',
    op: 'create',
    features: inPlace,
    object: valid('js', { failurePolicy: { restartStrategy: 'InPlaceRestart' } }),
  },
  {
    name: 'in-place restart with its gate: a valid ReplicatedJob',
    op: 'create',
    features: inPlace,
    object: valid('js', {
      failurePolicy: { restartStrategy: 'InPlaceRestart' },
      replicatedJobs: [rj('rj', {}, { ...indexed(2), backoffLimit: MAX_INT32, podReplacementPolicy: 'Failed' })],
    }),
  },
  {
    name: 'in-place restart with its gate: completions differ from parallelism',
    op: 'create',
    features: inPlace,
    object: valid('js', {
      failurePolicy: { restartStrategy: 'InPlaceRestart' },
      replicatedJobs: [
        rj('rj', {}, { ...indexed(2, 3), backoffLimit: 6, podReplacementPolicy: 'TerminatingOrFailed' }),
      ],
    }),
  },
  {
    name: 'RestartJob with its gate and more than 1024 replicas',
    op: 'create',
    features: { restartJob: true },
    object: valid('js', {
      replicatedJobs: [rj('rj', { replicas: 1025 })],
      failurePolicy: { rules: [{ name: 'r', action: 'RestartJobAndIgnoreMaxRestarts' }] },
    }),
  },
  {
    name: 'RestartJob with its gate is allowed',
    op: 'create',
    features: { restartJob: true },
    object: valid('js', { failurePolicy: { rules: [{ name: 'r', action: 'RestartJob' }] } }),
  },
  {
    name: 'valid scaling of parallelism and completions',
    op: 'update',
    features: elastic,
    oldObject: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(4))] }),
  },
  {
    name: 'invalid scaling of parallelism to < 1',
    op: 'update',
    features: elastic,
    oldObject: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2, 0))] }),
  },
  {
    name: 'invalid scaling of completions to < 1',
    op: 'update',
    features: elastic,
    oldObject: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(0))] }),
  },
  {
    name: 'cannot scale parallelism if JobSet is Completed',
    op: 'update',
    features: elastic,
    oldObject: completed(valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }), 'Completed'),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2, 3))] }),
  },
  {
    name: 'cannot scale completions if JobSet is Failed',
    op: 'update',
    features: elastic,
    oldObject: completed(valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }), 'Failed'),
    object: valid('js', { replicatedJobs: [rj('rj', {}, indexed(3, 2))] }),
  },
  {
    name: 'immutability still enforced for other fields during valid scale',
    op: 'update',
    features: elastic,
    oldObject: valid('js', { replicatedJobs: [rj('rj', {}, indexed(2))] }),
    object: valid('js', { replicatedJobs: [rj('rj', { replicas: 2 }, indexed(3))] }),
  },
  {
    name: 'reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name',
    op: 'update',
    features: elastic,
    oldObject: valid('js', { replicatedJobs: [rj('a', {}, indexed(2)), rj('b', {}, indexed(1))] }),
    object: valid('js', { replicatedJobs: [rj('b', {}, indexed(1)), rj('a', {}, indexed(3))] }),
  },
  {
    name: 'adding a new ReplicatedJob while suspended does not panic and is rejected',
    op: 'update',
    features: elastic,
    oldObject: suspended({ replicatedJobs: [rj('a')] }),
    object: suspended({ replicatedJobs: [rj('a'), rj('b')] }),
  },
];

export const ALL_CASES: GoldenCase[] = [...DEFAULT_CASES, ...CREATE_CASES, ...UPDATE_CASES, ...GATED_CASES];
