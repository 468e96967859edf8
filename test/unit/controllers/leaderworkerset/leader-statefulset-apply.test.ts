// The stand-in for upstream's server-side apply of the leader StatefulSet: when the apply configuration differs from
// the StatefulSet on the server, and the strategic merge patch that writes it (applied here as the apiserver merges
// it). What another manager set outside the configuration stays; inside the template it goes (the documented gap).
import { describe, expect, it } from '@jest/globals';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import {
  isApplied,
  leaderStatefulSetDiffers,
  leaderStatefulSetPatch,
} from '../../../../shared/controllers/leaderworkerset/leader-statefulset-apply.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { strategicMerge } from './fake-cluster.js';
import { anLws } from './builders.js';

const EXCLUSIVE = 'leaderworkerset.sigs.k8s.io/exclusive-topology';
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The leader StatefulSet on the server after an apply of `lws`: a uid, defaults, another manager's label. */
function onServer(lws: LeaderWorkerSet, partition = 0, replicas = 2): StatefulSet {
  const sts = copy(leaderStatefulSet(lws, partition, replicas, 'k'));
  sts.metadata = { ...sts.metadata, uid: 'uid-leader', labels: { ...sts.metadata?.labels, team: 'a' } };
  sts.spec!.revisionHistoryLimit = 10;
  sts.spec!.template.spec!.dnsPolicy = 'ClusterFirst';
  sts.spec!.template.spec!.containers[0]!.imagePullPolicy = 'IfNotPresent';
  return sts;
}

function patched(observed: StatefulSet, desired: StatefulSet): StatefulSet {
  const patch = leaderStatefulSetPatch(observed, desired);
  expect(patch).not.toBeNull();
  const result = copy(observed);
  strategicMerge(result as Record<string, unknown>, patch!);
  return result;
}

describe('isApplied: the server holds every field the configuration sets', () => {
  it.each([
    { name: 'a field the server defaulted besides', applied: { a: 1 }, server: { a: 1, b: 2 }, want: true },
    { name: 'a different value', applied: { a: 1 }, server: { a: 2 }, want: false },
    { name: 'an empty map applied, absent on the server', applied: { a: {} }, server: {}, want: true },
    { name: 'null applied', applied: { a: null }, server: {}, want: true },
    { name: 'a list element with defaults', applied: [{ n: 1 }], server: [{ n: 1, d: 0 }], want: true },
    { name: 'a list longer on the server', applied: [{ n: 1 }], server: [{ n: 1 }, { n: 2 }], want: false },
    { name: 'a field missing on the server', applied: { a: 'x' }, server: {}, want: false },
  ])('$name: $want', ({ applied, server, want }) => expect(isApplied(applied, server)).toBe(want));
});

describe('leaderStatefulSetPatch', () => {
  it('the StatefulSet as applied, with the server’s defaults and another manager’s label: no patch', () => {
    const lws = anLws();
    expect(leaderStatefulSetPatch(onServer(lws), leaderStatefulSet(lws, 0, 2, 'k'))).toBeNull();
  });

  it('the partition and replicas: exactly the configuration’s fields, the template replaced, uid as precondition', () => {
    const lws = anLws();
    const desired = leaderStatefulSet(lws, 1, 3, 'k');
    expect(leaderStatefulSetPatch(onServer(lws), desired)).toEqual({
      metadata: {
        labels: desired.metadata?.labels,
        annotations: desired.metadata?.annotations,
        ownerReferences: desired.metadata?.ownerReferences,
        uid: 'uid-leader',
      },
      spec: {
        serviceName: desired.spec?.serviceName,
        replicas: 3,
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, partition: 1 } },
        template: { ...desired.spec?.template, $patch: 'replace' },
      },
    });
  });

  it('patched, the StatefulSet keeps what others set outside the configuration, and needs no second patch', () => {
    const lws = anLws();
    const observed = onServer(lws);
    observed.metadata!.ownerReferences = [
      ...(observed.metadata?.ownerReferences ?? []),
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'uid-cm' },
    ];
    const desired = leaderStatefulSet(lws, 1, 2, 'k');
    const after = patched(observed, desired);
    expect(after.metadata?.labels?.team).toBe('a');
    expect(after.metadata?.ownerReferences?.map((r) => r.uid)).toEqual(['uid-lws', 'uid-cm']);
    expect(after.spec?.revisionHistoryLimit).toBe(10);
    expect(after.spec?.updateStrategy?.rollingUpdate?.partition).toBe(1);
    expect(leaderStatefulSetDiffers(after, desired)).toBe(false);
  });

  it('a template annotation lws no longer sets (exclusive topology dropped from the set) is a difference, and goes', () => {
    const before = anLws({ annotations: { [EXCLUSIVE]: 'pool' } });
    const observed = onServer(before);
    const lws = anLws();
    const desired = leaderStatefulSet(lws, 0, 2, 'k');
    expect(leaderStatefulSetDiffers(observed, desired)).toBe(true);
    expect(patched(observed, desired).spec?.template.metadata?.annotations).toEqual(
      desired.spec?.template.metadata?.annotations,
    );
  });

  it('a field of the configuration edited by someone else is put back (the apply is forced)', () => {
    const lws = anLws();
    const observed = onServer(lws);
    observed.spec!.podManagementPolicy = 'OrderedReady';
    observed.spec!.template.spec!.containers[0]!.image = 'edited';
    const desired = leaderStatefulSet(lws, 0, 2, 'k');
    const after = patched(observed, desired);
    expect(after.spec?.podManagementPolicy).toBe('Parallel');
    expect(after.spec?.template.spec?.containers[0]?.image).toBe(desired.spec?.template.spec?.containers[0]?.image);
  });

  it('a container another manager added to the template: a difference the patch removes (where the apply keeps it)', () => {
    const lws = anLws();
    const observed = onServer(lws);
    observed.spec!.template.spec!.containers.push({ name: 'sidecar', image: 's' });
    const after = patched(observed, leaderStatefulSet(lws, 0, 2, 'k'));
    expect(after.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['leader']);
  });

  it('the controller reference missing: a difference', () => {
    const lws = anLws();
    const observed = onServer(lws);
    observed.metadata!.ownerReferences = [];
    expect(leaderStatefulSetDiffers(observed, leaderStatefulSet(lws, 0, 2, 'k'))).toBe(true);
  });
});
