// Both keys end to end against upstream's whole passes: each case of fixtures/reconcile-golden.json and
// fixtures/pod-reconcile-golden.json (upstream's reconcilers run once on a fake client) is put in a fake cluster,
// observed (observe.ts), planned as actions (plan.ts, pod-plan.ts) and the actions applied to the cluster; what it
// holds then, and the events, are compared with what upstream's pass left. Where fleetq continues at once
// (requeueAfter 0: revisions deleted in the pass after the status write; an error met after a Service create) the
// next pass runs too, as the runtime would (for the LeaderWorkerSet key only its revision deletes: what upstream did
// at the end of the same pass).
import { describe, expect, it } from '@jest/globals';
import { ReconcileError } from '../../../../shared/kube/errors.js';
import type { ResolvedEvent } from '../../../../shared/kube/events/types.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ControllerRevision, StatefulSet } from '../../../../shared/kube/api/objects.js';
import { observeLeaderWorkerSet, observeLwsPod } from '../../../../shared/controllers/leaderworkerset/observe.js';
import { planLeaderWorkerSetActions } from '../../../../shared/controllers/leaderworkerset/plan.js';
import { planLwsPodActions } from '../../../../shared/controllers/leaderworkerset/pod-plan.js';
import { newRevision, revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import { FakeCluster } from './fake-cluster.js';
import {
  compactStatus,
  expandLeaderSts,
  expandLws,
  expandPod,
  expandSts,
  loadGolden,
  type GoldenEvent,
} from './golden-cases.js';
import { NOW } from './builders.js';
import { createdFields, LABEL_PREFIX, leaderFields } from './golden-fields.js';

/** What a core/v1 Event keeps of upstream's events.k8s.io one. */
const core = (events: readonly GoldenEvent[]) => events.map(({ type, reason, note }) => ({ type, reason, note }));
const recorded = (events: readonly ResolvedEvent[]) =>
  events.map(({ type, reason, message }) => ({ type, reason, note: message }));

const names = (cluster: FakeCluster, kind: string) =>
  cluster.objects.filter((o) => o.kind === kind).map((o) => o.metadata?.name ?? '');

describe('LeaderWorkerSet key: observe, plan and apply, against upstream Reconcile', () => {
  it.each(loadGolden('reconcile-golden.json'))('$name', async (c) => {
    const lws = expandLws(c.lws);
    const revisions: ControllerRevision[] = (c.revisions ?? []).map(({ lws: variant, revision }) => {
      const cr = newRevision(expandLws(variant), [], '');
      const name = `${lws.metadata.name}-${revisionKeyOf(cr)}-${revision}`;
      return { ...cr, metadata: { ...cr.metadata, name, uid: `uid-${name}` }, revision };
    });
    const objects: ApiObject[] = [lws, ...revisions];
    let sts: StatefulSet | null = null;
    if (c.sts !== undefined) {
      sts = expandLeaderSts(c.sts);
      sts.metadata!.labels![`${LABEL_PREFIX}template-revision-hash`] = c.stsKey ?? '';
      objects.push(sts);
    }
    objects.push(...(c.pods ?? []).map(expandPod), ...(c.statefulSets ?? []).map(expandSts));
    if (c.serviceExists === true) {
      objects.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: lws.metadata.name, namespace: 'default' } });
    }
    const cluster = new FakeCluster(objects);
    const key = { cluster: 'c', kind: 'LeaderWorkerSet', namespace: 'default', name: lws.metadata.name ?? '' };

    const first = planLeaderWorkerSetActions(await observeLeaderWorkerSet(cluster, key), NOW);
    const events = cluster.apply(first.actions);
    const leaderAfter = leaderFields(cluster.find('StatefulSet', lws.metadata.name ?? '') as StatefulSet);
    let requeueAfter = first.requeueAfter;
    if (requeueAfter === 0) {
      // The revision deletes left to the next pass (the status was written): what upstream's pass did after it.
      const next = planLeaderWorkerSetActions(await observeLeaderWorkerSet(cluster, key), NOW);
      const deletes = next.actions.filter((a) => a.type === 'delete');
      expect(deletes.length).toBeGreaterThan(0);
      cluster.apply(deletes);
      requeueAfter = next.requeueAfter;
    }

    const want = c.want;
    expect(requeueAfter ?? 0).toBe(want.requeueAfterMs);
    expect(names(cluster, 'ControllerRevision').sort()).toEqual(want.revisions);
    expect(leaderAfter).toEqual(want.leaderStatefulSet);
    expect(names(cluster, 'Service').includes(lws.metadata.name ?? '')).toBe(want.serviceExists);
    if (sts === null) {
      expect(recorded(events)).toEqual(core(want.events).slice(0, events.length));
      expect(first.actions.some((a) => a.type === 'updateStatus')).toBe(false);
    } else {
      expect(recorded(events)).toEqual(core(want.events));
      const after = cluster.find('LeaderWorkerSet', lws.metadata.name ?? '') as LeaderWorkerSet;
      expect(compactStatus(after.status ?? {})).toEqual(want.status);
    }
  });
});

describe('LeaderWorkerSetPod key: observe, plan and apply, against upstream PodReconciler', () => {
  it.each(loadGolden('pod-reconcile-golden.json'))('$name', async (c) => {
    const lws = expandLws(c.lws);
    lws.spec.startupPolicy = c.startup;
    const pods = (c.pods ?? []).map(expandPod);
    const target = expandPod(c.target!).metadata?.name ?? '';
    const revisions: ControllerRevision[] = (c.revisionKeys ?? []).map((k, i) => {
      const cr = newRevision(lws, [], k);
      return { ...cr, metadata: { ...cr.metadata, name: `${lws.metadata.name}-${k}-${i + 1}` }, revision: i + 1 };
    });
    const services: ApiObject[] = (c.services ?? []).map((name) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
    }));
    const nodes: ApiObject[] =
      c.nodeLabels === undefined || c.nodeLabels === null
        ? []
        : [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: c.nodeLabels } }];
    const statefulSets = (c.statefulSets ?? []).map(expandSts);
    const cluster = new FakeCluster([lws, ...pods, ...statefulSets, ...revisions, ...services, ...nodes]);
    const key = { cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: 'default', name: target };

    const events: ResolvedEvent[] = [];
    let requeueAfterMs = 0;
    let error: string | undefined;
    for (let pass = 0; pass < 3; pass++) {
      let result: PlanResult;
      try {
        result = planLwsPodActions(await observeLwsPod(cluster, key));
      } catch (err) {
        expect(err).toBeInstanceOf(ReconcileError);
        error = (err as Error).message;
        break;
      }
      events.push(...cluster.apply(result.actions));
      requeueAfterMs = result.requeueAfter ?? 0;
      if (result.requeueAfter !== 0) break;
    }

    const stsAfter = Object.fromEntries(
      cluster.objects
        .filter((o): o is StatefulSet => o.kind === 'StatefulSet')
        .map((s) => [s.metadata?.name ?? '', statefulSets.includes(s) ? 'existing' : createdFields(s)]),
    );
    expect(names(cluster, 'Pod').sort()).toEqual(c.want.pods);
    expect(names(cluster, 'Service').sort()).toEqual(c.want.services);
    expect(stsAfter).toEqual(c.want.statefulSets);
    expect(recorded(events)).toEqual(core(c.want.events));
    expect(requeueAfterMs).toBe(c.want.requeueAfterMs);
    if (c.want.error === undefined) expect(error).toBeUndefined();
    else expect(error).toContain(c.want.error);
  });
});
