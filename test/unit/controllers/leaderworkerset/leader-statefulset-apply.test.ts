// The leader StatefulSet's server-side apply (plan.ts): one `apply` action every pass, field manager "lws", forced,
// as upstream's SSAWithStatefulset; its configuration is upstream's applied object, and so is the body the writer
// sends (each upstream case of constructLeaderStatefulSetApplyConfiguration in fixtures/upstream-golden.json, as
// JSON on the wire). What the apiserver does with it (fields removed, other managers' kept, conflicts forced) is
// test/integration/server-side-apply.test.ts's.
import { describe, expect, it } from '@jest/globals';
import type { Action } from '../../../../shared/kube/actions.js';
import { APPLY_PATCH_CONTENT_TYPE, applyRequest, type ApplyAction } from '../../../../shared/kube/apply-request.js';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import { observeLeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/observe.js';
import { LWS_FIELD_MANAGER, planLeaderWorkerSetActions } from '../../../../shared/controllers/leaderworkerset/plan.js';
import {
  planLeaderWorkerSet,
  type ObservedLeaderWorkerSet,
} from '../../../../shared/controllers/leaderworkerset/reconcile.js';
import { newRevision, revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, aWorkerSts, LWS, NOW, NS } from './builders.js';
import { FakeCluster } from './fake-cluster.js';
import { expandLws, loadGolden } from './golden-cases.js';

const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function world(lws: LeaderWorkerSet, o: Partial<ObservedLeaderWorkerSet> = {}): ObservedLeaderWorkerSet {
  return { lws, leaderStatefulSet: null, revisions: [], pods: [], statefulSets: [], sharedServiceExists: true, ...o };
}

const applies = (actions: readonly Action[]): ApplyAction[] =>
  actions.filter((a): a is ApplyAction => a.type === 'apply');

/** A set of two ready groups on its own revision, its leader StatefulSet as applied, its status as written. */
function settled(lws: LeaderWorkerSet) {
  const r = newRevision(lws, [], '');
  const revision = { ...r, metadata: { ...r.metadata, uid: `uid-${r.metadata?.name}` } };
  const key = revisionKeyOf(revision);
  const leader: StatefulSet = {
    ...leaderStatefulSet(lws, 0, 2, key),
    status: { replicas: 2, readyReplicas: 2, availableReplicas: 2 },
  };
  const groups = {
    pods: [aPod(0, 0, { revision: key }), aPod(1, 0, { revision: key })],
    statefulSets: [aWorkerSts(0, { revision: key }), aWorkerSts(1, { revision: key })],
  };
  const observed = world(lws, { leaderStatefulSet: leader, revisions: [revision], ...groups });
  const status = planLeaderWorkerSet(observed, NOW).status;
  return { observed: { ...observed, lws: { ...lws, status: status ?? lws.status } }, key };
}

describe('the leader StatefulSet apply (plan.ts)', () => {
  it('a new set: applied (which creates it) with the configuration upstream applies, manager lws, forced', () => {
    const lws = anLws();
    const key = revisionKeyOf(newRevision(lws, [], ''));
    const [apply, ...more] = applies(planLeaderWorkerSetActions(world(lws), NOW).actions);
    expect(more).toEqual([]);
    expect(apply).toEqual({
      type: 'apply',
      target: { kind: 'StatefulSet', namespace: NS, name: LWS },
      configuration: leaderStatefulSet(lws, 0, 2, key),
      fieldManager: 'lws',
      force: true,
      reason: 'ApplyLeaderStatefulSet',
      events: {
        onSuccess: [expect.objectContaining({ reason: 'GroupsProgressing' })],
        onFailure: expect.objectContaining({ type: 'Warning', reason: 'FailedCreate' }),
      },
    });
    expect(LWS_FIELD_MANAGER).toBe('lws');
  });

  it('settled: applied again, the same configuration, no event (upstream applies every pass)', () => {
    const s = settled(anLws());
    const result = planLeaderWorkerSetActions(s.observed, NOW);
    expect(result.actions.map((a) => a.type)).toEqual(['apply']);
    expect(applies(result.actions)[0]).toMatchObject({
      configuration: leaderStatefulSet(s.observed.lws!, 0, 2, s.key),
      events: { onSuccess: [], onFailure: expect.objectContaining({ reason: 'FailedUpdate' }) },
    });
  });

  it('an exclusive-topology annotation dropped from the set: the configuration no longer has it, and the apply removes it', async () => {
    const exclusive = 'leaderworkerset.sigs.k8s.io/exclusive-topology';
    const cluster = new FakeCluster([anLws({ annotations: { [exclusive]: 'pool' } })]);
    const key = { cluster: 'c', kind: 'LeaderWorkerSet', namespace: NS, name: LWS };
    const pass = async () => {
      const result = planLeaderWorkerSetActions(await observeLeaderWorkerSet(cluster, key), NOW);
      cluster.apply(result.actions);
      return result;
    };
    await pass();
    const template = () => (cluster.find('StatefulSet', LWS) as StatefulSet).spec?.template;
    expect(template()?.metadata?.annotations?.[exclusive]).toBe('pool');
    const after = anLws();
    cluster.objects = cluster.objects.map((o) => (o.kind === 'LeaderWorkerSet' ? after : o));
    const [apply] = applies((await pass()).actions);
    expect(apply?.configuration).toEqual(leaderStatefulSet(after, 0, 2, revisionKeyOf(newRevision(after, [], ''))));
    expect(template()?.metadata?.annotations).toEqual({ 'leaderworkerset.sigs.k8s.io/size': '2' });
    expect(cluster.find('StatefulSet', LWS)?.metadata?.uid).toBe(`uid-${LWS}`);
  });
});

describe('the request the writer sends for upstream’s cases (constructLeaderStatefulSetApplyConfiguration)', () => {
  const cases = loadGolden().filter((c) => c.fn === 'leaderStatefulSet');

  it('covers every upstream case', () => expect(cases).toHaveLength(10));

  it.each(cases)('$name', (c) => {
    const configuration = leaderStatefulSet(expandLws(c.lws), c.partition ?? 0, c.replicas ?? 0, c.revisionKey ?? '');
    const request = applyRequest({
      type: 'apply',
      target: { kind: 'StatefulSet', namespace: 'default', name: 'test-sample' },
      configuration,
      fieldManager: LWS_FIELD_MANAGER,
      force: true,
      reason: 'ApplyLeaderStatefulSet',
    });
    expect({ ...request, body: wire(request.body) }).toEqual({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/default/statefulsets/test-sample',
      query: { fieldManager: 'lws', force: true },
      contentType: APPLY_PATCH_CONTENT_TYPE,
      body: c.want.object,
    });
  });
});
