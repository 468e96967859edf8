// The LeaderWorkerSetPod key's actions (observe.ts then pod-plan.ts on a fake cluster): restart policies (the
// group's leader deleted, foreground, by uid), startup policies (when a leader gets its worker StatefulSet), the
// per-replica Service, the waits and upstream's errors.
import { describe, expect, it } from '@jest/globals';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { ReconcileError } from '../../../../shared/kube/errors.js';
import { observeLwsPod } from '../../../../shared/controllers/leaderworkerset/observe.js';
import { planLwsPodActions } from '../../../../shared/controllers/leaderworkerset/pod-plan.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import {
  REVISION_WAIT_MS,
  workerStatefulSet,
} from '../../../../shared/controllers/leaderworkerset/worker-statefulset.js';
import type { LeaderWorkerSet, Pod } from '../../../../shared/controllers/leaderworkerset/types.js';
import { FakeCluster } from './fake-cluster.js';
import { anLws, aPod, LWS, LWS_UID, NS } from './builders.js';

const KEY = 'rev-1';
const event = (type: string, reason: string, message: string) => ({
  regarding: {
    kind: 'LeaderWorkerSet',
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    namespace: NS,
    name: LWS,
    uid: LWS_UID,
  },
  source: 'leaderworkerset',
  type,
  reason,
  message,
  recorder: 'events.k8s.io',
});

const withKind = (pod: Pod): Pod => ({ apiVersion: 'v1', kind: 'Pod', ...pod });
const revision = (lws: LeaderWorkerSet) => newRevision(lws, [], KEY);
const stsOwnedBy = (leader: Pod): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {
    name: leader.metadata?.name,
    namespace: NS,
    uid: 'uid-workers-0',
    ownerReferences: [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: leader.metadata?.name ?? '',
        uid: leader.metadata?.uid ?? '',
        controller: true,
      },
    ],
  },
});
const workerOf = (o: Parameters<typeof aPod>[2] = {}) =>
  withKind(
    aPod(0, 1, {
      revision: KEY,
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: `${LWS}-0`, uid: 'uid-workers-0', controller: true },
      ],
      ...o,
    }),
  );

async function pass(objects: ApiObject[], podName: string) {
  const cluster = new FakeCluster(objects);
  const key = { cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: NS, name: podName };
  const observed = await observeLwsPod(cluster, key);
  return { cluster, run: () => planLwsPodActions(observed) };
}

describe('restart policies', () => {
  it('RecreateGroupOnPodRestart: a restarted worker of the current group deletes its leader, foreground, by uid', async () => {
    const lws = anLws({ replicas: 1, size: 2 });
    const leader = withKind(aPod(0, 0, { revision: KEY }));
    const { run } = await pass([lws, leader, workerOf({ restarts: 1 }), stsOwnedBy(leader)], `${LWS}-0-1`);
    expect(run()).toEqual({
      actions: [
        {
          type: 'delete',
          target: { kind: 'Pod', namespace: NS, name: `${LWS}-0` },
          uid: `uid-${LWS}-0`,
          reason: 'RecreateGroup',
          propagationPolicy: 'Foreground',
          events: {
            onSuccess: [
              event(
                'Normal',
                'RecreateGroup',
                `Worker pod ${LWS}-0-1 failed, deleted leader pod ${LWS}-0 to recreate group 0`,
              ),
            ],
          },
        },
      ],
    });
  });

  it('None: a restarted worker changes nothing, and its group is not read', async () => {
    const lws = anLws({ replicas: 1, size: 2 });
    lws.spec.leaderWorkerTemplate.restartPolicy = 'None';
    const leader = withKind(aPod(0, 0, { revision: KEY }));
    const { cluster, run } = await pass([lws, leader, workerOf({ restarts: 1 }), stsOwnedBy(leader)], `${LWS}-0-1`);
    expect(run()).toEqual({ actions: [] });
    expect(cluster.requests).toEqual([`GET Pod ${LWS}-0-1`, `GET LeaderWorkerSet ${LWS}`]);
  });

  it('RecreateGroupAfterStart: nothing while a pod of the group is pending; then the leader goes', async () => {
    const lws = anLws({ replicas: 1, size: 2 });
    lws.spec.leaderWorkerTemplate.restartPolicy = 'RecreateGroupAfterStart';
    const pending = withKind(aPod(0, 0, { revision: KEY, phase: 'Pending' }));
    const waiting = await pass([lws, pending, workerOf({ restarts: 1 }), stsOwnedBy(pending)], `${LWS}-0-1`);
    expect(waiting.run()).toEqual({ actions: [] });
    const running = withKind(aPod(0, 0, { revision: KEY }));
    const started = await pass([lws, running, workerOf({ restarts: 1 }), stsOwnedBy(running)], `${LWS}-0-1`);
    expect(started.run().actions.map((a) => a.type)).toEqual(['delete']);
  });
});

describe('startup policies: when a leader pod gets its worker StatefulSet', () => {
  const lwsWith = (startupPolicy: string) => anLws({ replicas: 1, size: 3, spec: { startupPolicy } });

  it.each([
    { policy: 'LeaderReady', ready: false, creates: false },
    { policy: 'LeaderReady', ready: true, creates: true },
    { policy: 'LeaderCreated', ready: false, creates: true },
  ])('$policy, leader ready $ready: creates $creates', async ({ policy, ready, creates }) => {
    const lws = lwsWith(policy);
    const leader = withKind(aPod(0, 0, { revision: KEY, ready }));
    const { run } = await pass([lws, leader, revision(lws)], `${LWS}-0`);
    const sts = workerStatefulSet(leader, lws, revision(lws));
    expect(run()).toEqual({
      actions: creates
        ? [
            {
              type: 'create',
              object: sts,
              reason: 'CreateWorkerStatefulSet',
              events: {
                onSuccess: [event('Normal', 'GroupsProgressing', `Created worker statefulset for leader pod ${LWS}-0`)],
                onFailure: {
                  ...event('Warning', 'FailedCreate', `Failed to create worker statefulset for leader pod ${LWS}-0: `),
                  detail: 'error',
                  quietOn: ['AlreadyExists'],
                },
              },
            },
          ]
        : [],
    });
  });

  it('the worker StatefulSet there already: nothing', async () => {
    const lws = lwsWith('LeaderCreated');
    const leader = withKind(aPod(0, 0, { revision: KEY }));
    const { run } = await pass([lws, leader, revision(lws), stsOwnedBy(leader)], `${LWS}-0`);
    expect(run()).toEqual({ actions: [] });
  });

  it('the leader’s revision not there yet: look again in a second', async () => {
    const lws = lwsWith('LeaderCreated');
    const { run } = await pass([lws, withKind(aPod(0, 0, { revision: KEY }))], `${LWS}-0`);
    expect(run()).toEqual({ actions: [], requeueAfter: REVISION_WAIT_MS });
  });

  it('UniquePerReplica: the group’s headless Service, with no event', async () => {
    const lws = anLws({ replicas: 1, size: 1, spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } });
    const { run } = await pass([lws, withKind(aPod(0, 0, { revision: KEY }))], `${LWS}-0`);
    expect(run()).toEqual({
      actions: [
        {
          type: 'create',
          object: expect.objectContaining({ kind: 'Service', metadata: expect.objectContaining({ name: `${LWS}-0` }) }),
          reason: 'HeadlessService',
        },
      ],
    });
  });
});

describe('what upstream filters out or fails on', () => {
  it('a pod without the name label (a key made through a StatefulSet it controls): nothing', async () => {
    const pod = withKind(aPod(0, 0));
    delete pod.metadata!.labels!['leaderworkerset.sigs.k8s.io/name'];
    const { run } = await pass([pod], `${LWS}-0`);
    expect(run()).toEqual({ actions: [] });
  });

  it('an empty name label: upstream’s error, retried', async () => {
    const pod = withKind(aPod(0, 0));
    pod.metadata!.labels!['leaderworkerset.sigs.k8s.io/name'] = '';
    const { run } = await pass([pod], `${LWS}-0`);
    expect(run).toThrow(ReconcileError);
    expect(run).toThrow('leaderworkerset.sigs.k8s.io/name label is unexpected missing');
  });

  it('exclusive placement, the node without the topology label: the Service first, then the error', async () => {
    const lws = anLws({
      replicas: 1,
      size: 2,
      annotations: { 'leaderworkerset.sigs.k8s.io/exclusive-topology': 'pool' },
      spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } },
    });
    const leader = withKind(aPod(0, 0, { revision: KEY, nodeName: 'n1' }));
    const node: ApiObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: {} } };
    const first = await pass([lws, leader, revision(lws), node], `${LWS}-0`);
    const result = first.run();
    expect(result.actions.map((a) => a.type)).toEqual(['create']);
    expect(result.requeueAfter).toBe(0);
    first.cluster.apply(result.actions);
    const second = await pass(first.cluster.objects, `${LWS}-0`);
    expect(second.run).toThrow('node does not have topology label: ');
  });
});
