// The ReplicaSet preflight guard with a fake ClusterView: the fake holds the cluster's truth, while the
// observed state handed to the planner may undercount it (what a list that stopped after one page did).
import { describe, expect, it } from '@jest/globals';
import type { KubernetesObject, Pod } from '../../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { replicaSetController } from '../../../../shared/controllers/replicaset/index.js';
import { planReplicaSet } from '../../../../shared/controllers/replicaset/plan.js';
import { breaksBound, guardCounts } from '../../../../shared/controllers/replicaset/guard.js';
import type { Deployment } from '../../../../shared/controllers/deployment/types.js';
import { GuardRefusedError, ReconcileError } from '../../../../shared/kube/errors.js';
import type { ClusterView, ListOptions } from '../../../../shared/kube/view.js';
import { NOW, NS, RS_NAME, aPod, aReplicaSet, observed, readyPods } from './builders.js';

const key = { cluster: 'c', kind: 'ReplicaSet', namespace: NS, name: RS_NAME };
const preflight = replicaSetController.preflight!;

/** The cluster as it is; `counter` gives it the live view's separate counting read. */
class TruthView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  countControlled?: ClusterView['countControlled'];

  constructor(
    private readonly objects: KubernetesObject[],
    counter = true,
  ) {
    if (counter) {
      this.countControlled = async <T extends ApiObject>(
        kind: string,
        namespace: string,
        uid: string,
        accept: (o: T) => boolean = () => true,
      ): Promise<number> => {
        this.requests.push(`COUNT ${kind}`);
        return this.objects.filter(
          (o) =>
            o.kind === kind &&
            o.metadata?.namespace === namespace &&
            o.metadata?.ownerReferences?.find((r) => r.controller)?.uid === uid &&
            accept(o as T),
        ).length;
      };
    }
  }

  async get<T extends ApiObject>(kind: string, namespace: string, name: string): Promise<T | null> {
    this.requests.push(`GET ${kind}`);
    const hit = this.objects.find(
      (o) => o.kind === kind && o.metadata?.namespace === namespace && o.metadata?.name === name,
    );
    return (hit as T | undefined) ?? null;
  }

  async list<T extends ApiObject>(kind: string, namespace: string | undefined, _o?: ListOptions): Promise<T[]> {
    this.requests.push(`LIST ${kind}`);
    return this.objects.filter((x) => x.kind === kind && x.metadata?.namespace === namespace) as T[];
  }
}

function aDeployment(o: { uid?: string; replicas: number; maxSurge?: number | string; recreate?: boolean }) {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'dep', namespace: NS, uid: o.uid ?? 'uid-dep' },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } },
      strategy: o.recreate
        ? { type: 'Recreate' }
        : { type: 'RollingUpdate', rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: '25%' } },
    },
  };
  return d as unknown as KubernetesObject;
}

/** The guard's outcome for a pass planned from `seen` pods while the cluster holds `truth`. */
async function guard(rs: ReturnType<typeof aReplicaSet>, seen: Pod[], truth: KubernetesObject[], counter = true) {
  const view = new TruthView([rs, ...truth], counter);
  const o = observed(rs, seen);
  const result = planReplicaSet(o, NOW);
  const error = await preflight(view, key, o, result).then(
    () => null,
    (e: unknown) => e,
  );
  return { view, result, error };
}

describe('ReplicaSet preflight guard', () => {
  it('refuses creates when a fresh count shows the pods exist (observe saw a truncated list)', async () => {
    const rs = aReplicaSet({ replicas: 3 });
    const { result, error } = await guard(rs, [], readyPods(3));
    expect(result.actions.filter((a) => a.type === 'create')).toHaveLength(3);
    expect(error).toBeInstanceOf(GuardRefusedError);
    const e = error as GuardRefusedError;
    expect(e).toBeInstanceOf(ReconcileError);
    expect(e.code).toBe('GuardRefused');
    expect(e.retryable).toBe(true);
    expect(e.fields).toEqual({ live: 3, creates: 3, replicas: 3, maxSurge: 0, bound: 3, observedPods: 0 });
    expect(e.message).toBe('guard: 3 active pods + 3 creates would pass replicas 3 + maxSurge 0');
  });

  it('lets a pass through when the fresh count agrees with what observe saw', async () => {
    const rs = aReplicaSet({ replicas: 5 });
    const pods = readyPods(2);
    const { result, error, view } = await guard(rs, pods, pods);
    expect(result.actions.filter((a) => a.type === 'create')).toHaveLength(3);
    expect(error).toBeNull();
    expect(view.requests).toEqual(['COUNT Pod']);
  });

  it('counts only active pods the ReplicaSet controls: not terminating, failed, succeeded, orphans or others', async () => {
    const rs = aReplicaSet({ replicas: 3 });
    const truth = [
      aPod('deleting', { deleting: true, readyFor: 60 }),
      aPod('failed', { phase: 'Failed' }),
      aPod('succeeded', { phase: 'Succeeded' }),
      aPod('orphan', { owner: 'none', labels: { app: 'other' } }),
      aPod('foreign', { owner: 'uid-other' }),
    ];
    const { error } = await guard(rs, [], truth);
    expect(error).toBeNull();
  });

  it.each([
    // bound = the ReplicaSet's replicas + the Deployment's maxSurge; each pass below creates 1 pod
    { name: '25% of 10 → 3: 12 live + 1 fit 10 + 3', deployment: { replicas: 10 }, rsReplicas: 10, live: 12, ok: true },
    {
      name: '25% of 10 → 3: 13 live + 1 break 10 + 3',
      deployment: { replicas: 10 },
      rsReplicas: 10,
      live: 13,
      ok: false,
    },
    // resolved against the Deployment's replicas (5 → ceil 1.25 = 2), not the ReplicaSet's (4 → 1)
    { name: '25% of 5 rounds up to 2: 5 + 1 fit 4 + 2', deployment: { replicas: 5 }, rsReplicas: 4, live: 5, ok: true },
    { name: '25% of 5 rounds up to 2: 6 + 1 break', deployment: { replicas: 5 }, rsReplicas: 4, live: 6, ok: false },
    { name: 'maxSurge 1: 4 + 1 fit 4 + 1', deployment: { replicas: 5, maxSurge: 1 }, rsReplicas: 4, live: 4, ok: true },
    { name: 'maxSurge 1: 5 + 1 break', deployment: { replicas: 5, maxSurge: 1 }, rsReplicas: 4, live: 5, ok: false },
    { name: 'Recreate: no surge', deployment: { replicas: 5, recreate: true }, rsReplicas: 4, live: 4, ok: false },
    {
      name: 'owner replaced (other uid): no surge',
      deployment: { replicas: 5, uid: 'uid-new' },
      rsReplicas: 4,
      live: 4,
      ok: false,
    },
  ])('Deployment owner: $name', async ({ deployment, rsReplicas, live, ok }) => {
    const rs = aReplicaSet({ replicas: rsReplicas, controlledBy: 'uid-dep' });
    // observe saw one pod fewer than the ReplicaSet wants, so the plan creates one... or more when it saw none
    const seen = readyPods(rsReplicas - 1);
    const truth = [aDeployment(deployment), ...readyPods(live, 'live')];
    const { error, result } = await guard(rs, seen, truth);
    expect(result.actions.filter((a) => a.type === 'create')).toHaveLength(1);
    if (ok) expect(error).toBeNull();
    else expect(error).toBeInstanceOf(GuardRefusedError);
  });

  it('a Deployment owner that is gone gives no surge', async () => {
    const rs = aReplicaSet({ replicas: 2, controlledBy: 'uid-dep' });
    const { error, view } = await guard(rs, readyPods(1), readyPods(2, 'live'));
    expect(error).toBeInstanceOf(GuardRefusedError);
    expect((error as GuardRefusedError).fields).toMatchObject({ live: 2, creates: 1, bound: 2, maxSurge: 0 });
    expect([...view.requests].sort()).toEqual(['COUNT Pod', 'GET Deployment']);
  });

  it('a view without its own counter is counted through a full list', async () => {
    const rs = aReplicaSet({ replicas: 3 });
    const { error, view } = await guard(rs, [], readyPods(3), false);
    expect(error).toBeInstanceOf(GuardRefusedError);
    expect(view.requests).toEqual(['LIST Pod']);
  });

  it.each([
    { name: 'steady state', replicas: 2, seen: 2 },
    { name: 'scale-down (deletes only)', replicas: 1, seen: 3 },
  ])('reads nothing for a pass without creates: $name', async ({ replicas, seen }) => {
    const rs = aReplicaSet({ replicas });
    const pods = readyPods(seen);
    const { error, view } = await guard(rs, pods, [...pods, ...readyPods(10, 'extra')]);
    expect(error).toBeNull();
    expect(view.requests).toEqual([]);
  });

  it('guardCounts/breaksBound: the bound is replicas + maxSurge, inclusive', () => {
    const rs = aReplicaSet({ replicas: 4 });
    expect(guardCounts(rs, null, 2, 2)).toEqual({ live: 2, creates: 2, replicas: 4, maxSurge: 0, bound: 4 });
    expect(breaksBound(guardCounts(rs, null, 2, 2))).toBe(false);
    expect(breaksBound(guardCounts(rs, null, 3, 2))).toBe(true);
  });
});
