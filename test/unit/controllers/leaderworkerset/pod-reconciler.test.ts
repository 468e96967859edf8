// The pod reconciler's decisions: handleRestartPolicy (upstream's TestHandleRestartPolicyUsesCurrentWorkerOwnership,
// pod_controller_test.go, and each policy) and what it does for a leader pod (planLeaderPod).
import { describe, expect, it } from '@jest/globals';
import type { Pod, StatefulSet } from '../../../../shared/kube/api/objects.js';
import { restartDecision, type GroupWorld } from '../../../../shared/controllers/leaderworkerset/restart-policy.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { planLeaderPod, REVISION_WAIT_MS } from '../../../../shared/controllers/leaderworkerset/worker-statefulset.js';
import { anLws, aPod, LWS } from './builders.js';

const stsRef = (uid: string) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  name: `${LWS}-0`,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});
const workerSts = (uid: string, leaderUid: string): StatefulSet => ({
  metadata: {
    name: `${LWS}-0`,
    uid,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: `${LWS}-0`, uid: leaderUid, controller: true }],
  },
});

describe('restartDecision (upstream TestHandleRestartPolicyUsesCurrentWorkerOwnership)', () => {
  const lws = anLws({ replicas: 1, size: 2 });
  const leader = aPod(0, 0, { revision: 'revision-1', uid: 'leader-current' });
  const world = (worker: Pod, ownerStatefulSet: StatefulSet): GroupWorld => ({
    groupPods: [leader, worker],
    leader,
    ownerStatefulSet,
  });
  it('a deleted worker of the current worker StatefulSet recreates the group', () => {
    const worker = aPod(0, 1, { revision: 'revision-1', deleting: true, ownerReferences: [stsRef('sts-current')] });
    const got = restartDecision(lws, worker, world(worker, workerSts('sts-current', 'leader-current')));
    expect(got).toEqual({
      kind: 'deleteLeader',
      leader,
      event: {
        type: 'Normal',
        reason: 'RecreateGroup',
        action: 'Delete',
        note: `Worker pod ${LWS}-0-1 failed, deleted leader pod ${LWS}-0 to recreate group 0`,
        related: { kind: 'Pod', name: `${LWS}-0` },
      },
    });
  });
  it('a deleted worker of a stale worker StatefulSet is ignored', () => {
    const worker = aPod(0, 1, { revision: 'revision-1', deleting: true, ownerReferences: [stsRef('sts-stale')] });
    expect(restartDecision(lws, worker, world(worker, workerSts('sts-current', 'leader-current')))).toEqual({
      kind: 'none',
    });
  });
});

describe('restartDecision by policy and pod state', () => {
  const restarted = (worker: number, o: Parameters<typeof aPod>[2] = {}) => aPod(0, worker, { restarts: 1, ...o });
  const group = (pods: Pod[]): GroupWorld => ({
    groupPods: pods,
    leader: pods.find((p) => p.metadata?.name === `${LWS}-0`) ?? null,
  });
  const withPolicy = (restartPolicy: string, annotations?: Record<string, string>) =>
    anLws({
      size: 2,
      annotations,
      spec: { leaderWorkerTemplate: { ...anLws().spec.leaderWorkerTemplate, size: 2, restartPolicy } },
    });
  it.each([
    {
      name: 'None: never',
      lws: withPolicy('None'),
      pods: [aPod(0, 0), restarted(1, { ownerReferences: [] })],
      want: 'none',
    },
    { name: 'Default (deprecated): never', lws: withPolicy('Default'), pods: [restarted(0)], want: 'none' },
    {
      name: 'RecreateGroupOnPodRestart, the leader restarted',
      lws: withPolicy('RecreateGroupOnPodRestart'),
      pods: [restarted(0), aPod(0, 1)],
      want: 'deleteLeader',
    },
    {
      name: 'RecreateGroupOnPodRestart, a pod pending: still recreated',
      lws: withPolicy('RecreateGroupOnPodRestart'),
      pods: [restarted(0), aPod(0, 1, { phase: 'Pending' })],
      want: 'deleteLeader',
    },
    {
      name: 'RecreateGroupAfterStart, a pod pending: waits',
      lws: withPolicy('RecreateGroupAfterStart'),
      pods: [restarted(0), aPod(0, 1, { phase: 'Pending' })],
      want: 'none',
    },
    {
      name: 'RecreateGroupAfterStart, a pod missing: waits',
      lws: withPolicy('RecreateGroupAfterStart'),
      pods: [restarted(0)],
      want: 'none',
    },
    {
      name: 'the after-start annotation makes RecreateGroupOnPodRestart wait too',
      lws: withPolicy('RecreateGroupOnPodRestart', {
        'leaderworkerset.sigs.k8s.io/experimental-recreate-group-after-start': '',
      }),
      pods: [restarted(0), aPod(0, 1, { phase: 'Pending' })],
      want: 'none',
    },
    {
      name: 'no restart, not deleted: nothing',
      lws: withPolicy('RecreateGroupOnPodRestart'),
      pods: [aPod(0, 0), aPod(0, 1)],
      want: 'none',
    },
    {
      name: 'the leader is already being deleted',
      lws: withPolicy('RecreateGroupOnPodRestart'),
      pods: [aPod(0, 0, { deleting: true }), aPod(0, 1)],
      want: 'leaderDeleting',
    },
  ])('$name', ({ lws, pods, want }) => {
    expect(restartDecision(lws, pods[0]!, group(pods)).kind).toBe(want);
  });

  it('a worker of another revision than its leader is left alone', () => {
    const lws = withPolicy('RecreateGroupOnPodRestart');
    const leader = aPod(0, 0, { revision: 'new' });
    const worker = restarted(1, {
      revision: 'old',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: `${LWS}-0`, uid: `uid-${LWS}-0`, controller: true }],
    });
    expect(restartDecision(lws, worker, { groupPods: [leader, worker], leader }).kind).toBe('none');
  });
  it('a worker whose leader is gone is left alone', () => {
    const lws = withPolicy('RecreateGroupOnPodRestart');
    const worker = restarted(1);
    expect(restartDecision(lws, worker, { groupPods: [worker, aPod(0, 2)], leader: null }).kind).toBe('none');
  });
  it('a worker pod name without an ordinal is an error', () => {
    const lws = withPolicy('RecreateGroupOnPodRestart');
    const worker = restarted(1);
    worker.metadata!.name = 'no-ordinal';
    expect(restartDecision(lws, worker, { groupPods: [aPod(0, 0), worker], leader: null })).toEqual({
      kind: 'error',
      message: 'parsing pod name for pod no-ordinal',
    });
  });
});

describe('planLeaderPod (the pod reconciler for a leader pod)', () => {
  const lws = anLws({ size: 3 });
  const leader = aPod(0, 0, { revision: 'k' });
  const revision = { ...newRevision(lws, [], 'k') };
  const world = { revisions: [revision], groupServiceExists: false, workerStatefulSetExists: false };

  it('creates the worker StatefulSet, with upstream events for success and failure', () => {
    const got = planLeaderPod(lws, leader, world);
    expect(got.events).toEqual([]);
    expect(got.createService).toBeUndefined();
    expect(got.createWorkerStatefulSet?.object.metadata?.name).toBe(`${LWS}-0`);
    expect(got.createWorkerStatefulSet?.onSuccess.note).toBe(`Created worker statefulset for leader pod ${LWS}-0`);
    expect(got.createWorkerStatefulSet?.onFailure('boom').note).toBe(
      `Failed to create worker statefulset for leader pod ${LWS}-0: boom`,
    );
  });
  it('an existing worker StatefulSet is left as it is', () => {
    expect(planLeaderPod(lws, leader, { ...world, workerStatefulSetExists: true })).toEqual({ events: [] });
  });
  it('size 1, or the leader being deleted: nothing', () => {
    expect(planLeaderPod(anLws({ size: 1 }), leader, world)).toEqual({ events: [] });
    expect(planLeaderPod(lws, aPod(0, 0, { revision: 'k', deleting: true }), world)).toEqual({ events: [] });
  });
  it('LeaderReady waits for the leader to be ready; LeaderCreated does not', () => {
    const notReady = aPod(0, 0, { revision: 'k', ready: false });
    const leaderReady = anLws({ size: 3, spec: { startupPolicy: 'LeaderReady' } });
    expect(planLeaderPod(leaderReady, notReady, world)).toEqual({ events: [] });
    expect(planLeaderPod(lws, notReady, world).createWorkerStatefulSet).toBeDefined();
  });
  it("the leader's revision not created yet: look again in a second", () => {
    expect(planLeaderPod(lws, aPod(0, 0, { revision: 'missing' }), world)).toEqual({
      events: [],
      requeueAfterMs: REVISION_WAIT_MS,
    });
  });
  it('a leader with the workers-only leader-name annotation: a warning and nothing else', () => {
    const bad = aPod(0, 0, { revision: 'k', annotations: { 'leaderworkerset.sigs.k8s.io/leader-name': 'x' } });
    expect(planLeaderPod(lws, bad, world)).toEqual({
      events: [
        {
          type: 'Warning',
          reason: 'FailedCreate',
          action: 'Create',
          note: `leader pod default/${LWS}-0 contains mistake annotation 'leaderworkerset.sigs.k8s.io/leader-name': requires Kubernetes ≥v1.27 or v1.26 with StatefulSetStartOrdinal feature`,
          related: { kind: 'Pod', name: `${LWS}-0` },
        },
      ],
    });
  });
  it('UniquePerReplica: the group Service first, even for a leader being deleted', () => {
    const unique = anLws({ size: 3, spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } });
    const got = planLeaderPod(unique, aPod(0, 0, { revision: 'k', deleting: true }), world);
    expect(got.createService?.metadata.name).toBe(`${LWS}-0`);
    expect(got.createWorkerStatefulSet).toBeUndefined();
    expect(planLeaderPod(unique, leader, { ...world, groupServiceExists: true }).createService).toBeUndefined();
  });
  describe('exclusive placement', () => {
    const exclusive = anLws({ size: 3, annotations: { 'leaderworkerset.sigs.k8s.io/exclusive-topology': 'pool' } });
    it('waits for the leader to be scheduled', () => {
      expect(planLeaderPod(exclusive, leader, world)).toEqual({ events: [] });
    });
    it("pins the workers to the leader node's topology value", () => {
      const scheduled = aPod(0, 0, { revision: 'k', nodeName: 'n1' });
      const got = planLeaderPod(exclusive, scheduled, { ...world, leaderNodeLabels: { pool: 'p1' } });
      expect(got.createWorkerStatefulSet?.object.spec?.template.spec?.nodeSelector).toEqual({ pool: 'p1' });
    });
    it('a node without the label is an error; a node not found gives the value ""', () => {
      const scheduled = aPod(0, 0, { revision: 'k', nodeName: 'n1' });
      expect(planLeaderPod(exclusive, scheduled, { ...world, leaderNodeLabels: {} }).error).toBe(
        'node does not have topology label: ',
      );
      const got = planLeaderPod(exclusive, scheduled, { ...world, leaderNodeLabels: null });
      expect(got.createWorkerStatefulSet?.object.spec?.template.spec?.nodeSelector).toEqual({ pool: '' });
    });
  });
});
