import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import type { Action } from '../../../../shared/kube/actions.js';
import { planManageFailure, planReplicaSet } from '../../../../shared/controllers/replicaset/plan.js';
import { BURST_REPLICAS } from '../../../../shared/controllers/replicaset/types.js';
import {
  LABELS,
  NOW,
  NS,
  RS_UID,
  aPod,
  aReplicaSet,
  aStatus,
  observed,
  readyPods,
  rsRef,
  secondsAgo,
} from './builders.js';

const newPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    generateName: 'web-',
    namespace: NS,
    labels: { ...LABELS, tier: 'front' },
    ownerReferences: [rsRef],
  },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
};
/** The ReplicaSet every event of these plans is recorded on (the builders' `web`). */
const regarding = {
  kind: 'ReplicaSet',
  apiVersion: 'apps/v1',
  namespace: NS,
  name: 'web',
  uid: 'uid-rs',
  resourceVersion: '100',
};
const rsEvent = (type: string, reason: string, message: string) => ({
  regarding,
  source: 'replicaset-controller',
  type,
  reason,
  message,
});
const create = {
  type: 'create',
  object: newPod,
  reason: 'SuccessfulCreate',
  events: {
    onSuccess: [{ ...rsEvent('Normal', 'SuccessfulCreate', 'Created pod: '), detail: 'createdName' }],
    onFailure: { ...rsEvent('Warning', 'FailedCreate', 'Error creating: '), detail: 'error' },
  },
};
const del = (name: string) => ({
  type: 'delete',
  target: { kind: 'Pod', namespace: NS, name },
  uid: `uid-${name}`,
  reason: 'SuccessfulDelete',
  events: {
    onSuccess: [rsEvent('Normal', 'SuccessfulDelete', `Deleted pod: ${name}`)],
    onFailure: { ...rsEvent('Warning', 'FailedDelete', 'Error deleting: '), detail: 'error' },
  },
});
const statusOf = (a: Action) => (a.type === 'updateStatus' ? (a.object as { status?: unknown }).status : undefined);
const types = (actions: readonly Action[]) => actions.map((a) => a.type);
/** The status that matches `n` ready pods, so that no status write is planned. */
const steady = (n: number) => aStatus({ replicas: n, fullyLabeledReplicas: n, readyReplicas: n, availableReplicas: n });

describe('planReplicaSet: replicas', () => {
  it.each([
    { name: 'the ReplicaSet is gone: nothing', o: observed(null, readyPods(2)), want: { actions: [] } },
    {
      name: 'creates the missing pods from the template',
      o: observed(aReplicaSet({ replicas: 3, status: steady(1) }), readyPods(1)),
      want: { actions: [create, create] },
    },
    {
      name: 'replaces pods that finished or are being deleted',
      o: observed(aReplicaSet({ replicas: 2, status: steady(1) }), [
        ...readyPods(1),
        aPod('done', { phase: 'Succeeded' }),
        aPod('failed', { phase: 'Failed' }),
      ]),
      want: { actions: [create] },
    },
    {
      name: 'in sync, status unchanged: no writes at all',
      o: observed(aReplicaSet({ replicas: 2, status: steady(2) }), readyPods(2)),
      want: { actions: [] },
    },
    {
      name: 'deletes the surplus chosen by the ranking (not ready, then pending, go first)',
      o: observed(aReplicaSet({ replicas: 1, status: steady(3) }), [
        aPod('ready', { readyFor: 600 }),
        aPod('pending', { phase: 'Pending' }),
        aPod('not-ready'),
      ]),
      want: { actions: [del('pending'), del('not-ready')] },
    },
    {
      name: 'a ReplicaSet being deleted creates and deletes nothing',
      o: observed(aReplicaSet({ replicas: 5, deleting: true, status: steady(1) }), readyPods(1)),
      want: { actions: [] },
    },
  ])('$name', ({ o, want }) => {
    const got = planReplicaSet(o, NOW);
    expect({ ...got, actions: got.actions.filter((a) => a.type !== 'updateStatus') }).toEqual(want);
  });

  it(`caps creates at ${BURST_REPLICAS} per pass and continues at once`, () => {
    const got = planReplicaSet(observed(aReplicaSet({ replicas: 1200 }), readyPods(100)), NOW);
    expect(types(got.actions).filter((t) => t === 'create')).toHaveLength(BURST_REPLICAS);
    expect(got.requeueAfter).toBe(0);
  });

  it(`caps deletes at ${BURST_REPLICAS} per pass and continues at once`, () => {
    const got = planReplicaSet(observed(aReplicaSet({ replicas: 0 }), readyPods(700)), NOW);
    expect(types(got.actions).filter((t) => t === 'delete')).toHaveLength(BURST_REPLICAS);
    expect(got.requeueAfter).toBe(0);
  });

  it('exactly the burst: no continuation', () => {
    const got = planReplicaSet(observed(aReplicaSet({ replicas: BURST_REPLICAS, status: steady(0) }), []), NOW);
    expect(types(got.actions)).toEqual(Array(BURST_REPLICAS).fill('create'));
    expect(got.requeueAfter).toBeUndefined();
  });

  it('ranks a controlled ReplicaSet by related pods on the same node', () => {
    const mine = [aPod('a', { readyFor: 60, node: 'n1' }), aPod('b', { readyFor: 60, node: 'n2' })];
    const related = [...mine, aPod('sibling', { owner: 'uid-rs-old', node: 'n2' })];
    const rs = aReplicaSet({ replicas: 1, controlledBy: 'uid-dep', status: steady(2) });
    expect(planReplicaSet(observed(rs, mine, { relatedPods: related }), NOW).actions).toEqual([del('b')]);
    expect(planReplicaSet(observed(rs, mine), NOW).actions).toEqual([del('a')]);
  });
});

describe('planReplicaSet: adoption and release (ClaimPods)', () => {
  const orphan = aPod('orphan', { owner: 'none', readyFor: 60 });
  const strayed = aPod('strayed', { labels: { app: 'debug' } });
  // Upstream's ControllerRefManager patches: the pod's uid is the precondition, no resourceVersion.
  const adopt = {
    type: 'patch',
    target: { kind: 'Pod', namespace: NS, name: 'orphan' },
    patch: { metadata: { ownerReferences: [rsRef], uid: orphan.metadata?.uid } },
    reason: 'AdoptPod',
    ignore: ['NotFound'],
  };
  const release = {
    type: 'patch',
    target: { kind: 'Pod', namespace: NS, name: 'strayed' },
    patch: { metadata: { ownerReferences: [{ $patch: 'delete', uid: RS_UID }], uid: strayed.metadata?.uid } },
    reason: 'ReleasePod',
    ignore: ['NotFound', 'Invalid'],
  };

  it.each([
    {
      name: 'adopts a matching orphan, and only that this pass',
      o: observed(aReplicaSet({ replicas: 3 }), [...readyPods(1), orphan], { adoptionRecheck: aReplicaSet() }),
      want: { actions: [adopt], requeueAfter: 0 },
    },
    {
      name: 'releases a pod that no longer matches',
      o: observed(aReplicaSet({ replicas: 1 }), [...readyPods(1), strayed]),
      want: { actions: [release], requeueAfter: 0 },
    },
    {
      name: 'no adoption when the recheck finds the ReplicaSet being deleted: look again',
      o: observed(aReplicaSet({ replicas: 3 }), [orphan], { adoptionRecheck: aReplicaSet({ deleting: true }) }),
      want: { actions: [], requeueAfter: 0 },
    },
    {
      name: 'no adoption when the recheck finds another ReplicaSet of that name',
      o: observed(aReplicaSet({ replicas: 3 }), [orphan], {
        adoptionRecheck: { ...aReplicaSet(), metadata: { ...aReplicaSet().metadata, uid: 'uid-new' } },
      }),
      want: { actions: [], requeueAfter: 0 },
    },
    {
      name: 'a ReplicaSet being deleted neither adopts nor releases',
      o: observed(aReplicaSet({ replicas: 1, deleting: true, status: steady(1) }), [...readyPods(1), orphan, strayed]),
      want: { actions: [] },
    },
  ])('$name', ({ o, want }) => {
    expect(planReplicaSet(o, NOW)).toEqual(want);
  });

  it.each([
    { name: 'an orphan that does not match', pod: aPod('x', { owner: 'none', labels: { app: 'api' } }) },
    { name: 'a pod controlled by another controller', pod: aPod('x', { owner: 'uid-other' }) },
    { name: 'an orphan being deleted', pod: aPod('x', { owner: 'none', deleting: true }) },
    { name: 'a finished orphan', pod: aPod('x', { owner: 'none', phase: 'Succeeded' }) },
  ])('leaves alone $name', ({ pod }) => {
    const got = planReplicaSet(observed(aReplicaSet({ replicas: 1, status: steady(1) }), [...readyPods(1), pod]), NOW);
    expect(got).toEqual({ actions: [] });
  });

  it('counts an adopted pod from the next pass on: no create for it', () => {
    const adopted = { ...orphan, metadata: { ...orphan.metadata, ownerReferences: [rsRef] } };
    const o = observed(aReplicaSet({ replicas: 2, status: steady(2) }), [...readyPods(1), adopted]);
    expect(planReplicaSet(o, NOW)).toEqual({ actions: [] });
  });
});

describe('planReplicaSet: status', () => {
  it.each<{
    name: string;
    rs: Parameters<typeof aReplicaSet>[0];
    pods: Pod[];
    status: unknown;
    requeueAfter?: number;
  }>([
    {
      name: 'counts ready and fully labeled pods; terminatingReplicas 0 is written',
      rs: { replicas: 3 },
      pods: [aPod('a', { readyFor: 5 }), aPod('b', { labels: { ...LABELS } }), aPod('c')],
      status: aStatus({ replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1 }),
    },
    {
      name: 'minReadySeconds: available after it, requeue when the soonest pod becomes available',
      rs: { replicas: 3, minReadySeconds: 30 },
      pods: [aPod('a', { readyFor: 31 }), aPod('b', { readyFor: 10 }), aPod('c', { readyFor: 25 })],
      status: aStatus({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 1 }),
      requeueAfter: 5000,
    },
    {
      name: 'counts terminating pods it controls and selects; not finished ones, orphans or strays',
      rs: { replicas: 1 },
      pods: [
        aPod('a', { readyFor: 60 }),
        aPod('t1', { deleting: true, readyFor: 60 }),
        aPod('t2', { deleting: true }),
        aPod('t-failed', { deleting: true, phase: 'Failed' }),
        aPod('t-orphan', { deleting: true, owner: 'none' }),
        aPod('t-stray', { deleting: true, labels: { app: 'debug' } }),
      ],
      status: aStatus({
        replicas: 1,
        fullyLabeledReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        terminatingReplicas: 2,
      }),
    },
    {
      name: 'observedGeneration follows the generation',
      rs: { replicas: 1, generation: 4, status: steady(1) },
      pods: readyPods(1),
      status: { ...steady(1), observedGeneration: 4 },
    },
    {
      name: 'a ReplicaSet being deleted still reports its pods',
      rs: { replicas: 3, deleting: true },
      pods: readyPods(2),
      status: steady(2),
    },
  ])('$name', ({ rs, pods, status, requeueAfter }) => {
    const got = planReplicaSet(observed(aReplicaSet(rs), pods), NOW);
    const writes = got.actions.filter((a) => a.type === 'updateStatus');
    expect(writes.map(statusOf)).toEqual([status]);
    expect(writes[0]?.object.metadata?.resourceVersion).toBe('100');
    expect(got.requeueAfter).toBe(requeueAfter);
  });

  it('status as observed (omitted zero counts included): no write', () => {
    const onWire = { replicas: 0, terminatingReplicas: 0, observedGeneration: 1 };
    expect(planReplicaSet(observed(aReplicaSet({ replicas: 0, status: onWire }), []), NOW)).toEqual({ actions: [] });
  });

  it('terminatingReplicas missing on the object (older writer): written as 0', () => {
    const old = { replicas: 0, observedGeneration: 1 };
    const got = planReplicaSet(observed(aReplicaSet({ replicas: 0, status: old }), []), NOW);
    expect(got.actions.map(statusOf)).toEqual([aStatus()]);
  });

  it('minReadySeconds with all pods available or none ready: no requeue', () => {
    const rs = aReplicaSet({ replicas: 2, minReadySeconds: 30 });
    expect(planReplicaSet(observed(rs, readyPods(2)), NOW).requeueAfter).toBeUndefined();
    expect(planReplicaSet(observed(rs, [aPod('a'), aPod('b')]), NOW).requeueAfter).toBeUndefined();
  });
});

describe('ReplicaFailure', () => {
  const failure = { message: 'pods "web-x" is forbidden: exceeded quota: q' };
  const failed = (reason: string) => ({
    type: 'ReplicaFailure',
    status: 'True',
    lastTransitionTime: wireTime(NOW),
    reason,
    message: failure.message,
  });

  it.each([
    { name: 'a failed create sets FailedCreate', replicas: 3, pods: readyPods(1), reason: 'FailedCreate' },
    { name: 'a failed delete sets FailedDelete', replicas: 1, pods: readyPods(3), reason: 'FailedDelete' },
  ])('$name', ({ replicas, pods, reason }) => {
    const rs = aReplicaSet({ replicas, status: steady(pods.length) });
    const got = planManageFailure(observed(rs, pods), NOW, failure);
    expect(got.actions.map(statusOf)).toEqual([{ ...steady(pods.length), conditions: [failed(reason)] }]);
  });

  it('an existing ReplicaFailure is kept as it is (no new write)', () => {
    const existing = { ...failed('FailedCreate'), lastTransitionTime: secondsAgo(60), message: 'earlier' };
    const rs = aReplicaSet({ replicas: 3, status: { ...steady(1), conditions: [existing] } });
    expect(planManageFailure(observed(rs, readyPods(1)), NOW, failure)).toEqual({ actions: [] });
  });

  it('the next pass removes it (status written after its creates succeed)', () => {
    const rs = aReplicaSet({ replicas: 3, status: { ...steady(1), conditions: [failed('FailedCreate')] } });
    const got = planReplicaSet(observed(rs, readyPods(1)), NOW);
    expect(types(got.actions)).toEqual(['create', 'create', 'updateStatus']);
    expect(got.actions.map(statusOf)[2]).toEqual(steady(1));
  });

  it('not after a pass that only claimed pods, nor for a ReplicaSet being deleted', () => {
    const orphan = aPod('orphan', { owner: 'none' });
    expect(planManageFailure(observed(aReplicaSet({ replicas: 3 }), [orphan]), NOW, failure)).toEqual({ actions: [] });
    const deleting = aReplicaSet({ replicas: 3, deleting: true });
    expect(planManageFailure(observed(deleting, []), NOW, failure)).toEqual({ actions: [] });
  });
});
