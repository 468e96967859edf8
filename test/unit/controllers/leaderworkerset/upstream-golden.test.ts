// Differential goldens: the same cases run through upstream's Go functions (fixtures/upstream-golden.json, see its
// `source`) and through ours. Each case names the upstream function it exercises.
import { describe, expect, it } from '@jest/globals';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import { leaderStatefulSet } from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import {
  groupPodsOf,
  leaderNameOf,
  restartDecision,
} from '../../../../shared/controllers/leaderworkerset/restart-policy.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { replicaStates } from '../../../../shared/controllers/leaderworkerset/group-state.js';
import { rollingUpdateParameters } from '../../../../shared/controllers/leaderworkerset/rolling-update.js';
import { computeStatus } from '../../../../shared/controllers/leaderworkerset/status.js';
import { workerStatefulSet } from '../../../../shared/controllers/leaderworkerset/worker-statefulset.js';
import { controllerRefOf } from '../../../../shared/kube/meta/controller-ref.js';
import {
  compactStatus,
  expandCasePod,
  expandLeaderSts,
  expandLws,
  expandPod,
  expandSts,
  loadGolden,
  type GoldenCase,
} from './golden-cases.js';
import { NOW } from './builders.js';
import { recordedEvents } from './golden-fields.js';

const cases = loadGolden();
const byFn = (fn: GoldenCase['fn']) => cases.filter((c) => c.fn === fn);

describe('rollingUpdateParameters (upstream)', () => {
  it.each(byFn('rollingUpdateParameters'))('$name', (c) => {
    const lws = expandLws(c.lws);
    const sts = c.sts === undefined ? null : expandLeaderSts(c.sts);
    const pods = (c.pods ?? []).map(expandPod);
    const statefulSets = [...(sts === null ? [] : [sts]), ...(c.statefulSets ?? []).map(expandSts)];
    const states = () => replicaStates(lws, sts?.spec?.replicas ?? 0, c.revisionKey ?? 'new', pods, statefulSets);
    if (c.want.error !== undefined) {
      expect(() => rollingUpdateParameters(lws, sts, c.updated ?? false, states)).toThrow();
      return;
    }
    const got = rollingUpdateParameters(lws, sts, c.updated ?? false, states);
    expect({ partition: got.partition, replicas: got.replicas, events: recordedEvents(got.events) }).toEqual({
      partition: c.want.partition,
      replicas: c.want.replicas,
      events: c.want.events,
    });
  });
});

describe('updateStatus (upstream)', () => {
  it.each(byFn('updateStatus'))('$name', (c) => {
    const lws = expandLws(c.lws);
    const leader = expandLeaderSts(c.sts!);
    const workers = new Map<string, StatefulSet>(
      [leader, ...(c.statefulSets ?? []).map(expandSts)].map((s) => [s.metadata?.name ?? '', s]),
    );
    const got = computeStatus(lws, leader, (c.pods ?? []).map(expandPod), workers, c.revisionKey ?? 'new', NOW);
    expect({
      written: got.status !== undefined,
      updateDone: got.updateDone,
      status: compactStatus(got.status ?? lws.status ?? {}),
      events: recordedEvents(got.events),
    }).toEqual({
      written: c.want.written,
      updateDone: c.want.updateDone,
      status: c.want.status,
      events: c.want.events,
    });
  });
});

describe('constructLeaderStatefulSetApplyConfiguration (upstream)', () => {
  it.each(byFn('leaderStatefulSet'))('$name', (c) => {
    const got = leaderStatefulSet(expandLws(c.lws), c.partition ?? 0, c.replicas ?? 0, c.revisionKey ?? '');
    expect(got).toEqual(c.want.object);
  });
});

describe('constructWorkerStatefulSetApplyConfiguration (upstream)', () => {
  it.each(byFn('workerStatefulSet'))('$name', (c) => {
    const lws = expandLws(c.lws);
    const revision = newRevision(c.revisionLws === undefined ? lws : expandLws(c.revisionLws), [], '');
    expect(workerStatefulSet(expandCasePod(c), lws, revision)).toEqual(c.want.object);
  });
});

describe('handleRestartPolicy (upstream)', () => {
  it.each(byFn('restartPolicy'))('$name', (c) => {
    const lws = expandLws(c.lws);
    const pod = expandPod(c.pod!);
    const pods = (c.pods ?? []).map(expandPod);
    const statefulSets = (c.statefulSets ?? []).map(expandSts);
    const leaderName = leaderNameOf(pod);
    const ownerName = controllerRefOf(pod)?.name;
    const decision = restartDecision(lws, pod, {
      groupPods: groupPodsOf(pod, pods),
      leader: pods.find((p) => p.metadata?.name === leaderName) ?? null,
      ownerStatefulSet: statefulSets.find((s) => s.metadata?.name === ownerName) ?? null,
    });
    const deleted = decision.kind === 'deleteLeader' ? (decision.leader.metadata?.name ?? '') : null;
    expect({
      leaderDeleted: decision.kind === 'deleteLeader' || decision.kind === 'leaderDeleting',
      remainingPods: pods.map((p) => p.metadata?.name ?? '').filter((n) => n !== deleted),
      events: decision.kind === 'deleteLeader' ? recordedEvents([decision.event]) : [],
    }).toEqual({
      leaderDeleted: c.want.leaderDeleted,
      remainingPods: [...(c.want.remainingPods ?? [])].sort(),
      events: c.want.events,
    });
  });
});
