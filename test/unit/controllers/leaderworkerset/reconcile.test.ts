// One LeaderWorkerSet reconcile pass (planLeaderWorkerSet, after upstream's Reconcile): a new set, the steady state,
// a template change, a rolling update moving on, the clean-up once it is done, and the waits.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, StatefulSet } from '../../../../shared/kube/api/objects.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import {
  LEADER_STS_DELETING_RETRY_MS,
  planLeaderWorkerSet,
  type ObservedLeaderWorkerSet,
} from '../../../../shared/controllers/leaderworkerset/reconcile.js';
import { newRevision, revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { computeStatus } from '../../../../shared/controllers/leaderworkerset/status.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, aWorkerSts, LWS, NOW } from './builders.js';

/** The leader StatefulSet as the apiserver would hold it after an apply: ready, with its status. */
function appliedLeader(lws: LeaderWorkerSet, partition: number, replicas: number, key: string): StatefulSet {
  const sts = leaderStatefulSet(lws, partition, replicas, key);
  return {
    ...sts,
    metadata: { ...sts.metadata, uid: 'uid-leader' },
    status: { replicas, availableReplicas: replicas },
  };
}

function world(lws: LeaderWorkerSet | null, o: Partial<ObservedLeaderWorkerSet> = {}): ObservedLeaderWorkerSet {
  return { lws, leaderStatefulSet: null, revisions: [], pods: [], statefulSets: [], sharedServiceExists: true, ...o };
}

/** Groups 0..n-1, each leader and worker StatefulSet ready on `key`. */
function readyGroups(n: number, key: string) {
  return {
    pods: Array.from({ length: n }, (_, g) => aPod(g, 0, { revision: key })),
    statefulSets: Array.from({ length: n }, (_, g) => aWorkerSts(g, { revision: key })),
  };
}

describe('planLeaderWorkerSet', () => {
  it('a new LeaderWorkerSet: its first revision, the leader StatefulSet, the shared Service; no status yet', () => {
    const lws = anLws({ replicas: 2 });
    const plan = planLeaderWorkerSet(world(lws, { sharedServiceExists: false }), NOW);
    const revision = newRevision(lws, [], '');
    const key = revisionKeyOf(revision);
    expect(plan.createRevisions).toEqual([
      {
        object: revision,
        event: {
          type: 'Normal',
          reason: 'CreatingRevision',
          action: 'Create',
          note: `Creating revision with key ${key} for a newly created LeaderWorkerSet`,
          related: { kind: 'ControllerRevision', name: revision.metadata?.name },
        },
      },
    ]);
    expect(plan.applyLeaderStatefulSet?.object).toEqual(leaderStatefulSet(lws, 0, 2, key));
    expect(plan.applyLeaderStatefulSet?.existed).toBe(false);
    expect(plan.applyLeaderStatefulSet?.onSuccess.map((e) => e.note)).toEqual([`Created leader statefulset ${LWS}`]);
    expect(plan.applyLeaderStatefulSet?.onFailure('denied')).toMatchObject({
      type: 'Warning',
      reason: 'FailedCreate',
      note: `Failed to create leader statefulset ${LWS}: denied`,
    });
    expect(plan.createService?.object.metadata.name).toBe(LWS);
    expect(plan.createService?.onFailure('x').note).toBe('Failed to create headless service for error: x');
    expect(plan.status).toBeUndefined();
    expect(plan.deleteRevisions).toEqual([]);
  });

  it('the steady state: the same leader StatefulSet applied, nothing else', () => {
    const lws = anLws({ replicas: 2 });
    const revision = newRevision(lws, [], '');
    const key = revisionKeyOf(revision);
    const sts = appliedLeader(lws, 0, 2, key);
    const groups = readyGroups(2, key);
    const workers = new Map(groups.statefulSets.map((s) => [s.metadata?.name ?? '', s]));
    // Its status as the previous pass wrote it.
    const settled = { ...lws, status: computeStatus(lws, sts, groups.pods, workers, key, NOW).status };
    const plan = planLeaderWorkerSet(world(settled, { leaderStatefulSet: sts, revisions: [revision], ...groups }), NOW);
    expect(plan).toEqual({
      createRevisions: [],
      applyLeaderStatefulSet: {
        object: leaderStatefulSet(settled, 0, 2, key),
        existed: true,
        onSuccess: [],
        onFailure: expect.any(Function),
      },
      rollingEvents: [],
      statusEvents: [],
      deleteRevisions: [],
    });
  });

  it('a template change: a new revision, the partition at the top, UpdateInProgress', () => {
    const before = anLws({ replicas: 3 });
    const old = newRevision(before, [], '');
    const oldKey = revisionKeyOf(old);
    const after = anLws({ replicas: 3 });
    after.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = 'v2';
    const plan = planLeaderWorkerSet(
      world(after, {
        leaderStatefulSet: appliedLeader(before, 0, 3, oldKey),
        revisions: [old],
        ...readyGroups(3, oldKey),
      }),
      NOW,
    );
    expect(plan.createRevisions).toHaveLength(1);
    const created = plan.createRevisions[0]!;
    expect(created.object.revision).toBe(2);
    expect(created.event.note).toBe(`Creating revision with key ${revisionKeyOf(created.object)} for updated LWS`);
    const sts = plan.applyLeaderStatefulSet!.object;
    expect(sts.spec?.updateStrategy?.rollingUpdate?.partition).toBe(3);
    expect(sts.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash']).toBe(
      revisionKeyOf(created.object),
    );
    expect(plan.applyLeaderStatefulSet!.onSuccess).toEqual([]);
    expect(plan.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['UpdateInProgress=True']);
    expect(plan.deleteRevisions).toEqual([]);
  });

  it('a rolling update moving on: the partition goes down, GroupsUpdating says which replica', () => {
    const before = anLws({ replicas: 3 });
    const old = newRevision(before, [], '');
    const lws = anLws({ replicas: 3 });
    lws.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = 'v2';
    const current = newRevision(lws, [old], '');
    const oldKey = revisionKeyOf(old);
    const key = revisionKeyOf(current);
    // Group 2 is updated and ready; 0 and 1 still run the old revision.
    const pods = [aPod(0, 0, { revision: oldKey }), aPod(1, 0, { revision: oldKey }), aPod(2, 0, { revision: key })];
    const statefulSets = [
      aWorkerSts(0, { revision: oldKey }),
      aWorkerSts(1, { revision: oldKey }),
      aWorkerSts(2, { revision: key }),
    ];
    const plan = planLeaderWorkerSet(
      world(lws, { leaderStatefulSet: appliedLeader(lws, 2, 3, key), revisions: [old, current], pods, statefulSets }),
      NOW,
    );
    expect(plan.createRevisions).toEqual([]);
    expect(plan.applyLeaderStatefulSet?.object.spec?.updateStrategy?.rollingUpdate?.partition).toBe(1);
    expect(plan.applyLeaderStatefulSet?.onSuccess).toEqual([
      {
        type: 'Normal',
        reason: 'GroupsUpdating',
        action: 'Update',
        note: 'Updating replica 1',
        related: { kind: 'ControllerRevision', name: current.metadata?.name },
      },
    ]);
  });

  it('the update done: the other revisions are deleted', () => {
    const before = anLws({ replicas: 2 });
    const old = newRevision(before, [], '');
    const lws = anLws({ replicas: 2 });
    lws.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = 'v2';
    const current: ControllerRevision = newRevision(lws, [old], '');
    const key = revisionKeyOf(current);
    const plan = planLeaderWorkerSet(
      world(lws, {
        leaderStatefulSet: appliedLeader(lws, 0, 2, key),
        revisions: [old, current],
        ...readyGroups(2, key),
      }),
      NOW,
    );
    expect(plan.deleteRevisions).toEqual([old]);
    expect(plan.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['Available=True']);
  });

  it('waits: nothing for a set being deleted; 5 s while its leader StatefulSet is being deleted', () => {
    const lws = anLws();
    const deleting = { ...lws, metadata: { ...lws.metadata, deletionTimestamp: '2026-03-10T10:00:00Z' } };
    expect(planLeaderWorkerSet(world(deleting), NOW)).toEqual({
      createRevisions: [],
      rollingEvents: [],
      statusEvents: [],
      deleteRevisions: [],
    });
    expect(planLeaderWorkerSet(world(null), NOW).createRevisions).toEqual([]);
    const sts = appliedLeader(lws, 0, 2, 'k');
    sts.metadata!.deletionTimestamp = '2026-03-10T10:00:00Z';
    expect(planLeaderWorkerSet(world(lws, { leaderStatefulSet: sts }), NOW)).toEqual({
      createRevisions: [],
      rollingEvents: [],
      statusEvents: [],
      deleteRevisions: [],
      requeueAfterMs: LEADER_STS_DELETING_RETRY_MS,
    });
  });
});
