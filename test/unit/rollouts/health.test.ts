// The health reading of a fleet rollout's target per kind: a new revision healthy, still progressing, status left
// over from the previous revision (never available), each failure signature in a pod of the new revision (and the
// same in a pod of the old one, which must not count), and malformed objects (never a throw).
import { PIN_ADMITTED_ANNOTATION, PIN_ROLLOUT_ANNOTATION, pinOf } from '../../../shared/rollouts/pin.js';
import { describe, expect, it } from '@jest/globals';
import { computeHash } from '../../../shared/controllers/common/pod-template-hash.js';
import { templateHash } from '../../../shared/controllers/daemonset/history.js';
import type {
  Condition,
  Deployment,
  DeploymentStatus,
  ReplicaSet,
} from '../../../shared/controllers/deployment/types.js';
import type { ControllerRevision, DaemonSet, Pod, StatefulSet } from '../../../shared/kube/api/objects.js';
import {
  daemonSetHealth,
  deploymentHealth,
  statefulSetHealth,
  targetHealth,
  unreachableHealth,
  type HealthOptions,
  type TargetRead,
} from '../../../shared/rollouts/health.js';
import type { FailureSignature } from '../../../shared/rollouts/observation.js';
import { aDeployment, anRS, NOW, template } from '../controllers/deployment/builders.js';
import { aPod as aStatefulPod, aRevision, aSet, revOf } from '../controllers/statefulset/builders.js';
import { aDaemonSet, aPod as aDaemonPod, currentRevision, dsRef } from '../controllers/daemonset/builders.js';

const OPTIONS: HealthOptions = { now: NOW, progressDeadlineMs: 600_000 };
const ago = (seconds: number): string => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');

// ---- pods showing a signature ----

type Showing = FailureSignature | 'OOMKilledNow' | 'InitImagePullBackOff' | 'NotReadyBriefly';

const WAITING_MESSAGE: Record<string, string> = {
  ImagePullBackOff: 'Back-off pulling image "registry.example/app:2"',
  ErrImagePull: 'failed to pull and unpack image "registry.example/app:2": not found',
  CrashLoopBackOff: 'back-off 40s restarting failed container=app pod=web',
  CreateContainerConfigError: 'configmap "web-config" not found',
};

/** The pod with its first container at `image`, showing `how` as the kubelet reports it. */
function showing(pod: Pod, how: Showing, image: string): Pod {
  const spec = structuredClone(pod.spec ?? { containers: [] });
  const first = spec.containers[0]!;
  first.image = image;
  const name = first.name;
  const base = { name, image, imageID: '', restartCount: 4 };
  const notReady = (seconds: number) => [{ type: 'Ready', status: 'False', lastTransitionTime: ago(seconds) }];
  const running = { running: { startedAt: ago(60) } };
  switch (how) {
    case 'ImagePullBackOff':
    case 'ErrImagePull':
    case 'CreateContainerConfigError':
    case 'CrashLoopBackOff':
      return {
        ...pod,
        spec,
        status: {
          phase: how === 'CrashLoopBackOff' ? 'Running' : 'Pending',
          conditions: notReady(30),
          containerStatuses: [
            {
              ...base,
              ready: false,
              state: { waiting: { reason: how, message: WAITING_MESSAGE[how] } },
              ...(how === 'CrashLoopBackOff' && {
                lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: ago(90), finishedAt: ago(80) } },
              }),
            },
          ],
        },
      };
    case 'OOMKilled':
      // Killed once, running and Ready again since.
      return {
        ...pod,
        spec,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(30) }],
          containerStatuses: [
            {
              ...base,
              ready: true,
              state: running,
              lastState: {
                terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: ago(200), finishedAt: ago(70) },
              },
            },
          ],
        },
      };
    case 'OOMKilledNow':
      return {
        ...pod,
        spec,
        status: {
          phase: 'Running',
          conditions: notReady(5),
          containerStatuses: [
            {
              ...base,
              ready: false,
              state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: ago(60), finishedAt: ago(5) } },
            },
          ],
        },
      };
    case 'InitImagePullBackOff': {
      spec.initContainers = [{ name: 'migrate', image: 'registry.example/migrate:7' }];
      return {
        ...pod,
        spec,
        status: {
          phase: 'Pending',
          conditions: notReady(30),
          initContainerStatuses: [
            {
              name: 'migrate',
              image: 'registry.example/migrate:7',
              imageID: '',
              restartCount: 0,
              ready: false,
              state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } },
            },
          ],
          containerStatuses: [{ ...base, ready: false, state: { waiting: { reason: 'PodInitializing' } } }],
        },
      };
    }
    case 'ReadinessNeverPassed':
    case 'NotReadyBriefly':
      // Running, its readiness probe failing: Ready False for 20 minutes (past a 10-minute deadline), or for 1.
      return {
        ...pod,
        spec,
        status: {
          phase: 'Running',
          conditions: notReady(how === 'ReadinessNeverPassed' ? 1200 : 60),
          containerStatuses: [{ ...base, ready: false, state: running }],
        },
      };
  }
}

const SIGNATURE_CASES: { name: string; how: Showing; signature: FailureSignature; image: string }[] = [
  { name: 'ImagePullBackOff', how: 'ImagePullBackOff', signature: 'ImagePullBackOff', image: 'registry.example/app:2' },
  { name: 'ErrImagePull', how: 'ErrImagePull', signature: 'ErrImagePull', image: 'registry.example/app:2' },
  { name: 'CrashLoopBackOff', how: 'CrashLoopBackOff', signature: 'CrashLoopBackOff', image: 'registry.example/app:2' },
  {
    name: 'CreateContainerConfigError',
    how: 'CreateContainerConfigError',
    signature: 'CreateContainerConfigError',
    image: 'registry.example/app:2',
  },
  { name: 'OOMKilled in lastState', how: 'OOMKilled', signature: 'OOMKilled', image: 'registry.example/app:2' },
  { name: 'OOMKilled in state', how: 'OOMKilledNow', signature: 'OOMKilled', image: 'registry.example/app:2' },
  {
    name: 'ImagePullBackOff of an init container (its own image)',
    how: 'InitImagePullBackOff',
    signature: 'ImagePullBackOff',
    image: 'registry.example/migrate:7',
  },
  {
    name: 'ReadinessNeverPassed (Ready False for longer than the deadline)',
    how: 'ReadinessNeverPassed',
    signature: 'ReadinessNeverPassed',
    image: 'registry.example/app:2',
  },
];

// ---- Deployment ----

const D_HASH_1 = computeHash(template('app:1'));
const D_HASH_2 = computeHash(template('app:2'));

/** A ReplicaSet of the Deployment `web` as its controller names and labels it. */
function rsOf(image: string, o: Parameters<typeof anRS>[1]): ReplicaSet {
  const hash = computeHash(template(image));
  const rs = anRS(`web-${hash}`, { ...o, image, labels: { 'pod-template-hash': hash } });
  return { ...rs, spec: { ...rs.spec, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } } } };
}

function podOfRS(rs: ReplicaSet, suffix: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${rs.metadata.name}-${suffix}`,
      namespace: 'ns',
      uid: `uid-${rs.metadata.name}-${suffix}`,
      labels: { ...rs.spec.template?.metadata?.labels },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rs.metadata.name!,
          uid: rs.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(rs.spec.template!.spec!),
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(300) }],
      containerStatuses: [
        {
          name: 'app',
          image: 'app',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: ago(310) } },
        },
      ],
    },
  };
}

const progressing = (reason: string, message: string): Condition => ({
  type: 'Progressing',
  status: 'True',
  reason,
  message,
  lastUpdateTime: ago(100),
  lastTransitionTime: ago(3000),
});

function deploymentStatus(o: {
  observedGeneration: number;
  replicas: number;
  updated: number;
  available: number;
  progressing: Condition;
}): DeploymentStatus {
  return {
    observedGeneration: o.observedGeneration,
    replicas: o.replicas,
    updatedReplicas: o.updated,
    readyReplicas: o.available,
    availableReplicas: o.available,
    unavailableReplicas: Math.max(3 - o.available, 0),
    terminatingReplicas: 0,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
        lastUpdateTime: ago(3000),
        lastTransitionTime: ago(3000),
      },
      o.progressing,
    ],
  };
}

const OLD_RS = rsOf('app:1', { replicas: 0, available: 0, revision: 1, desired: 3, max: 4 });
const NEW_RS = rsOf('app:2', { replicas: 3, available: 3, revision: 2, desired: 3, max: 4, createdAt: 30 });
const DONE = progressing('NewReplicaSetAvailable', `ReplicaSet "web-${D_HASH_2}" has successfully progressed.`);

/** The Deployment `web` at app:2, generation 2. */
const webAt2 = (status?: DeploymentStatus): Deployment =>
  aDeployment({ image: 'app:2', generation: 2, annotations: { 'deployment.kubernetes.io/revision': '2' }, status });
const healthyDeployment = webAt2(
  deploymentStatus({ observedGeneration: 2, replicas: 3, updated: 3, available: 3, progressing: DONE }),
);

describe('Deployment', () => {
  it('a healthy new revision: its hash, the previous ReplicaSet, available', () => {
    const pods = ['a', 'b', 'c'].map((s) => podOfRS(NEW_RS, s));
    expect(
      deploymentHealth('c1', { deployment: healthyDeployment, replicaSets: [OLD_RS, NEW_RS], pods }, OPTIONS),
    ).toEqual({
      cluster: 'c1',
      present: true,
      revision: D_HASH_2,
      previousRevision: D_HASH_1,
      generation: 2,
      observedGeneration: 2,
      available: true,
    });
    expect(NEW_RS.metadata.name).toBe(`web-${D_HASH_2}`);
  });

  it('the previous revision is the highest revision annotation among the others', () => {
    const older = rsOf('app:0', { replicas: 0, revision: 3, createdAt: -10 }); // rolled back to app:1 then app:2
    const obs = deploymentHealth(
      'c1',
      { deployment: healthyDeployment, replicaSets: [OLD_RS, older, { ...NEW_RS }], pods: [] },
      OPTIONS,
    );
    expect(obs.previousRevision).toBe(computeHash(template('app:0')));
  });

  it('still progressing: 2 of 3 new replicas available, an old one left', () => {
    const d = webAt2(
      deploymentStatus({
        observedGeneration: 2,
        replicas: 4,
        updated: 3,
        available: 3,
        progressing: progressing('ReplicaSetUpdated', `ReplicaSet "web-${D_HASH_2}" is progressing.`),
      }),
    );
    const old = rsOf('app:1', { replicas: 1, available: 1, revision: 1 });
    const fresh = rsOf('app:2', { replicas: 3, available: 2, ready: 2, revision: 2, createdAt: 30 });
    const obs = deploymentHealth('c1', { deployment: d, replicaSets: [old, fresh], pods: [] }, OPTIONS);
    expect(obs).toMatchObject({ present: true, revision: D_HASH_2, previousRevision: D_HASH_1, available: false });
    expect(obs.reason).toBe(`ReplicaSet "web-${D_HASH_2}": 2 of 3 replicas available (3 created, spec 3)`);
    expect(obs.failure).toBeUndefined();
  });

  describe('status of the previous revision never counts', () => {
    const oldDone = progressing('NewReplicaSetAvailable', `ReplicaSet "web-${D_HASH_1}" has successfully progressed.`);
    it.each([
      {
        name: 'observedGeneration behind: the old ReplicaSet complete, the new one not made yet',
        d: webAt2(
          deploymentStatus({ observedGeneration: 1, replicas: 3, updated: 3, available: 3, progressing: oldDone }),
        ),
        rss: [rsOf('app:1', { replicas: 3, available: 3, revision: 1 })],
        reason: 'observedGeneration 1 is behind generation 2',
      },
      {
        name: 'generation observed, counts complete, but Progressing still names the old ReplicaSet',
        d: webAt2(
          deploymentStatus({ observedGeneration: 2, replicas: 3, updated: 3, available: 3, progressing: oldDone }),
        ),
        rss: [OLD_RS, NEW_RS],
        reason: `Progressing condition NewReplicaSetAvailable (ReplicaSet "web-${D_HASH_1}" has successfully progressed.), not NewReplicaSetAvailable for ReplicaSet "web-${D_HASH_2}"`,
      },
      {
        name: "the new ReplicaSet's own status not observed since it was scaled",
        d: healthyDeployment,
        rss: [OLD_RS, rsOf('app:2', { replicas: 3, available: 3, revision: 2, generation: 3, observedGeneration: 2 })],
        reason: `ReplicaSet "web-${D_HASH_2}": observedGeneration 2 is behind generation 3`,
      },
      {
        name: 'the new ReplicaSet available but an old pod still counted in the status',
        d: webAt2(
          deploymentStatus({ observedGeneration: 2, replicas: 4, updated: 3, available: 4, progressing: DONE }),
        ),
        rss: [rsOf('app:1', { replicas: 0, actual: 1, available: 1, revision: 1 }), NEW_RS],
        reason: 'Deployment status: 3 updated, 4 replicas, 4 available of 3',
      },
    ])('$name', ({ d, rss, reason }) => {
      const obs = deploymentHealth('c1', { deployment: d, replicaSets: rss, pods: [] }, OPTIONS);
      expect(obs).toMatchObject({ present: true, revision: D_HASH_2, available: false, reason });
    });
  });

  it('a rollback not yet synced: the new ReplicaSet keeps its old number, the previous is the highest other', () => {
    const d = aDeployment({ image: 'app:1', generation: 3 });
    d.status = deploymentStatus({ observedGeneration: 2, replicas: 3, updated: 3, available: 3, progressing: DONE });
    const back = rsOf('app:1', { replicas: 0, revision: 1 });
    const obs = deploymentHealth('c1', { deployment: d, replicaSets: [back, NEW_RS], pods: [] }, OPTIONS);
    expect(obs).toMatchObject({ revision: D_HASH_1, previousRevision: D_HASH_2, available: false });
  });

  it('0 replicas: Progressing keeps naming the old ReplicaSet upstream, so the counts decide', () => {
    const oldDone = progressing('NewReplicaSetAvailable', `ReplicaSet "web-${D_HASH_1}" has successfully progressed.`);
    const d = aDeployment({ image: 'app:2', generation: 2, replicas: 0 });
    d.status = { observedGeneration: 2, replicas: 0, updatedReplicas: 0, availableReplicas: 0, conditions: [oldDone] };
    const fresh = rsOf('app:2', { replicas: 0, revision: 2, createdAt: 30 });
    const obs = deploymentHealth('c1', { deployment: d, replicaSets: [OLD_RS, fresh], pods: [] }, OPTIONS);
    expect(obs).toMatchObject({ revision: D_HASH_2, previousRevision: D_HASH_1, available: true });
  });

  it('a ReplicaSet another Deployment controls is not this one', () => {
    const foreign = {
      ...NEW_RS,
      metadata: { ...NEW_RS.metadata, ownerReferences: [{ ...NEW_RS.metadata.ownerReferences![0]!, uid: 'other' }] },
    };
    const obs = deploymentHealth(
      'c1',
      { deployment: healthyDeployment, replicaSets: [OLD_RS, foreign], pods: [] },
      OPTIONS,
    );
    expect(obs).toMatchObject({
      revision: D_HASH_2,
      available: false,
      reason: `no ReplicaSet of revision ${D_HASH_2} yet`,
    });
  });

  it('no progress deadline: no Progressing condition to wait for', () => {
    const d = aDeployment({ image: 'app:2', generation: 2, progressDeadlineSeconds: 2147483647 });
    d.status = deploymentStatus({ observedGeneration: 2, replicas: 3, updated: 3, available: 3, progressing: DONE });
    d.status.conditions = d.status.conditions!.filter((c) => c.type !== 'Progressing');
    expect(deploymentHealth('c1', { deployment: d, replicaSets: [OLD_RS, NEW_RS], pods: [] }, OPTIONS).available).toBe(
      true,
    );
  });

  describe('failure signatures', () => {
    const d = webAt2(
      deploymentStatus({
        observedGeneration: 2,
        replicas: 3,
        updated: 1,
        available: 2,
        progressing: progressing('ReplicaSetUpdated', `ReplicaSet "web-${D_HASH_2}" is progressing.`),
      }),
    );
    const old = rsOf('app:1', { replicas: 2, available: 2, revision: 1 });
    const fresh = rsOf('app:2', { replicas: 1, available: 0, revision: 2, createdAt: 30 });

    it.each(SIGNATURE_CASES)('$name in a pod of the new revision', ({ how, signature, image }) => {
      const pods = [podOfRS(old, 'a'), podOfRS(old, 'b'), showing(podOfRS(fresh, 'x'), how, 'registry.example/app:2')];
      const obs = deploymentHealth('c1', { deployment: d, replicaSets: [old, fresh], pods }, OPTIONS);
      expect(obs.available).toBe(false);
      expect(obs.failure).toMatchObject({ signature, image, pods: [`web-${D_HASH_2}-x`] });
      expect(obs.failure?.message).toContain(`${signature} in 1 pod(s) of revision ${D_HASH_2}`);
    });

    it.each(SIGNATURE_CASES)('$name in a pod of the old revision does not count', ({ how }) => {
      const pods = [showing(podOfRS(old, 'a'), how, 'app:1'), podOfRS(old, 'b'), podOfRS(fresh, 'x')];
      const obs = deploymentHealth('c1', { deployment: d, replicaSets: [old, fresh], pods }, OPTIONS);
      expect(obs.failure).toBeUndefined();
    });

    it('a pod labelled with the new hash that the new ReplicaSet does not control does not count', () => {
      const stray = showing(podOfRS(fresh, 'x'), 'CrashLoopBackOff', 'app:2');
      stray.metadata!.ownerReferences = [];
      expect(
        deploymentHealth('c1', { deployment: d, replicaSets: [old, fresh], pods: [stray] }, OPTIONS).failure,
      ).toBeUndefined();
    });

    it('ReadinessNeverPassed waits for the threshold, by default the progress deadline', () => {
      const pods = [showing(podOfRS(fresh, 'x'), 'NotReadyBriefly', 'app:2')];
      const read = { deployment: d, replicaSets: [old, fresh], pods };
      expect(deploymentHealth('c1', read, OPTIONS).failure).toBeUndefined();
      expect(deploymentHealth('c1', read, { ...OPTIONS, readinessThresholdMs: 30_000 }).failure).toMatchObject({
        signature: 'ReadinessNeverPassed',
        image: 'app:2',
        message: `ReadinessNeverPassed in 1 pod(s) of revision ${D_HASH_2}, container "app" (app:2) of web-${D_HASH_2}-x: not Ready for 60s`,
      });
    });

    it('several signatures: the first in the documented order; the pods sorted, at most 10', () => {
      const many = rsOf('app:2', { replicas: 12, available: 0, revision: 2, createdAt: 30 });
      const names = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`).reverse();
      const pods = [
        showing(podOfRS(many, 'crash'), 'CrashLoopBackOff', 'app:2'),
        ...names.map((n) => showing(podOfRS(many, n), 'ImagePullBackOff', 'app:2')),
        showing(podOfRS(many, 'oom'), 'OOMKilled', 'app:2'),
      ];
      const failure = deploymentHealth('c1', { deployment: d, replicaSets: [old, many], pods }, OPTIONS).failure;
      expect(failure).toEqual({
        signature: 'ImagePullBackOff',
        image: 'app:2',
        pods: names
          .slice()
          .sort()
          .slice(0, 10)
          .map((n) => `web-${D_HASH_2}-${n}`),
        message: `ImagePullBackOff in 12 pod(s) of revision ${D_HASH_2}, container "app" (app:2) of web-${D_HASH_2}-p00: Back-off pulling image "registry.example/app:2"`,
      });
    });

    it('OOMKilled comes before the CrashLoopBackOff it causes', () => {
      const pods = [
        showing(podOfRS(fresh, 'a'), 'CrashLoopBackOff', 'app:2'),
        showing(podOfRS(fresh, 'b'), 'OOMKilledNow', 'app:2'),
      ];
      const failure = deploymentHealth('c1', { deployment: d, replicaSets: [old, fresh], pods }, OPTIONS).failure;
      expect(failure).toMatchObject({ signature: 'OOMKilled', pods: [`web-${D_HASH_2}-b`] });
    });
  });

  describe('malformed input', () => {
    it.each([
      { name: 'absent', deployment: null, reason: 'Deployment not found' },
      { name: 'undefined', deployment: undefined, reason: 'Deployment not found' },
      { name: 'not an object', deployment: 'web', reason: 'malformed Deployment: not an object' },
      { name: 'a list', deployment: [healthyDeployment], reason: 'malformed Deployment: not an object' },
    ])('$name → not present', ({ deployment, reason }) => {
      expect(deploymentHealth('c1', { deployment, replicaSets: [NEW_RS], pods: [] }, OPTIONS)).toEqual({
        cluster: 'c1',
        present: false,
        revision: '',
        previousRevision: '',
        generation: 0,
        observedGeneration: 0,
        available: false,
        reason,
      });
    });

    it('a template that cannot be hashed: present, not available, the error named', () => {
      const d = {
        ...healthyDeployment,
        spec: { ...healthyDeployment.spec, template: { spec: { containers: 'app' } } },
      };
      const obs = deploymentHealth('c1', { deployment: d, replicaSets: [], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({
        present: true,
        available: false,
        revision: '',
        generation: 2,
        observedGeneration: 2,
      });
      expect(obs.reason).toMatch(/^malformed Deployment: /);
    });

    it('spec.replicas that is not a count: not available, named', () => {
      const d = { ...healthyDeployment, spec: { ...healthyDeployment.spec, replicas: '3' } };
      const obs = deploymentHealth('c1', { deployment: d, replicaSets: [OLD_RS, NEW_RS], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({
        present: true,
        revision: D_HASH_2,
        available: false,
        reason: 'malformed Deployment: spec.replicas is not a replica count',
      });
    });

    it('a pod-template-hash longer than a label value: malformed, not cut', () => {
      const long = { ...NEW_RS, metadata: { ...NEW_RS.metadata, labels: { 'pod-template-hash': 'h'.repeat(64) } } };
      const obs = deploymentHealth('c1', { deployment: healthyDeployment, replicaSets: [long], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({
        present: true,
        revision: '',
        available: false,
        reason: 'malformed Deployment: label pod-template-hash is longer than 63 characters',
      });
    });

    it('no metadata, spec or status of the right type', () => {
      const obs = deploymentHealth(
        'c1',
        { deployment: { metadata: 7, spec: 'x', status: [] }, replicaSets: [], pods: [] },
        OPTIONS,
      );
      expect(obs).toMatchObject({ present: true, available: false, generation: 0, observedGeneration: 0 });
    });

    it('junk among the ReplicaSets and pods, odd labels and a huge annotation', () => {
      const huge = {
        ...OLD_RS,
        metadata: { ...OLD_RS.metadata, annotations: { 'deployment.kubernetes.io/revision': '9'.repeat(1_000_000) } },
      };
      const oddLabels = {
        ...NEW_RS,
        metadata: { ...NEW_RS.metadata, uid: 'uid-odd', labels: { 'pod-template-hash': 5 } },
      };
      const pods: unknown[] = [
        null,
        5,
        'pod',
        { metadata: null },
        { metadata: { name: ['x'], labels: 'l', ownerReferences: 'r' }, status: { containerStatuses: 'c' } },
        {
          ...podOfRS(NEW_RS, 'z'),
          status: { phase: 'Running', conditions: { Ready: 'False' }, containerStatuses: [null, { state: 'waiting' }] },
        },
      ];
      const read = { deployment: healthyDeployment, replicaSets: [null, 1, huge, oddLabels, NEW_RS], pods };
      const obs = deploymentHealth('c1', read as never, OPTIONS);
      expect(obs).toMatchObject({ present: true, revision: D_HASH_2, previousRevision: '', available: true });
      expect(obs.failure).toBeUndefined();
    });
  });
});

// ---- StatefulSet ----

const SET_1 = aSet({ image: 'web:1' });
const REV_1 = revOf(SET_1);

/** The StatefulSet `web` at web:2, generation 2, with `status` over a status observed at generation 2. */
function setAt2(o: Parameters<typeof aSet>[0] = {}): StatefulSet {
  const set = aSet({ image: 'web:2', generation: 2, ...o });
  return set;
}
const REV_2 = revOf(setAt2());
/** A revision as the observation reports it (and a pin names it): the ControllerRevision's hash. */
const HASH_1 = REV_1.slice('web-'.length);
const HASH_2 = REV_2.slice('web-'.length);
const REVISIONS: ControllerRevision[] = [aRevision(SET_1, 1), aRevision(setAt2(), 2)];
const fullStatus = (current: string, update: string) => ({
  observedGeneration: 2,
  replicas: 3,
  readyReplicas: 3,
  availableReplicas: 3,
  currentReplicas: 3,
  updatedReplicas: 3,
  currentRevision: current,
  updateRevision: update,
});

describe('StatefulSet', () => {
  it('names its revisions as a pin admits them: the hash, not the ControllerRevision name', () => {
    const set = setAt2({ status: fullStatus(REV_2, REV_2) });
    const pods = [0, 1, 2].map((i) => aStatefulPod(set, i));
    const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
    for (const admitted of [obs.revision, obs.previousRevision])
      expect(
        pinOf({
          metadata: { annotations: { [PIN_ROLLOUT_ANNOTATION]: 'ns/web', [PIN_ADMITTED_ANNOTATION]: admitted } },
        }),
      ).toEqual({
        state: 'pinned',
        rollout: 'ns/web',
        admitted,
        frozen: false,
      });
  });

  it('a healthy new revision: updateRevision, the next-lower revision before it, available', () => {
    const set = setAt2({ status: fullStatus(REV_2, REV_2) });
    const pods = [0, 1, 2].map((i) => aStatefulPod(set, i));
    expect(statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS)).toEqual({
      cluster: 'c1',
      present: true,
      revision: HASH_2,
      previousRevision: HASH_1,
      generation: 2,
      observedGeneration: 2,
      available: true,
    });
  });

  it('still progressing: ordinal 2 updated, 0 and 1 at the previous revision', () => {
    const set = setAt2({
      status: { ...fullStatus(REV_1, REV_2), currentReplicas: 2, updatedReplicas: 1 },
    });
    const pods = [aStatefulPod(set, 0, 'ready', SET_1), aStatefulPod(set, 1, 'ready', SET_1), aStatefulPod(set, 2)];
    const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
    expect(obs).toMatchObject({
      revision: HASH_2,
      previousRevision: HASH_1,
      available: false,
      reason: `pods of revision ${REV_2} at every ordinal: 1 updated, 1 ready, 1 available of 3`,
    });
  });

  it('a pod of the new revision ready but not for minReadySeconds yet', () => {
    const set = setAt2({ minReadySeconds: 30, status: fullStatus(REV_2, REV_2) });
    const pods = [aStatefulPod(set, 0), aStatefulPod(set, 1), aStatefulPod(set, 2, { readyFor: 10 })];
    const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
    expect(obs.reason).toBe(`pods of revision ${REV_2} at every ordinal: 3 updated, 3 ready, 2 available of 3`);
  });

  it('a rollback seen before the controller: the older revision holding the template, the current one before it', () => {
    const set = aSet({ image: 'web:1', generation: 3, status: { ...fullStatus(REV_2, REV_2), observedGeneration: 2 } });
    const pods = [0, 1, 2].map((i) => aStatefulPod(set, i, 'ready', setAt2()));
    const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
    expect(obs).toMatchObject({ revision: HASH_1, previousRevision: HASH_2, available: false });
  });

  it('a partition: only the ordinals from the partition count', () => {
    const set = setAt2({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      status: { ...fullStatus(REV_1, REV_2), currentReplicas: 2, updatedReplicas: 1 },
    });
    const olds = [aStatefulPod(set, 0, 'running', SET_1), aStatefulPod(set, 1, 'ready', SET_1)];
    const read = { statefulSet: set, revisions: REVISIONS, pods: [...olds, aStatefulPod(set, 2)] };
    expect(statefulSetHealth('c1', read, OPTIONS)).toMatchObject({ available: true, previousRevision: HASH_1 });
    const notReady = { ...read, pods: [...olds, aStatefulPod(set, 2, 'running')] };
    expect(statefulSetHealth('c1', notReady, OPTIONS)).toMatchObject({
      available: false,
      reason: `pods of revision ${REV_2} at ordinals from 2: 1 updated, 0 ready, 0 available of 1`,
    });
  });

  describe('status of the previous revision never counts', () => {
    it('observedGeneration behind: the revision the template will get, every pod ready at the old one', () => {
      const set = setAt2({ status: { ...fullStatus(REV_1, REV_1), observedGeneration: 1 } });
      const pods = [0, 1, 2].map((i) => aStatefulPod(set, i, 'ready', SET_1));
      const obs = statefulSetHealth('c1', { statefulSet: set, revisions: [aRevision(SET_1, 1)], pods }, OPTIONS);
      expect(obs).toEqual({
        cluster: 'c1',
        present: true,
        revision: HASH_2,
        previousRevision: HASH_1,
        generation: 2,
        observedGeneration: 1,
        available: false,
        reason: 'observedGeneration 1 is behind generation 2',
      });
    });

    it('generation observed, old pods ready, status counts full: the pods are not of the revision', () => {
      const set = setAt2({ status: fullStatus(REV_1, REV_2) });
      const pods = [0, 1, 2].map((i) => aStatefulPod(set, i, 'ready', SET_1));
      const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
      expect(obs).toMatchObject({
        available: false,
        reason: `pods of revision ${REV_2} at every ordinal: 0 updated, 0 ready, 0 available of 3`,
      });
    });

    it('every pod of the revision ready but the status not counting them yet', () => {
      const set = setAt2({ status: { ...fullStatus(REV_1, REV_2), readyReplicas: 2, availableReplicas: 2 } });
      const pods = [0, 1, 2].map((i) => aStatefulPod(set, i));
      expect(statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS).reason).toBe(
        'StatefulSet status: 3 updated, 2 ready, 2 available, 3 replicas of 3',
      );
    });
  });

  describe('failure signatures', () => {
    const set = setAt2({
      status: {
        ...fullStatus(REV_1, REV_2),
        currentReplicas: 2,
        updatedReplicas: 1,
        readyReplicas: 2,
        availableReplicas: 2,
      },
    });
    it.each(SIGNATURE_CASES)('$name in a pod of the new revision', ({ how, signature, image }) => {
      const pods = [
        aStatefulPod(set, 0, 'ready', SET_1),
        aStatefulPod(set, 1, 'ready', SET_1),
        showing(aStatefulPod(set, 2), how, 'registry.example/app:2'),
      ];
      const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
      expect(obs.failure).toMatchObject({ signature, image, pods: ['web-2'] });
    });
    it.each(SIGNATURE_CASES)('$name in a pod of the old revision does not count', ({ how }) => {
      const pods = [
        showing(aStatefulPod(set, 0, 'ready', SET_1), how, 'web:1'),
        aStatefulPod(set, 1, 'ready', SET_1),
        aStatefulPod(set, 2),
      ];
      const obs = statefulSetHealth('c1', { statefulSet: set, revisions: REVISIONS, pods }, OPTIONS);
      expect(obs.failure).toBeUndefined();
    });
  });

  describe('malformed input', () => {
    it('absent', () => {
      expect(statefulSetHealth('c1', { statefulSet: null, revisions: REVISIONS, pods: [] }, OPTIONS)).toMatchObject({
        present: false,
        reason: 'StatefulSet not found',
      });
    });
    it('odd fields, junk revisions and pods: no throw, not available', () => {
      const set = setAt2({ status: fullStatus(REV_2, REV_2) });
      const odd = { ...set, spec: { ...set.spec, replicas: 'three', updateStrategy: 'RollingUpdate', ordinals: 5 } };
      const revisions: unknown[] = [
        null,
        { revision: 'x', metadata: { ownerReferences: [{ controller: true, uid: 'uid-sts' }] } },
        ...REVISIONS,
      ];
      const pods: unknown[] = [7, { metadata: { name: 'web-', ownerReferences: 'x' } }, aStatefulPod(set, 0)];
      const obs = statefulSetHealth('c1', { statefulSet: odd, revisions, pods } as never, OPTIONS);
      expect(obs).toMatchObject({
        present: true,
        revision: HASH_2,
        previousRevision: HASH_1,
        available: false,
        reason: 'malformed StatefulSet: spec.replicas is not a replica count',
      });
    });
    it('a template that cannot be read while the generation is behind: not available, named', () => {
      const set = { ...setAt2(), status: { observedGeneration: 1 }, spec: { template: { spec: { containers: 1n } } } };
      const obs = statefulSetHealth('c1', { statefulSet: set, revisions: [], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({ present: true, available: false, revision: '' });
      expect(obs.reason).toMatch(/^malformed StatefulSet: /);
    });
  });
});

// ---- DaemonSet ----

const DS_1 = aDaemonSet({ image: 'agent:1' });
const dsAt2 = (status: Partial<DaemonSet['status']> = {}): DaemonSet =>
  aDaemonSet({ image: 'agent:2', generation: 2, status: { observedGeneration: 2, ...status } });
const DS_HASH_1 = templateHash(DS_1);
const DS_HASH_2 = templateHash(dsAt2());
const DS_REVISIONS = [currentRevision(DS_1, 1), currentRevision(dsAt2(), 2)];
const dsCounts = (desired: number, updated: number, available: number) => ({
  desiredNumberScheduled: desired,
  currentNumberScheduled: desired,
  updatedNumberScheduled: updated,
  numberReady: available,
  numberAvailable: available,
  numberMisscheduled: 0,
});

describe('DaemonSet', () => {
  it('a healthy new revision: the hash of its ControllerRevision, the one before it, available', () => {
    const ds = dsAt2(dsCounts(3, 3, 3));
    const pods = ['n1', 'n2', 'n3'].map((n) => aDaemonPod(ds, n, { readyFor: 300 }));
    expect(daemonSetHealth('c1', { daemonSet: ds, revisions: DS_REVISIONS, pods }, OPTIONS)).toEqual({
      cluster: 'c1',
      present: true,
      revision: DS_HASH_2,
      previousRevision: DS_HASH_1,
      generation: 2,
      observedGeneration: 2,
      available: true,
    });
  });

  it('still progressing: 1 of 3 nodes updated', () => {
    const ds = dsAt2(dsCounts(3, 1, 2));
    const obs = daemonSetHealth('c1', { daemonSet: ds, revisions: DS_REVISIONS, pods: [] }, OPTIONS);
    expect(obs).toMatchObject({
      revision: DS_HASH_2,
      available: false,
      reason: 'DaemonSet status: 1 updated, 2 available of 3 scheduled',
    });
  });

  describe('status of the previous revision never counts', () => {
    it('observedGeneration behind, the counts full from the old revision', () => {
      const ds = dsAt2({ ...dsCounts(3, 3, 3), observedGeneration: 1 });
      const obs = daemonSetHealth('c1', { daemonSet: ds, revisions: [currentRevision(DS_1, 1)], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({
        revision: DS_HASH_2,
        previousRevision: DS_HASH_1,
        available: false,
        reason: 'observedGeneration 1 is behind generation 2',
      });
    });
    it('generation observed but no ControllerRevision of the template yet', () => {
      const ds = dsAt2(dsCounts(3, 3, 3));
      const obs = daemonSetHealth('c1', { daemonSet: ds, revisions: [currentRevision(DS_1, 1)], pods: [] }, OPTIONS);
      expect(obs).toMatchObject({
        revision: DS_HASH_2,
        available: false,
        reason: `no ControllerRevision of revision ${DS_HASH_2} yet`,
      });
    });
  });

  describe('failure signatures', () => {
    const ds = dsAt2(dsCounts(3, 1, 2));
    it.each(SIGNATURE_CASES)('$name in a pod of the new revision', ({ how, signature, image }) => {
      const bad = showing(aDaemonPod(ds, 'n3'), how, 'registry.example/app:2');
      const pods = [
        aDaemonPod(ds, 'n1', { hash: DS_HASH_1, readyFor: 900 }),
        aDaemonPod(ds, 'n2', { hash: DS_HASH_1, readyFor: 900 }),
        bad,
      ];
      const obs = daemonSetHealth('c1', { daemonSet: ds, revisions: DS_REVISIONS, pods }, OPTIONS);
      expect(obs.failure).toMatchObject({ signature, image, pods: [bad.metadata!.name] });
    });
    it.each(SIGNATURE_CASES)('$name in a pod of the old revision does not count', ({ how }) => {
      const pods = [
        showing(aDaemonPod(ds, 'n1', { hash: DS_HASH_1 }), how, 'agent:1'),
        aDaemonPod(ds, 'n3', { readyFor: 60 }),
      ];
      const obs = daemonSetHealth('c1', { daemonSet: ds, revisions: DS_REVISIONS, pods }, OPTIONS);
      expect(obs.failure).toBeUndefined();
    });
  });

  describe('malformed input', () => {
    it('absent', () => {
      expect(daemonSetHealth('c1', { daemonSet: undefined, revisions: [], pods: [] }, OPTIONS)).toMatchObject({
        present: false,
        reason: 'DaemonSet not found',
      });
    });
    it('odd status and revisions: no throw, not available', () => {
      const ds = { ...dsAt2(), status: { observedGeneration: '2', desiredNumberScheduled: {}, collisionCount: 'x' } };
      const revisions: unknown[] = [
        { metadata: { labels: { 'controller-revision-hash': 3 } }, data: 'x' },
        {
          metadata: {
            name: 'agent-x',
            labels: { 'controller-revision-hash': 'x'.repeat(100) },
            ownerReferences: [dsRef],
          },
          revision: 1,
        },
        ...DS_REVISIONS,
      ];
      const obs = daemonSetHealth('c1', { daemonSet: ds, revisions, pods: [{ status: null }] } as never, OPTIONS);
      expect(obs).toMatchObject({
        present: true,
        revision: DS_HASH_2,
        previousRevision: DS_HASH_1,
        observedGeneration: 0,
        available: false,
        reason: 'status not observed yet (observedGeneration 0)',
      });
    });
  });
});

describe('targetHealth', () => {
  it('reads each kind', () => {
    const reads: TargetRead[] = [
      { kind: 'Deployment', deployment: healthyDeployment, replicaSets: [OLD_RS, NEW_RS], pods: [] },
      { kind: 'StatefulSet', statefulSet: null, revisions: [], pods: [] },
      { kind: 'DaemonSet', daemonSet: dsAt2(dsCounts(1, 1, 1)), revisions: DS_REVISIONS, pods: [] },
    ];
    expect(reads.map((r) => [r.kind, targetHealth('c1', r, OPTIONS).available])).toEqual([
      ['Deployment', true],
      ['StatefulSet', false],
      ['DaemonSet', true],
    ]);
  });
  it('an unreachable cluster', () => {
    expect(unreachableHealth('c9', 'connect ECONNREFUSED')).toEqual({
      cluster: 'c9',
      present: false,
      unreachable: true,
      revision: '',
      previousRevision: '',
      generation: 0,
      observedGeneration: 0,
      available: false,
      reason: 'connect ECONNREFUSED',
    });
  });
  it('an unknown kind is not present', () => {
    const obs = targetHealth('c1', { kind: 'CronJob' } as unknown as TargetRead, OPTIONS);
    expect(obs).toMatchObject({ present: false, reason: 'unknown target kind CronJob' });
  });
});
