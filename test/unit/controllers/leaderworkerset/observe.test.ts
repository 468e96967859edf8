// What each LeaderWorkerSet key reads, in order: cache reads first, the lists whole namespaces filtered by label,
// and a fresh read only before a create that could follow a deletion the cache has not seen.
import { describe, expect, it } from '@jest/globals';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { observeLeaderWorkerSet, observeLwsPod } from '../../../../shared/controllers/leaderworkerset/observe.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { planLwsPodActions } from '../../../../shared/controllers/leaderworkerset/pod-plan.js';
import type { Pod } from '../../../../shared/controllers/leaderworkerset/types.js';
import { FakeCluster } from './fake-cluster.js';
import { anLws, aPod, aWorkerSts, LWS, NS } from './builders.js';

const lwsKey = { cluster: 'c', kind: 'LeaderWorkerSet', namespace: NS, name: LWS };
const podKey = (name: string) => ({ cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: NS, name });
const withKind = (pod: Pod): Pod => ({ apiVersion: 'v1', kind: 'Pod', ...pod });
const kinded = (o: ApiObject, kind: string): ApiObject => ({ ...o, kind });

describe('observeLeaderWorkerSet', () => {
  it('gone: one GET', async () => {
    const cluster = new FakeCluster([]);
    expect((await observeLeaderWorkerSet(cluster, lwsKey)).lws).toBeNull();
    expect(cluster.requests).toEqual([`GET LeaderWorkerSet ${LWS}`]);
  });

  it('a new set: its revisions and Service read, then the set again, fresh, before its leader StatefulSet is made', async () => {
    const lws = anLws();
    const cluster = new FakeCluster([lws]);
    const observed = await observeLeaderWorkerSet(cluster, lwsKey);
    expect(cluster.requests).toEqual([
      `GET LeaderWorkerSet ${LWS}`,
      `GET StatefulSet ${LWS}`,
      'LIST ControllerRevision',
      `GET Service ${LWS}`,
      `GET LeaderWorkerSet ${LWS} (fresh)`,
    ]);
    expect(observed).toMatchObject({ lws, leaderStatefulSet: null, sharedServiceExists: false });
  });

  it('deleted since the cache saw it (the fresh read finds nothing, or another uid): nothing to create for', async () => {
    const lws = anLws();
    const cluster = new FakeCluster([lws]);
    cluster.fresh.set(`LeaderWorkerSet/${LWS}`, null);
    expect((await observeLeaderWorkerSet(cluster, lwsKey)).lws).toBeNull();
    cluster.fresh.set(`LeaderWorkerSet/${LWS}`, { ...lws, metadata: { ...lws.metadata, uid: 'uid-new' } });
    expect((await observeLeaderWorkerSet(cluster, lwsKey)).lws).toBeNull();
  });

  it('with a leader StatefulSet: its leader pods and its StatefulSets (by label), no fresh read', async () => {
    const lws = anLws();
    const revision = newRevision(lws, [], '');
    const leader = leaderStatefulSet(lws, 0, 2, 'k');
    const mine = [withKind(aPod(0, 0)), withKind(aPod(1, 0))];
    const worker = withKind(aPod(0, 1));
    const otherSet = withKind(aPod(0, 0, { extraLabels: { 'leaderworkerset.sigs.k8s.io/name': 'other' } }));
    otherSet.metadata!.name = 'other-0';
    const workers = [kinded(aWorkerSts(0), 'StatefulSet'), kinded(aWorkerSts(1), 'StatefulSet')];
    const foreignRevision = { ...revision, metadata: { ...revision.metadata, name: 'x', labels: {} } };
    const cluster = new FakeCluster([lws, leader, revision, foreignRevision, ...mine, worker, otherSet, ...workers]);
    const observed = await observeLeaderWorkerSet(cluster, lwsKey);
    expect(cluster.requests).toEqual([
      `GET LeaderWorkerSet ${LWS}`,
      `GET StatefulSet ${LWS}`,
      'LIST ControllerRevision',
      'LIST Pod',
      'LIST StatefulSet',
      `GET Service ${LWS}`,
    ]);
    expect(observed.revisions).toEqual([revision]);
    expect(observed.pods).toEqual(mine);
    expect(observed.statefulSets).toEqual([leader, ...workers]);
  });

  it('UniquePerReplica: no shared Service read', async () => {
    const lws = anLws({ spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } });
    const cluster = new FakeCluster([lws, leaderStatefulSet(lws, 0, 2, 'k')]);
    await observeLeaderWorkerSet(cluster, lwsKey);
    expect(cluster.requests).not.toContain(`GET Service ${LWS}`);
  });

  it('being deleted, or its leader StatefulSet being deleted: nothing more is read', async () => {
    const deleting = anLws();
    deleting.metadata.deletionTimestamp = '2026-03-10T10:00:00Z';
    const a = new FakeCluster([deleting]);
    await observeLeaderWorkerSet(a, lwsKey);
    expect(a.requests).toEqual([`GET LeaderWorkerSet ${LWS}`]);
    const lws = anLws();
    const leader = leaderStatefulSet(lws, 0, 2, 'k');
    leader.metadata!.deletionTimestamp = '2026-03-10T10:00:00Z';
    const b = new FakeCluster([lws, leader]);
    expect((await observeLeaderWorkerSet(b, lwsKey)).leaderStatefulSet).toEqual(leader);
    expect(b.requests).toEqual([`GET LeaderWorkerSet ${LWS}`, `GET StatefulSet ${LWS}`]);
  });
});

describe('observeLwsPod', () => {
  it('a leader pod without its worker StatefulSet: revisions, the StatefulSet, then the pod again, fresh', async () => {
    const lws = anLws({ size: 2 });
    const revision = newRevision(lws, [], 'k');
    const cluster = new FakeCluster([lws, revision, withKind(aPod(0, 0, { revision: 'k' }))]);
    await observeLwsPod(cluster, podKey(`${LWS}-0`));
    expect(cluster.requests).toEqual([
      `GET Pod ${LWS}-0`,
      `GET LeaderWorkerSet ${LWS}`,
      'LIST ControllerRevision',
      `GET StatefulSet ${LWS}-0`,
      `GET Pod ${LWS}-0 (fresh)`,
    ]);
  });

  it('the leader deleted since the cache saw it: nothing to create for', async () => {
    const lws = anLws({ size: 2 });
    const cluster = new FakeCluster([lws, newRevision(lws, [], 'k'), withKind(aPod(0, 0, { revision: 'k' }))]);
    cluster.fresh.set(`Pod/${LWS}-0`, null);
    expect(await observeLwsPod(cluster, podKey(`${LWS}-0`))).toMatchObject({ pod: null, lws: null });
  });

  it('a leader with its worker StatefulSet: no fresh read', async () => {
    const lws = anLws({ size: 2 });
    const sts = kinded(aWorkerSts(0), 'StatefulSet');
    const cluster = new FakeCluster([lws, newRevision(lws, [], 'k'), withKind(aPod(0, 0, { revision: 'k' })), sts]);
    const observed = await observeLwsPod(cluster, podKey(`${LWS}-0`));
    expect(observed.world.workerStatefulSetExists).toBe(true);
    expect(cluster.requests.some((r) => r.endsWith('(fresh)'))).toBe(false);
  });

  it('UniquePerReplica and exclusive placement: the group’s Service and the leader’s node', async () => {
    const lws = anLws({
      size: 2,
      annotations: { 'leaderworkerset.sigs.k8s.io/exclusive-topology': 'pool' },
      spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } },
    });
    const node: ApiObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { pool: 'a' } } };
    const cluster = new FakeCluster([lws, withKind(aPod(0, 0, { revision: 'k', nodeName: 'n1' })), node]);
    const observed = await observeLwsPod(cluster, podKey(`${LWS}-0`));
    expect(cluster.requests).toEqual([
      `GET Pod ${LWS}-0`,
      `GET LeaderWorkerSet ${LWS}`,
      `GET Service ${LWS}-0`,
      'LIST ControllerRevision',
      `GET StatefulSet ${LWS}-0`,
      'GET Node n1',
    ]);
    expect(observed.world.leaderNodeLabels).toEqual({ pool: 'a' });
  });

  it('a restarted worker: its group, its leader and the StatefulSet that controls it', async () => {
    const lws = anLws({ size: 2 });
    const worker = withKind(
      aPod(0, 1, {
        revision: 'k',
        restarts: 1,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: `${LWS}-0`, uid: 'u', controller: true }],
      }),
    );
    const leader = withKind(aPod(0, 0, { revision: 'k' }));
    const otherGroup = withKind(aPod(1, 0, { revision: 'k' }));
    const cluster = new FakeCluster([lws, worker, leader, otherGroup]);
    const observed = await observeLwsPod(cluster, podKey(`${LWS}-0-1`));
    expect(cluster.requests).toEqual([
      `GET Pod ${LWS}-0-1`,
      `GET LeaderWorkerSet ${LWS}`,
      'LIST Pod',
      `GET Pod ${LWS}-0`,
      `GET StatefulSet ${LWS}-0`,
    ]);
    expect(observed.world.groupPods).toEqual([worker, leader]);
    expect(observed.world.leader).toEqual(leader);
    expect(observed.world.ownerStatefulSet).toBeNull();
  });

  it('a pod without the labels a reconcile needs, or whose set is gone: nothing more is read', async () => {
    const unlabelled = withKind(aPod(0, 0));
    delete unlabelled.metadata!.labels!['leaderworkerset.sigs.k8s.io/worker-index'];
    const a = new FakeCluster([unlabelled]);
    await observeLwsPod(a, podKey(`${LWS}-0`));
    expect(a.requests).toEqual([`GET Pod ${LWS}-0`]);
    const b = new FakeCluster([withKind(aPod(0, 0))]);
    expect((await observeLwsPod(b, podKey(`${LWS}-0`))).lws).toBeNull();
    expect(b.requests).toEqual([`GET Pod ${LWS}-0`, `GET LeaderWorkerSet ${LWS}`]);
  });
});

/** A FakeCluster over a cache that kept some pods' deleted states (cache-entry.ts keepsState). */
class ClusterWithDeleted extends FakeCluster {
  constructor(
    objects: ApiObject[],
    private readonly deleted: Pod[],
  ) {
    super(objects);
  }

  async keptState<T extends ApiObject>(kind: string, _namespace: string, name: string): Promise<T | null> {
    this.requests.push(`DELETED ${kind} ${name}`);
    const found = this.deleted.find((p) => p.metadata?.name === name);
    return (kind === 'Pod' && found !== undefined ? JSON.parse(JSON.stringify(found)) : null) as T | null;
  }
}

describe('observeLwsPod: a pod deleted before its key was read', () => {
  // Group 0 of a set of size 3: its leader, the leader's worker StatefulSet, and worker 1 whose deletion the cache
  // saw complete (kwok removes a pod the moment it is marked) before the key was read.
  const lws = anLws({ size: 3 });
  const leader = withKind(aPod(0, 0, { revision: 'k' }));
  const stsOf = (leaderPod: Pod, uid: string): ApiObject => ({
    ...kinded(aWorkerSts(0, { replicas: 2 }), 'StatefulSet'),
    metadata: {
      ...aWorkerSts(0).metadata,
      uid,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          name: leaderPod.metadata!.name!,
          uid: leaderPod.metadata!.uid!,
          controller: true,
        },
      ],
    },
  });
  const workerOf = (n: number, o: { uid?: string; deleting?: boolean; sts?: string; phase?: string } = {}) =>
    withKind(
      aPod(0, n, {
        revision: 'k',
        ...(o.uid !== undefined && { uid: o.uid }),
        ...(o.phase !== undefined && { phase: o.phase }),
        deleting: o.deleting ?? false,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: `${LWS}-0`, uid: o.sts ?? 'sts-a', controller: true },
        ],
      }),
    );
  const deletedWorker = workerOf(1, { deleting: true });
  const key = podKey(`${LWS}-0-1`);

  it('gone from the cache: the pass is its deleted state’s, which recreates the group (upstream, had it seen it)', async () => {
    const cluster = new ClusterWithDeleted([lws, leader, stsOf(leader, 'sts-a'), workerOf(2)], [deletedWorker]);
    const observed = await observeLwsPod(cluster, key);
    expect(observed.pod).toEqual(deletedWorker);
    expect(planLwsPodActions(observed).actions).toEqual([
      expect.objectContaining({
        type: 'delete',
        target: { kind: 'Pod', namespace: NS, name: `${LWS}-0` },
        uid: leader.metadata!.uid,
        propagationPolicy: 'Foreground',
      }),
    ]);
    expect(cluster.requests).toEqual([
      `GET Pod ${LWS}-0-1`,
      `DELETED Pod ${LWS}-0-1`,
      `GET LeaderWorkerSet ${LWS}`,
      'LIST Pod',
      `GET Pod ${LWS}-0`,
      `GET StatefulSet ${LWS}-0`,
    ]);
  });

  it('already replaced by its StatefulSet (same name, another uid, Pending): judged in its group as it was', async () => {
    const replacement = workerOf(1, { uid: 'new', phase: 'Pending' });
    const cluster = new ClusterWithDeleted(
      [lws, leader, stsOf(leader, 'sts-a'), workerOf(2), replacement],
      [deletedWorker],
    );
    const observed = await observeLwsPod(cluster, key);
    expect(observed.pod).toEqual(deletedWorker);
    expect(observed.world.groupPods.map((p) => p.metadata?.uid).sort()).toEqual(
      [leader, workerOf(2), deletedWorker].map((p) => p.metadata?.uid).sort(),
    );
    expect(planLwsPodActions(observed).actions).toHaveLength(1);
  });

  it('the group already recreated (its worker StatefulSet another uid): nothing from the deleted state', async () => {
    const newLeader = withKind(aPod(0, 0, { revision: 'k', uid: 'leader-2' }));
    const replacement = workerOf(1, { uid: 'new', sts: 'sts-b' });
    const cluster = new ClusterWithDeleted(
      [lws, newLeader, stsOf(newLeader, 'sts-b'), workerOf(2, { sts: 'sts-b' }), replacement],
      [deletedWorker],
    );
    const observed = await observeLwsPod(cluster, key);
    expect(observed.pod).toEqual(replacement);
    expect(planLwsPodActions(observed).actions).toEqual([]);
  });

  it('the leader being deleted already (the group is being recreated): nothing from the deleted state', async () => {
    const deletingLeader = withKind(aPod(0, 0, { revision: 'k', deleting: true }));
    const cluster = new ClusterWithDeleted([lws, deletingLeader, stsOf(leader, 'sts-a')], [deletedWorker]);
    const observed = await observeLwsPod(cluster, key);
    expect(observed.pod).toBeNull();
    expect(planLwsPodActions(observed).actions).toEqual([]);
  });

  it('restartPolicy None: a deleted worker is its StatefulSet’s to replace', async () => {
    const none = anLws({ size: 3 });
    none.spec.leaderWorkerTemplate.restartPolicy = 'None';
    const cluster = new ClusterWithDeleted([none, leader, stsOf(leader, 'sts-a'), workerOf(2)], [deletedWorker]);
    expect(planLwsPodActions(await observeLwsPod(cluster, key)).actions).toEqual([]);
  });

  it('a deleted state of the pod now held (same uid) is not looked at again', async () => {
    const cluster = new ClusterWithDeleted([lws, leader, stsOf(leader, 'sts-a'), deletedWorker], [workerOf(1)]);
    const observed = await observeLwsPod(cluster, key);
    expect(observed.pod).toEqual(deletedWorker);
    expect(cluster.requests.filter((r) => r.startsWith('GET LeaderWorkerSet'))).toHaveLength(1);
  });
});
