// Rolling updates end to end on a simulated cluster: each tick runs a LeaderWorkerSet pass (planLeaderWorkerSet),
// a crude StatefulSet controller for the leader StatefulSet (creates missing leaders, deletes surplus ones, replaces
// old leaders at or above the partition within its maxUnavailable), a pod pass per leader without workers
// (planLwsPod), and then readiness: what existed before the tick becomes ready. Mid-update a group below the
// partition is recreated (what its restart policy does). Checked: a group's workers always run
// its leader's revision (never mixed), ready groups (surge ones count) never fall below replicas - maxUnavailable,
// and the update
// converges to every group on the new revision, partition 0, replicas back to spec, the old revisions deleted and
// the set Available. Each scenario runs twice: with the LeaderWorkerSet pass's plan taken as it is, and through
// fleetq's own path (observe.ts reading a fake cluster, plan.ts's actions applied to it: the leader StatefulSet's
// server-side apply, the revision deletes left to the pass after a status write).
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, Pod, StatefulSet } from '../../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { observeLeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/observe.js';
import { planLeaderWorkerSetActions } from '../../../../shared/controllers/leaderworkerset/plan.js';
import { planLwsPod } from '../../../../shared/controllers/leaderworkerset/pod-reconcile.js';
import { planLeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/reconcile.js';
import { revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, aWorkerSts, NOW } from './builders.js';
import { FakeCluster } from './fake-cluster.js';

const KEY = 'leaderworkerset.sigs.k8s.io/template-revision-hash';

type Member = { key: string; ready: boolean; born: number };

class Cluster {
  leader: StatefulSet | null = null;
  /** The leader StatefulSet's current revision: what leaders below the partition are created with. */
  currentKey = '';
  revisions: ControllerRevision[] = [];
  readonly leaders = new Map<number, Member>();
  readonly workers = new Map<number, Member>();
  serviceExists = false;
  tick = 0;

  constructor(
    public lws: LeaderWorkerSet,
    private readonly throughActions = false,
  ) {}

  private pods(): Pod[] {
    return [...this.leaders].map(([g, m]) =>
      aPod(g, 0, { revision: m.key, ready: m.ready, uid: `uid-${g}-${m.born}` }),
    );
  }

  private workerSets(): StatefulSet[] {
    const size = this.lws.spec.leaderWorkerTemplate.size ?? 1;
    return [...this.workers].map(([g, m]) => aWorkerSts(g, { revision: m.key, ready: m.ready, replicas: size - 1 }));
  }

  /** The LeaderWorkerSet key as fleetq runs it: observe, plan.ts's actions, the writes applied; again at once if asked. */
  async lwsActionsPass(): Promise<void> {
    const kinded = (kind: string) => (o: ApiObject) => ({ ...o, kind });
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: this.lws.metadata.name } };
    const fake = new FakeCluster([
      this.lws,
      ...(this.leader === null ? [] : [this.leader]),
      ...this.revisions,
      ...this.pods().map(kinded('Pod')),
      ...this.workerSets().map(kinded('StatefulSet')),
      ...(this.serviceExists ? [service] : []),
    ]);
    const key = { cluster: 'c', kind: 'LeaderWorkerSet', namespace: 'default', name: this.lws.metadata.name ?? '' };
    for (let pass = 0; pass < 3; pass++) {
      const result = planLeaderWorkerSetActions(await observeLeaderWorkerSet(fake, key), NOW);
      fake.apply(result.actions);
      if (result.requeueAfter !== 0) break;
    }
    const leader = fake.find('StatefulSet', this.lws.metadata.name ?? '') as StatefulSet;
    if (this.leader === null) this.currentKey = leader.metadata?.labels?.[KEY] ?? '';
    this.leader = { ...leader, status: { replicas: this.leaders.size } };
    this.revisions = fake.objects.filter((o): o is ControllerRevision => o.kind === 'ControllerRevision');
    this.serviceExists = fake.find('Service', this.lws.metadata.name ?? '') !== undefined;
    this.lws = fake.find('LeaderWorkerSet', this.lws.metadata.name ?? '') as LeaderWorkerSet;
  }

  lwsPass(): void {
    const plan = planLeaderWorkerSet(
      {
        lws: this.lws,
        leaderStatefulSet: this.leader,
        revisions: this.revisions,
        pods: this.pods(),
        statefulSets: this.workerSets(),
        sharedServiceExists: this.serviceExists,
      },
      NOW,
    );
    this.revisions = [...this.revisions, ...plan.createRevisions.map((r) => r.object)];
    const applied = plan.applyLeaderStatefulSet!.object;
    if (this.leader === null) this.currentKey = applied.metadata?.labels?.[KEY] ?? '';
    this.leader = { ...applied, status: { replicas: this.leaders.size } };
    if (plan.createService !== undefined) this.serviceExists = true;
    if (plan.status !== undefined) this.lws = { ...this.lws, status: plan.status };
    const gone = new Set(plan.deleteRevisions.map((r) => r.metadata?.name));
    this.revisions = this.revisions.filter((r) => !gone.has(r.metadata?.name));
  }

  private recreateLeader(g: number, key: string): void {
    this.leaders.set(g, { key, ready: false, born: this.tick });
    this.workers.delete(g); // owned by the old leader pod: the garbage collector takes it
  }

  statefulSetPass(): void {
    const spec = this.leader!.spec!;
    const replicas = spec.replicas ?? 0;
    const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    const maxUnavailable = Number(spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1);
    const updateKey = this.leader!.metadata?.labels?.[KEY] ?? '';
    for (const g of [...this.leaders.keys()]) {
      if (g >= replicas) {
        this.leaders.delete(g);
        this.workers.delete(g);
      }
    }
    for (let g = 0; g < replicas; g++) {
      if (!this.leaders.has(g)) this.recreateLeader(g, g >= partition ? updateKey : this.currentKey);
    }
    let unavailable = [...this.leaders.values()].filter((m) => !m.ready).length;
    for (let g = replicas - 1; g >= partition && unavailable < maxUnavailable; g--) {
      if (this.leaders.get(g)!.key !== updateKey) {
        this.recreateLeader(g, updateKey);
        unavailable++;
      }
    }
    const done = [...this.leaders].every(([, m]) => m.key === updateKey && m.ready);
    if (partition === 0 && done) this.currentKey = updateKey;
    this.leader = { ...this.leader!, status: { replicas: this.leaders.size } };
  }

  podPasses(): void {
    for (const pod of this.pods()) {
      const g = Number(pod.metadata?.labels?.['leaderworkerset.sigs.k8s.io/group-index']);
      const plan = planLwsPod(pod, this.lws, {
        groupPods: [pod],
        revisions: this.revisions,
        groupServiceExists: true,
        workerStatefulSetExists: this.workers.has(g),
      });
      if (plan.kind !== 'leader') continue;
      const created = plan.plan.createWorkerStatefulSet?.object;
      if (created === undefined) continue;
      const key = created.metadata?.labels?.[KEY] ?? '';
      // The worker template must be the leader revision's: its image says which template it came from.
      const revision = this.revisions.find((r) => revisionKeyOf(r) === key)!;
      const data = revision.data as {
        spec: { leaderWorkerTemplate: { workerTemplate: { spec: { containers: { image: string }[] } } } };
      };
      expect(created.spec?.template.spec?.containers[0]?.image).toBe(
        data.spec.leaderWorkerTemplate.workerTemplate.spec.containers[0]?.image,
      );
      this.workers.set(g, { key, ready: false, born: this.tick });
    }
  }

  ripen(): void {
    for (const m of [...this.leaders.values(), ...this.workers.values()]) if (m.born < this.tick) m.ready = true;
  }

  async step(): Promise<void> {
    this.tick++;
    if (this.throughActions) await this.lwsActionsPass();
    else this.lwsPass();
    this.statefulSetPass();
    this.podPasses();
    this.ripen();
  }

  /** Groups whose leader and workers are ready: below `limit` (default: all of them, surge groups included). */
  readyGroups(limit = Infinity): number {
    const size = this.lws.spec.leaderWorkerTemplate.size ?? 1;
    let n = 0;
    for (const g of this.leaders.keys()) {
      if (g >= limit) continue;
      const leader = this.leaders.get(g);
      const workers = this.workers.get(g);
      if (leader?.ready === true && (size === 1 || workers?.ready === true)) n++;
    }
    return n;
  }

  settled(key: string): boolean {
    const replicas = this.lws.spec.replicas ?? 1;
    const status = this.lws.status;
    return (
      this.readyGroups(replicas) === replicas &&
      this.leaders.size === replicas &&
      [...this.leaders.values()].every((m) => m.key === key) &&
      (this.leader?.spec?.updateStrategy?.rollingUpdate?.partition ?? -1) === 0 &&
      this.leader?.spec?.replicas === replicas &&
      this.revisions.length === 1 &&
      status?.conditions?.find((c) => c.type === 'Available')?.status === 'True' &&
      status.updatedReplicas === replicas
    );
  }
}

function withImage(lws: LeaderWorkerSet, image: string): LeaderWorkerSet {
  const copy = JSON.parse(JSON.stringify(lws)) as LeaderWorkerSet;
  copy.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = image;
  copy.metadata.generation = (copy.metadata.generation ?? 1) + 1;
  return copy;
}

async function runUntilSettled(cluster: Cluster, check: () => void): Promise<string> {
  for (let i = 0; i < 200; i++) {
    await cluster.step();
    check();
    const key = cluster.leader?.metadata?.labels?.[KEY] ?? '';
    if (cluster.settled(key)) return key;
  }
  throw new Error(
    `did not settle: ${JSON.stringify({ leaders: [...cluster.leaders], workers: [...cluster.workers] })}`,
  );
}

const SETTINGS = [
  { replicas: 4, size: 3, maxUnavailable: 1, maxSurge: 0 },
  { replicas: 5, size: 2, maxUnavailable: 2, maxSurge: 0 },
  { replicas: 4, size: 3, maxUnavailable: 1, maxSurge: 1 },
  { replicas: 3, size: 1, maxUnavailable: 0, maxSurge: 2 },
  { replicas: 6, size: 2, maxUnavailable: '50%', maxSurge: '50%' },
];

describe('rolling update, simulated', () => {
  it.each([
    ...SETTINGS.map((o) => ({ ...o, via: 'reconcile.ts' })),
    ...SETTINGS.map((o) => ({ ...o, via: 'observe and actions' })),
  ])('$via: replicas $replicas, size $size, maxUnavailable $maxUnavailable, maxSurge $maxSurge', async (o) => {
    const cluster = new Cluster(
      anLws({ replicas: o.replicas, size: o.size, maxUnavailable: o.maxUnavailable, maxSurge: o.maxSurge }),
      o.via !== 'reconcile.ts',
    );
    const neverMixed = () => {
      for (const [g, w] of cluster.workers) expect([g, w.key]).toEqual([g, cluster.leaders.get(g)?.key]);
    };
    const firstKey = await runUntilSettled(cluster, neverMixed);

    cluster.lws = withImage(cluster.lws, 'v2');
    // Mid-update, group 0 (below the partition, still on the old revision) is recreated, as its restart policy
    // does: its new leader gets the old revision again, and so must its new workers.
    await cluster.step();
    cluster.leaders.delete(0);
    cluster.workers.delete(0);
    const budget = typeof o.maxUnavailable === 'number' ? o.maxUnavailable : Math.floor((o.replicas * 50) / 100);
    const newKey = await runUntilSettled(cluster, () => {
      neverMixed();
      // The recreated group is the one disruption allowed beyond the budget.
      expect(cluster.readyGroups()).toBeGreaterThanOrEqual(o.replicas - budget - 1);
    });
    expect(newKey).not.toBe(firstKey);
    expect(cluster.revisions.map(revisionKeyOf)).toEqual([newKey]);
  });
});
