// The harness checks itself: normalization hides names, uids and timestamps but not behaviour, and a
// run whose sides really differ (an extra step on one side, a broken invariant) is reported as failing.
// Both live sides run on upstream-1, whatever CONFORMANCE_B says.
import { describe, expect, it } from '@jest/globals';
import { diff, normalize } from '../helpers/conformance/normalize.js';
import { runScenario, type ConformanceOptions } from '../helpers/conformance/runner.js';
import { replicaSetSettled } from '../helpers/conformance/predicates.js';
import { jobKeptForTtl, jobParallelismBound, jobSucceededCountedOnce } from '../helpers/conformance/invariants.js';
import type { Invariant, Job, KubeEvent, Pod, ReplicaSet, Snapshot } from '../helpers/conformance/types.js';
import { replicaSet } from './scenarios/builders.js';

const OPTIONS: ConformanceOptions = {
  a: { cluster: 'upstream-1', label: 'upstream-1' },
  b: { cluster: 'upstream-1', label: 'upstream-1#2' },
  exactHashes: false,
  strictEvents: false,
  keepFailed: false,
};

function snapshot(ns: string, suffix: string, o: { ready?: number } = {}): Snapshot {
  const rs: ReplicaSet = {
    metadata: {
      name: `web-${suffix}`,
      namespace: ns,
      uid: `uid-rs-${suffix}`,
      resourceVersion: suffix,
      generation: 1,
      creationTimestamp: `2025-01-01T00:00:0${suffix.length}Z`,
      labels: { app: 'web', 'pod-template-hash': suffix },
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: `uid-d-${suffix}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': suffix } },
      template: { metadata: { labels: { app: 'web', 'pod-template-hash': suffix } }, spec: {} },
    },
    status: { observedGeneration: 1, replicas: 2, readyReplicas: o.ready ?? 2, availableReplicas: o.ready ?? 2 },
  };
  const pod = (i: number, ready: boolean): Pod => ({
    metadata: {
      name: `web-${suffix}-${i}${suffix}`,
      uid: `uid-p-${i}-${suffix}`,
      labels: { app: 'web', 'pod-template-hash': suffix },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${suffix}`,
          uid: `uid-rs-${suffix}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {},
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2025-01-01T00:00:00Z' }],
    },
  });
  return {
    at: 0,
    jobs: [],
    deployments: [
      {
        metadata: { name: 'web', uid: `uid-d-${suffix}`, generation: 1 },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: {} } },
        status: {
          observedGeneration: 1,
          replicas: 2,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: `ReplicaSet "web-${suffix}" has successfully progressed.`,
              lastUpdateTime: suffix,
            },
          ],
        },
      },
    ],
    replicaSets: [rs],
    pods: [pod(1, true), pod(2, (o.ready ?? 2) === 2)],
  };
}

function event(ns: string, kind: string, name: string, reason: string, type: string, message: string): KubeEvent {
  return {
    metadata: { name: `${name}.17f0`, namespace: ns },
    involvedObject: { kind, name, uid: `uid-${name}` },
    reason,
    type,
    message,
    count: 1,
    source: { component: kind === 'Deployment' ? 'deployment-controller' : 'replicaset-controller' },
  };
}

/** A Job `work` (Indexed, completions 3) with one pod per phase given, its selector generated from its uid. */
function jobSnapshot(
  ns: string,
  uid: string,
  o: { phases: string[]; succeeded: number; completedIndexes?: string; finalizerOnSucceeded?: boolean },
): Snapshot {
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'work' };
  const job: Job = {
    metadata: { name: 'work', namespace: ns, uid, creationTimestamp: `2025-01-01T00:00:0${uid.length % 10}Z` },
    spec: {
      completions: 3,
      parallelism: 3,
      completionMode: 'Indexed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels }, spec: {} },
    },
    status: {
      active: o.phases.filter((p) => p === 'Running').length,
      succeeded: o.succeeded,
      ...(o.completedIndexes !== undefined && { completedIndexes: o.completedIndexes }),
      startTime: `2025-01-01T00:00:0${uid.length % 10}Z`,
    },
  };
  const pods = o.phases.map((phase, i): Pod => ({
    metadata: {
      name: `work-${i}-${uid}`,
      namespace: ns,
      uid: `${uid}-${i}`,
      labels: { ...labels, 'batch.kubernetes.io/job-completion-index': String(i) },
      annotations: { 'batch.kubernetes.io/job-completion-index': String(i) },
      ...((phase === 'Running' || o.finalizerOnSucceeded === true) && {
        finalizers: ['batch.kubernetes.io/job-tracking'],
      }),
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: { hostname: `work-${i}` },
    status: { phase },
  }));
  return { at: 0, deployments: [], replicaSets: [], jobs: [job], pods };
}

describe('conformance harness', () => {
  it('normalizes Jobs: generated selector, uids and times hidden; counts, indexes and finalizers kept', () => {
    const state = (ns: string, uid: string, finalizerOnSucceeded = false) =>
      normalize(
        jobSnapshot(ns, uid, {
          phases: ['Succeeded', 'Running', 'Succeeded'],
          succeeded: 2,
          completedIndexes: '0,2',
          finalizerOnSucceeded,
        }),
        ns,
      ).state;
    const a = state('ns-a', 'uid-aaaa');
    expect(diff(a, state('ns-b', 'uid-bbbbbbbb'))).toEqual([]);
    expect(a.pods).toEqual({
      'Job/work': {
        'Succeeded/unready/index=0': 1,
        'Running/unready/index=1/tracking-finalizer': 1,
        'Succeeded/unready/index=2': 1,
      },
    });
    expect(diff(a, state('ns-b', 'uid-bbbb', true)).map((d) => d.path)).toEqual([
      'pods.Job/work.Succeeded/unready/index=0',
      'pods.Job/work.Succeeded/unready/index=0/tracking-finalizer',
      'pods.Job/work.Succeeded/unready/index=2',
      'pods.Job/work.Succeeded/unready/index=2/tracking-finalizer',
    ]);
    const other = normalize(
      jobSnapshot('ns-b', 'uid-bbbb', { phases: ['Succeeded', 'Running', 'Succeeded'], succeeded: 1 }),
      'ns-b',
    ).state;
    expect(diff(a, other)).toEqual([
      { path: 'jobs.work.status.completedIndexes', a: '0,2', b: undefined },
      { path: 'jobs.work.status.succeeded', a: 2, b: 1 },
    ]);
    // A namespace without Jobs compares exactly as before Jobs were sampled.
    expect(Object.keys(normalize(snapshot('ns-a', 'aaaa'), 'ns-a').state)).toEqual([
      'deployments',
      'replicaSets',
      'pods',
    ]);
  });

  it('the Job invariants catch a double count and more active pods than parallelism, per side', () => {
    const once = jobSucceededCountedOnce('work');
    const ok = jobSnapshot('ns-a', 'uid-a', { phases: ['Succeeded', 'Running', 'Running'], succeeded: 1 });
    expect(once.check(ok)).toBeNull();
    // The other side's Job (another uid) has seen no succeeded pod of its own: its count of 1 is one too many.
    const twice = jobSnapshot('ns-b', 'uid-b', { phases: ['Running', 'Running', 'Running'], succeeded: 1 });
    expect(once.check(twice)).toBe('status.succeeded 1 > 0 succeeded pods seen');
    // A pod seen Succeeded once stays counted as seen (the first side).
    expect(once.check(jobSnapshot('ns-a', 'uid-a', { phases: ['Running'], succeeded: 1 }))).toBeNull();
    const bound = jobParallelismBound('work');
    expect(bound.check(ok)).toBeNull();
    const four = jobSnapshot('ns-a', 'uid-a', { phases: ['Running', 'Running', 'Running', 'Running'], succeeded: 0 });
    expect(bound.check(four)).toBe('4 active pods > 3');
  });

  it('the TTL invariant catches a Job gone or marked before finish + TTL, per side by namespace', () => {
    const kept = jobKeptForTtl('work');
    const finished = Date.parse('2025-01-01T00:00:10Z');
    const sample = (namespace: string, at: number, job?: Partial<Job['metadata']>): Snapshot => ({
      at,
      namespace,
      deployments: [],
      replicaSets: [],
      pods: [],
      jobs: job
        ? [
            {
              metadata: { name: 'work', namespace, ...job },
              spec: { ttlSecondsAfterFinished: 5, template: {} },
              status: {
                conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2025-01-01T00:00:10Z' }],
              },
            },
          ]
        : [],
    });
    expect(kept.check(sample('ns-a', finished, {}))).toBeNull();
    expect(kept.check(sample('ns-b', finished, {}))).toBeNull();
    // Side a: gone 1 s after it finished, 4 s early. Side b: gone after the expiry, fine.
    expect(kept.check(sample('ns-a', finished + 1_000))).toBe(
      'gone at 2025-01-01T00:00:11.000Z, before 2025-01-01T00:00:15.000Z',
    );
    expect(kept.check(sample('ns-b', finished + 5_000))).toBeNull();
    // Marked for deletion before the expiry, or seen marked early: caught; a deletionTimestamp at it: fine.
    const early = sample('ns-c', finished, {});
    expect(kept.check(early)).toBeNull();
    expect(kept.check(sample('ns-c', finished + 6_000, { deletionTimestamp: '2025-01-01T00:00:12Z' }))).toBe(
      'deletionTimestamp 2025-01-01T00:00:12Z before its TTL expired at 2025-01-01T00:00:15.000Z',
    );
    expect(kept.check(sample('ns-d', finished, {}))).toBeNull();
    expect(kept.check(sample('ns-d', finished + 5_500, { deletionTimestamp: '2025-01-01T00:00:15Z' }))).toBeNull();
    // A namespace never seen with the Job (or never with a TTL) is not judged.
    expect(kept.check(sample('ns-e', finished))).toBeNull();
  });

  it('normalizes away names, uids, hashes and timestamps', () => {
    const a = normalize(snapshot('ns-a', 'aaaa'), 'ns-a');
    const b = normalize(snapshot('ns-b', 'bbbbbb'), 'ns-b');
    expect(diff(a.state, b.state)).toEqual([]);
    expect(diff(a.hashes, b.hashes)).toEqual([{ path: 'web@1', a: 'aaaa', b: 'bbbbbb' }]);
  });

  it('normalizes events to the set of reason + type per workload, ReplicaSets by revision', () => {
    const events = (ns: string, suffix: string, extra: KubeEvent[] = []): KubeEvent[] => [
      event(ns, 'Deployment', 'web', 'ScalingReplicaSet', 'Normal', `Scaled up replica set web-${suffix} from 0 to 2`),
      event(ns, 'Deployment', 'web', 'ScalingReplicaSet', 'Normal', `Scaled up replica set web-${suffix} from 2 to 3`),
      event(ns, 'ReplicaSet', `web-${suffix}`, 'SuccessfulCreate', 'Normal', `Created pod: web-${suffix}-x`),
      event(ns, 'ReplicaSet', 'web-gone', 'SuccessfulDelete', 'Normal', 'Deleted pod: web-gone-y'),
      event(ns, 'Pod', `web-${suffix}-x`, 'Scheduled', 'Normal', 'Successfully assigned'),
      ...extra,
    ];
    const a = normalize(snapshot('ns-a', 'aaaa'), 'ns-a', events('ns-a', 'aaaa')).events;
    const b = normalize(snapshot('ns-b', 'bbbbbb'), 'ns-b', events('ns-b', 'bbbbbb')).events;
    expect(a).toEqual({
      'Deployment/web': { 'ScalingReplicaSet (Normal)': true },
      'ReplicaSet/web@1': { 'SuccessfulCreate (Normal)': true },
      'ReplicaSet/deleted': { 'SuccessfulDelete (Normal)': true },
    });
    expect(diff(a, b)).toEqual([]);
    const failed = event('ns-b', 'ReplicaSet', 'web-bbbbbb', 'FailedCreate', 'Warning', 'Error creating: quota');
    const c = normalize(snapshot('ns-b', 'bbbbbb'), 'ns-b', events('ns-b', 'bbbbbb', [failed])).events;
    expect(diff(a, c)).toEqual([{ path: 'ReplicaSet/web@1.FailedCreate (Warning)', a: undefined, b: true }]);
  });

  it('reports a behavioural difference path by path', () => {
    const a = normalize(snapshot('ns-a', 'aaaa'), 'ns-a');
    const b = normalize(snapshot('ns-b', 'bbbb', { ready: 1 }), 'ns-b');
    expect(diff(a.state, b.state)).toEqual([
      { path: 'pods.ReplicaSet/web@1.Running/ready', a: 2, b: 1 },
      { path: 'pods.ReplicaSet/web@1.Running/unready', a: undefined, b: 1 },
      { path: 'replicaSets.web@1.status.availableReplicas', a: 2, b: 1 },
      { path: 'replicaSets.web@1.status.readyReplicas', a: 2, b: 1 },
    ]);
  });

  it('fails a live run whose sides differ, with the differing paths', async () => {
    const r = await runScenario(
      {
        name: 'self-check-diff',
        kind: 'ReplicaSet',
        description: 'side B scales to 3, side A stays at 2',
        invariants: [],
        steps: [
          { do: 'create', objects: [replicaSet('frontend', { replicas: 2 })] },
          { do: 'on', side: 'b', step: { do: 'scale', kind: 'ReplicaSet', name: 'frontend', replicas: 3 } },
          { do: 'waitFor', what: 'settled', until: replicaSetSettled('frontend') },
          { do: 'compare', label: 'end', timeoutMs: 5_000 },
        ],
      },
      OPTIONS,
    );
    expect(r.ok).toBe(false);
    const paths = r.checkpoints.flatMap((c) => c.differences.map((d) => d.path));
    expect(paths).toEqual(
      expect.arrayContaining(['replicaSets.frontend.spec.replicas', 'pods.ReplicaSet/frontend.Running/ready']),
    );
    expect(r.report).toContain('upstream-1#2: 3');
  });

  it('fails a live run that breaks an invariant', async () => {
    const atMostTwo: Invariant = {
      name: 'at most 2 pods',
      graceMs: 0,
      check: (s) => (s.pods.length > 2 ? `${s.pods.length} pods` : null),
    };
    const r = await runScenario(
      {
        name: 'self-check-invariant',
        kind: 'ReplicaSet',
        description: 'a ReplicaSet of 3 against an invariant of at most 2 pods',
        invariants: [atMostTwo],
        steps: [
          { do: 'create', objects: [replicaSet('frontend', { replicas: 3 })] },
          { do: 'waitFor', what: 'settled', until: replicaSetSettled('frontend') },
          { do: 'compare', label: 'end' },
        ],
      },
      OPTIONS,
    );
    expect(r.ok).toBe(false);
    expect(r.failures).toEqual([
      'upstream-1: invariant at most 2 pods: 3 pods (held 0 ms)',
      'upstream-1#2: invariant at most 2 pods: 3 pods (held 0 ms)',
    ]);
  });
});
