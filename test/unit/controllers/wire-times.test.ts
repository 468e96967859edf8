// The times planners write into objects are metav1.Time as the apiserver stores it: RFC 3339 in whole seconds,
// UTC, `Z` (what it kept of the millisecond Dates written before), never a Date and never milliseconds.
import { describe, expect, it } from '@jest/globals';
import { deferredReport } from '../../../shared/controllers/daemonset/deferred-report.js';
import { planManageFailure } from '../../../shared/controllers/replicaset/plan.js';
import type { ReplicaSet } from '../../../shared/kube/api/objects.js';
import { aDaemonSet } from './daemonset/builders.js';
import { aReplicaSet, observed, readyPods } from './replicaset/builders.js';

/** A clock between two seconds: what is written must be the second it falls in. */
const NOW = new Date('2026-01-01T00:00:07.890Z');
const WIRE = '2026-01-01T00:00:07Z';

describe('times planners write', () => {
  it('ReplicaSet: ReplicaFailure.lastTransitionTime', () => {
    const got = planManageFailure(observed(aReplicaSet({ replicas: 3 }), readyPods(1)), NOW, { message: 'quota' });
    const written = got.actions.flatMap((a) => (a.type === 'updateStatus' ? [a.object as ReplicaSet] : []));
    const condition = written[0]?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    expect(condition?.lastTransitionTime).toBe(WIRE);
  });

  it('DaemonSet: UnhealthyNodesDeferred.lastTransitionTime', () => {
    const report = deferredReport(aDaemonSet(), [{ node: 'n1', why: 'cordoned' }], NOW);
    const condition = report.conditions.find((c) => c.type === 'UnhealthyNodesDeferred');
    expect(condition?.lastTransitionTime).toBe(WIRE);
  });
});
