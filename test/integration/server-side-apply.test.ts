// The writer's server-side apply against a real kube-apiserver, with the apply LeaderWorkerSet's planner sends for
// its leader StatefulSet (plan.ts: field manager "lws", forced). One fleetq-mode sandbox cluster of the test's own
// (its own root and name, LeaderWorkerSet's CRD installed; nothing reconciles StatefulSets or LeaderWorkerSets there):
//   - the apply creates the StatefulSet, owned by "lws" (an Apply entry); the same configuration again writes nothing
//   - a field the configuration no longer sets is removed (a strategic merge patch of the configuration leaves it)
//   - fields another manager set are kept, in the template too (the stand-in's template replace dropped them)
//   - a field another manager took: 409 Conflict unless forced; forced, lws takes it back
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { LWS_CRD } from '../../infra/sandbox/lws-controller.js';
import { planLeaderWorkerSetActions } from '../../shared/controllers/leaderworkerset/plan.js';
import type { LeaderWorkerSet } from '../../shared/controllers/leaderworkerset/types.js';
import type { Action } from '../../shared/kube/actions.js';
import type { StatefulSet } from '../../shared/kube/api/objects.js';
import type { ApplyAction } from '../../shared/kube/apply-request.js';
import { ApiError } from '../../shared/kube/errors.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { applyActions, type Fence } from '../../shared/kube/writer.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-ssa';
const NAMESPACE = 'ssa-test';
const EXCLUSIVE = 'leaderworkerset.sigs.k8s.io/exclusive-topology';
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const held: Fence = { held: () => true, confirm: async () => true };

type ManagedFields = Array<{ manager: string; operation: string; fieldsV1?: Record<string, unknown> }>;
type ServerStatefulSet = StatefulSet & { metadata: { managedFields?: ManagedFields; resourceVersion?: string } };

describe('server-side apply (real apiserver)', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-ssa-'));
  let kc: KubeConfig;
  let rest: KubeRest;

  beforeAll(async () => {
    ({ kc } = await upOneCluster({
      spec: { name: CLUSTER, mode: SandboxMode.Fleetq },
      root,
      kinds: [{ kind: 'LeaderWorkerSet', crds: [LWS_CRD] }],
      namespace: NAMESPACE,
    }));
    rest = new KubeRest(CLUSTER, kc, new TokenBucket(100, 100));
  }, 15 * 60_000);

  afterAll(() => downAndRemove(root));

  const stsPath = (name: string) => `/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets/${name}`;
  const getSts = (name: string) => rest.request<ServerStatefulSet>('GET', stsPath(name));

  /** A LeaderWorkerSet as the API stores it (its uid, the CRD's defaults): two groups of two on kwok nodes. */
  async function createLws(name: string, annotations: Record<string, string> = {}): Promise<LeaderWorkerSet> {
    const body = {
      apiVersion: 'leaderworkerset.x-k8s.io/v1',
      kind: 'LeaderWorkerSet',
      metadata: { name, namespace: NAMESPACE, annotations },
      spec: {
        replicas: 2,
        leaderWorkerTemplate: {
          size: 2,
          restartPolicy: 'RecreateGroupOnPodRestart',
          workerTemplate: kwokPodTemplate({ app: name }),
        },
        rolloutStrategy: {
          type: 'RollingUpdate',
          rollingUpdateConfiguration: { partition: 0, maxUnavailable: 1, maxSurge: 0 },
        },
        startupPolicy: 'LeaderCreated',
        networkConfig: { subdomainPolicy: 'Shared' },
      },
    };
    return rest.request<LeaderWorkerSet>(
      'POST',
      `/apis/leaderworkerset.x-k8s.io/v1/namespaces/${NAMESPACE}/leaderworkersets`,
      {
        body,
      },
    );
  }

  /** The leader StatefulSet's apply as plan.ts plans it for `lws` and the StatefulSet observed (null: none). */
  function planned(lws: LeaderWorkerSet, observed: StatefulSet | null): ApplyAction {
    const { actions } = planLeaderWorkerSetActions(
      { lws, leaderStatefulSet: observed, revisions: [], pods: [], statefulSets: [], sharedServiceExists: true },
      new Date(),
    );
    const applies = actions.filter((a: Action): a is ApplyAction => a.type === 'apply');
    expect(applies).toHaveLength(1);
    return applies[0]!;
  }

  const send = (action: Action) => applyActions(rest, [action], held);
  const managers = (sts: ServerStatefulSet) =>
    (sts.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`).sort();
  const ownsReplicas = (sts: ServerStatefulSet, manager: string) =>
    (sts.metadata.managedFields ?? []).some(
      (m) => m.manager === manager && 'f:replicas' in ((m.fieldsV1?.['f:spec'] as object | undefined) ?? {}),
    );

  it('creates the leader StatefulSet under manager lws; the same configuration again writes nothing', async () => {
    const lws = await createLws('create');
    const action = planned(lws, null);
    expect(action).toMatchObject({ fieldManager: 'lws', force: true, target: { name: 'create' } });
    await expect(send(action)).resolves.toMatchObject({ updated: 1 });

    const sts = await getSts('create');
    const want = action.configuration as StatefulSet;
    expect(sts.metadata.labels).toEqual(want.metadata?.labels);
    expect(sts.metadata.annotations).toEqual(want.metadata?.annotations);
    expect(sts.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'leaderworkerset.x-k8s.io/v1',
        kind: 'LeaderWorkerSet',
        name: 'create',
        uid: lws.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(sts.spec?.replicas).toBe(2);
    expect(sts.spec?.template.metadata?.labels).toEqual(want.spec?.template.metadata?.labels);
    expect(sts.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { partition: 0, maxUnavailable: 1 },
    });
    expect(managers(sts)).toEqual(['lws/Apply']);

    await send(planned(lws, sts));
    expect((await getSts('create')).metadata.resourceVersion).toBe(sts.metadata.resourceVersion);
  });

  it('a field the configuration no longer sets is removed; a strategic merge patch of the configuration leaves it', async () => {
    const before = await createLws('removed', { [EXCLUSIVE]: 'pool' });
    await send(planned(before, null));
    const sts = await getSts('removed');
    expect(sts.spec?.template.metadata?.annotations?.[EXCLUSIVE]).toBe('pool');

    const { [EXCLUSIVE]: _dropped, ...rest0 } = before.metadata.annotations ?? {};
    const after: LeaderWorkerSet = { ...before, metadata: { ...before.metadata, annotations: rest0 } };
    const apply = planned(after, sts);
    expect((apply.configuration as StatefulSet).spec?.template.metadata?.annotations).toEqual({
      'leaderworkerset.sigs.k8s.io/size': '2',
    });

    // What a strategic merge patch of the same fields does: the annotation stays.
    await rest.request('PATCH', stsPath('removed'), {
      body: { spec: { template: { metadata: (apply.configuration as StatefulSet).spec?.template.metadata } } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect((await getSts('removed')).spec?.template.metadata?.annotations?.[EXCLUSIVE]).toBe('pool');

    await send(apply);
    expect((await getSts('removed')).spec?.template.metadata?.annotations).toEqual({
      'leaderworkerset.sigs.k8s.io/size': '2',
    });
  });

  it('fields another manager set are kept, in the template too (kubectl rollout restart’s annotation)', async () => {
    const lws = await createLws('shared');
    await send(planned(lws, null));
    const restartedAt = '2026-03-10T10:00:00Z';
    await rest.request('PATCH', stsPath('shared'), {
      body: {
        metadata: { labels: { team: 'a' } },
        spec: { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } },
      },
      contentType: 'application/strategic-merge-patch+json',
      query: { fieldManager: 'kubectl-rollout' },
    });

    const scaled: LeaderWorkerSet = { ...lws, spec: { ...lws.spec, replicas: 3 } };
    await send(planned(scaled, await getSts('shared')));
    const sts = await getSts('shared');
    expect(sts.spec?.replicas).toBe(3);
    expect(sts.metadata.annotations?.['leaderworkerset.sigs.k8s.io/replicas']).toBe('3');
    expect(sts.metadata.labels?.team).toBe('a');
    expect(sts.spec?.template.metadata?.annotations?.[RESTARTED_AT]).toBe(restartedAt);
    expect(managers(sts)).toEqual(['kubectl-rollout/Update', 'lws/Apply']);

    // The stand-in's patch replaced the template whole: the annotation went.
    await rest.request('PATCH', stsPath('shared'), {
      body: {
        spec: {
          template: { ...(planned(scaled, sts).configuration as StatefulSet).spec?.template, $patch: 'replace' },
        },
      },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect((await getSts('shared')).spec?.template.metadata?.annotations?.[RESTARTED_AT]).toBeUndefined();
  });

  it('a field another manager took is a 409 Conflict unless forced; forced, lws takes it back', async () => {
    const lws = await createLws('conflict');
    await send(planned(lws, null));
    await rest.request('PATCH', stsPath('conflict'), {
      body: { spec: { replicas: 5 } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'scaler' },
    });
    const taken = await getSts('conflict');
    expect(ownsReplicas(taken, 'scaler')).toBe(true);
    expect(ownsReplicas(taken, 'lws')).toBe(false);

    const forced = planned(lws, taken);
    const refused = await send({ ...forced, force: false }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 409 });
    expect((refused as ApiError).body).toContain('.spec.replicas');
    expect((await getSts('conflict')).spec?.replicas).toBe(5);

    await send(forced);
    const back = await getSts('conflict');
    expect(back.spec?.replicas).toBe(2);
    expect(ownsReplicas(back, 'lws')).toBe(true);
    expect(ownsReplicas(back, 'scaler')).toBe(false);
  });
});
