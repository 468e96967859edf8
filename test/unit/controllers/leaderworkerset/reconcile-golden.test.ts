// Whole reconcile passes against upstream's: fixtures/reconcile-golden.json runs LeaderWorkerSetReconciler.Reconcile
// once per case on a fake client (server-side apply included); here planLeaderWorkerSet's plan is applied to the
// same world and the outcomes compared: the revisions left, the leader StatefulSet's lws-owned fields, the shared
// Service, the status and the events in upstream's order. On a pass that creates the leader StatefulSet, upstream's
// fake client shows it at once and the status is written in the same pass; fleetq leaves that to the next pass
// (the new StatefulSet's event), so only what comes before is compared there.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, StatefulSet } from '../../../../shared/kube/api/objects.js';
import { planLeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/reconcile.js';
import { newRevision, revisionKeyOf } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { compactStatus, expandLeaderSts, expandLws, expandPod, expandSts, loadGolden } from './golden-cases.js';
import { NOW } from './builders.js';
import { LABEL_PREFIX, leaderFields, recordedEvents } from './golden-fields.js';

describe('Reconcile, one pass (upstream LeaderWorkerSetReconciler)', () => {
  it.each(loadGolden('reconcile-golden.json'))('$name', (c) => {
    const lws = expandLws(c.lws);
    const revisions: ControllerRevision[] = (c.revisions ?? []).map(({ lws: variant, revision }) => {
      const cr = newRevision(expandLws(variant), [], '');
      return {
        ...cr,
        metadata: { ...cr.metadata, name: `${lws.metadata.name}-${revisionKeyOf(cr)}-${revision}` },
        revision,
      };
    });
    let sts: StatefulSet | null = null;
    if (c.sts !== undefined) {
      sts = expandLeaderSts(c.sts);
      sts.metadata!.labels![`${LABEL_PREFIX}template-revision-hash`] = c.stsKey ?? '';
    }
    const statefulSets = [...(sts === null ? [] : [sts]), ...(c.statefulSets ?? []).map(expandSts)];
    const plan = planLeaderWorkerSet(
      {
        lws,
        leaderStatefulSet: sts,
        revisions,
        pods: (c.pods ?? []).map(expandPod),
        statefulSets,
        sharedServiceExists: c.serviceExists ?? false,
      },
      NOW,
    );

    const created = plan.createRevisions.map((r) => r.object.metadata?.name ?? '');
    const deleted = new Set(plan.deleteRevisions.map((r) => r.metadata?.name ?? ''));
    const revisionsAfter = [...revisions.map((r) => r.metadata?.name ?? ''), ...created]
      .filter((n) => !deleted.has(n))
      .sort();
    const events = [
      ...plan.createRevisions.map((r) => r.event),
      ...plan.rollingEvents,
      ...(plan.applyLeaderStatefulSet?.onSuccess ?? []),
      ...plan.statusEvents,
    ];
    const want = c.want;
    expect(plan.requeueAfterMs ?? 0).toBe(want.requeueAfterMs);
    expect(revisionsAfter).toEqual(want.revisions);
    expect(leaderFields(plan.applyLeaderStatefulSet!.object)).toEqual(want.leaderStatefulSet);
    expect((c.serviceExists ?? false) || plan.createService !== undefined).toBe(want.serviceExists);
    if (sts === null) {
      expect(recordedEvents(events)).toEqual(want.events.slice(0, events.length));
    } else {
      expect(recordedEvents(events)).toEqual(want.events);
      expect(compactStatus(plan.status ?? lws.status ?? {})).toEqual(want.status);
    }
  });
});
