// The LeaderWorkerSet key's actions (plan.ts): what planLeaderWorkerSet decides, as the writes fleetq sends. A new
// set, the steady state (the apply alone, as upstream applies every pass), a scale, a template change starting a
// rolling update, a rolling update moving on, the clean-up once it is done, and the waits.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, StatefulSet } from '../../../../shared/kube/api/objects.js';
import { plannedEvents } from '../../../../shared/kube/actions.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import { planLeaderWorkerSetActions } from '../../../../shared/controllers/leaderworkerset/plan.js';
import {
  LEADER_STS_DELETING_RETRY_MS,
  planLeaderWorkerSet,
  type ObservedLeaderWorkerSet,
} from '../../../../shared/controllers/leaderworkerset/reconcile.js';
import { newRevision, revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, aWorkerSts, LWS, LWS_UID, NOW, NS } from './builders.js';

const REGARDING = {
  kind: 'LeaderWorkerSet',
  apiVersion: 'leaderworkerset.x-k8s.io/v1',
  namespace: NS,
  name: LWS,
  uid: LWS_UID,
};
const event = (type: string, reason: string, message: string) => ({
  regarding: REGARDING,
  source: 'leaderworkerset',
  type,
  reason,
  message,
  recorder: 'events.k8s.io',
});

function revisionOf(lws: LeaderWorkerSet, existing: ControllerRevision[] = []): ControllerRevision {
  const r = newRevision(lws, existing, '');
  return { ...r, metadata: { ...r.metadata, uid: `uid-${r.metadata?.name}` } };
}

/** The leader StatefulSet as the apiserver holds it after an apply: defaults filled in, ready, with its status. */
function serverLeader(lws: LeaderWorkerSet, partition: number, replicas: number, key: string): StatefulSet {
  const sts = leaderStatefulSet(lws, partition, replicas, key);
  const podSpec = sts.spec!.template.spec!;
  return {
    ...sts,
    metadata: { ...sts.metadata, uid: 'uid-leader', resourceVersion: '7', generation: 3 },
    spec: {
      ...sts.spec!,
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: {
        metadata: { ...sts.spec!.template.metadata, creationTimestamp: null } as never,
        spec: {
          ...podSpec,
          containers: podSpec.containers.map((c) => ({
            ...c,
            imagePullPolicy: 'IfNotPresent',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          })),
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: { replicas, availableReplicas: replicas, currentRevision: 'r', updateRevision: 'r' },
  };
}

/** The apply of a set whose leader StatefulSet exists, with no event to record on success. */
function leaderApply(lws: LeaderWorkerSet, configuration: StatefulSet) {
  return {
    type: 'apply',
    target: { kind: 'StatefulSet', namespace: NS, name: LWS },
    configuration,
    fieldManager: 'lws',
    force: true,
    reason: 'ApplyLeaderStatefulSet',
    events: {
      onSuccess: [],
      onFailure: {
        ...event('Warning', 'FailedUpdate', `Failed to update leader statefulset ${lws.metadata.name}: `),
        detail: 'error',
      },
    },
  };
}

function world(lws: LeaderWorkerSet, o: Partial<ObservedLeaderWorkerSet> = {}): ObservedLeaderWorkerSet {
  return { lws, leaderStatefulSet: null, revisions: [], pods: [], statefulSets: [], sharedServiceExists: true, ...o };
}

function readyGroups(n: number, key: string) {
  return {
    pods: Array.from({ length: n }, (_, g) => aPod(g, 0, { revision: key })),
    statefulSets: Array.from({ length: n }, (_, g) => aWorkerSts(g, { revision: key })),
  };
}

/** An available set of `replicas` groups on `lws`'s own revision, its status as the last pass wrote it. */
function settled(lws: LeaderWorkerSet, replicas = 2) {
  const revision = revisionOf(lws);
  const key = revisionKeyOf(revision);
  const leader = serverLeader(lws, 0, replicas, key);
  const first = planLeaderWorkerSet(
    world(lws, { leaderStatefulSet: leader, revisions: [revision], ...readyGroups(replicas, key) }),
    NOW,
  );
  const withStatus = { ...lws, status: first.status ?? lws.status };
  return { lws: withStatus, revision, key, leader };
}

describe('planLeaderWorkerSetActions', () => {
  it('gone: nothing', () => {
    expect(planLeaderWorkerSetActions({ ...world(anLws()), lws: null }, NOW)).toEqual({ actions: [] });
  });

  it('a new set: its first revision, the leader StatefulSet and the shared Service are created; no status yet', () => {
    const lws = anLws({ replicas: 2 });
    const revision = newRevision(lws, [], '');
    const key = revisionKeyOf(revision);
    const failure = (message: string) => ({ ...event('Warning', 'FailedCreate', message), detail: 'error' });
    expect(planLeaderWorkerSetActions(world(lws, { sharedServiceExists: false }), NOW)).toEqual({
      actions: [
        {
          type: 'create',
          object: revision,
          reason: 'CreateRevision',
          events: {
            onSuccess: [
              event(
                'Normal',
                'CreatingRevision',
                `Creating revision with key ${key} for a newly created LeaderWorkerSet`,
              ),
            ],
          },
        },
        {
          type: 'apply',
          target: { kind: 'StatefulSet', namespace: NS, name: LWS },
          configuration: leaderStatefulSet(lws, 0, 2, key),
          fieldManager: 'lws',
          force: true,
          reason: 'ApplyLeaderStatefulSet',
          events: {
            onSuccess: [event('Normal', 'GroupsProgressing', `Created leader statefulset ${LWS}`)],
            onFailure: failure(`Failed to create leader statefulset ${LWS}: `),
          },
        },
        {
          type: 'create',
          object: expect.objectContaining({ kind: 'Service', metadata: expect.objectContaining({ name: LWS }) }),
          reason: 'HeadlessService',
          events: { onFailure: failure('Failed to create headless service for error: ') },
        },
      ],
    });
  });

  it('settled: the apply alone, its configuration unchanged, no event (upstream applies every pass)', () => {
    const s = settled(anLws());
    const groups = readyGroups(2, s.key);
    expect(
      planLeaderWorkerSetActions(
        world(s.lws, { leaderStatefulSet: s.leader, revisions: [s.revision], ...groups }),
        NOW,
      ),
    ).toEqual({ actions: [leaderApply(s.lws, leaderStatefulSet(s.lws, 0, 2, s.key))] });
  });

  it('scaled from 2 to 3 groups: replicas and the replicas annotation applied, and the status', () => {
    const s = settled(anLws());
    const lws = { ...s.lws, spec: { ...s.lws.spec, replicas: 3 } };
    const result = planLeaderWorkerSetActions(
      world(lws, { leaderStatefulSet: s.leader, revisions: [s.revision], ...readyGroups(2, s.key) }),
      NOW,
    );
    const apply = result.actions.find((a) => a.type === 'apply');
    expect(apply).toEqual(leaderApply(lws, leaderStatefulSet(lws, 0, 3, s.key)));
    expect(apply).toMatchObject({
      configuration: {
        metadata: { annotations: { 'leaderworkerset.sigs.k8s.io/replicas': '3' } },
        spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 0 } } },
      },
    });
    expect(result.actions.map((a) => a.type)).toEqual(['apply', 'updateStatus']);
  });

  it('a template change: the new revision created, then the template and partition applied', () => {
    const s = settled(anLws());
    const lws: LeaderWorkerSet = JSON.parse(JSON.stringify(s.lws)) as LeaderWorkerSet;
    lws.spec.leaderWorkerTemplate.leaderTemplate!.spec!.containers[0]!.image = 'nginx:2';
    const groups = readyGroups(2, s.key);
    const result = planLeaderWorkerSetActions(
      world(lws, { leaderStatefulSet: s.leader, revisions: [s.revision], ...groups }),
      NOW,
    );
    const updated = newRevision(lws, [s.revision], '');
    const newKey = revisionKeyOf(updated);
    expect(result.actions.map((a) => a.type)).toEqual(['create', 'apply', 'updateStatus']);
    expect(result.actions[0]).toMatchObject({ type: 'create', object: updated });
    const desired = leaderStatefulSet(lws, 2, 2, newKey);
    expect(result.actions[1]).toMatchObject({ type: 'apply', configuration: desired });
    expect(desired).toMatchObject({
      metadata: { labels: { 'leaderworkerset.sigs.k8s.io/template-revision-hash': newKey } },
      spec: {
        replicas: 2,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, partition: 2 } },
      },
    });
    // No GroupsUpdating for the partition on the pass that changes the template: the UpdateInProgress condition's.
    expect(plannedEvents(result.actions).map((e) => [e.reason, e.message])).toEqual([
      ['CreatingRevision', `Creating revision with key ${newKey} for updated LWS`],
      ['GroupsUpdating', 'Rolling Upgrade is in progress, with 2 groups ready of total 2 groups'],
    ]);
  });

  it('a rolling update moving on: the partition applied down, with GroupsUpdating once written', () => {
    const old = settled(anLws());
    const lws: LeaderWorkerSet = JSON.parse(JSON.stringify(old.lws)) as LeaderWorkerSet;
    lws.spec.leaderWorkerTemplate.leaderTemplate!.spec!.containers[0]!.image = 'nginx:2';
    const updated = revisionOf(lws, [old.revision]);
    const key = revisionKeyOf(updated);
    const leader = serverLeader(lws, 2, 2, key);
    // Group 1 is updated and ready, maxUnavailable 1: the partition goes from 2 to 0.
    const pods = [aPod(0, 0, { revision: old.key }), aPod(1, 0, { revision: key })];
    const statefulSets = [aWorkerSts(0, { revision: old.key }), aWorkerSts(1, { revision: key })];
    const result = planLeaderWorkerSetActions(
      world(lws, { leaderStatefulSet: leader, revisions: [old.revision, updated], pods, statefulSets }),
      NOW,
    );
    const apply = result.actions.find((a) => a.type === 'apply');
    expect(apply).toMatchObject({
      configuration: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
      events: { onSuccess: [event('Normal', 'GroupsUpdating', 'Updating replicas 0 to 1 (inclusive)')] },
    });
    expect(result.actions.some((a) => a.type === 'delete')).toBe(false);
  });

  it('the update done: the old revision is deleted (beside the apply) once no status is to be written', () => {
    const before = anLws();
    before.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = 'nginx:1';
    const old = revisionOf(before);
    const s = settled(anLws());
    const revisions = [
      { ...old, revision: 1 },
      { ...s.revision, revision: 2 },
    ];
    const groups = readyGroups(2, s.key);
    const steady = planLeaderWorkerSetActions(world(s.lws, { leaderStatefulSet: s.leader, revisions, ...groups }), NOW);
    expect(steady).toEqual({
      actions: [
        leaderApply(s.lws, leaderStatefulSet(s.lws, 0, 2, s.key)),
        {
          type: 'delete',
          target: { kind: 'ControllerRevision', namespace: NS, name: old.metadata?.name },
          uid: old.metadata?.uid,
          reason: 'TruncateRevision',
        },
      ],
    });
    // The same pass with a status to write first: the status, and the deletes in the next pass, at once.
    const stale = { ...s.lws, status: { ...s.lws.status, readyReplicas: 0 } };
    const first = planLeaderWorkerSetActions(world(stale, { leaderStatefulSet: s.leader, revisions, ...groups }), NOW);
    expect(first.actions.map((a) => a.type)).toEqual(['apply', 'updateStatus']);
    expect(first.requeueAfter).toBe(0);
  });

  it('the status update carries the whole set, its kind and the condition events', () => {
    const lws = anLws();
    const revision = revisionOf(lws);
    const key = revisionKeyOf(revision);
    const result = planLeaderWorkerSetActions(
      world(lws, { leaderStatefulSet: serverLeader(lws, 0, 2, key), revisions: [revision], ...readyGroups(2, key) }),
      NOW,
    );
    const status = planLeaderWorkerSet(
      world(lws, { leaderStatefulSet: serverLeader(lws, 0, 2, key), revisions: [revision], ...readyGroups(2, key) }),
      NOW,
    ).status;
    expect(result.actions).toEqual([
      leaderApply(lws, leaderStatefulSet(lws, 0, 2, key)),
      {
        type: 'updateStatus',
        object: { ...lws, status },
        events: {
          onSuccess: [
            event('Normal', 'AllGroupsReady', 'All replicas are ready, with 2 groups ready of total 2 groups'),
          ],
        },
      },
    ]);
  });

  it('the leader StatefulSet being deleted: nothing, look again in 5 s', () => {
    const lws = anLws();
    const leader = serverLeader(lws, 0, 2, 'k');
    leader.metadata!.deletionTimestamp = '2026-03-10T10:00:00Z';
    expect(planLeaderWorkerSetActions(world(lws, { leaderStatefulSet: leader }), NOW)).toEqual({
      actions: [],
      requeueAfter: LEADER_STS_DELETING_RETRY_MS,
    });
  });
});
