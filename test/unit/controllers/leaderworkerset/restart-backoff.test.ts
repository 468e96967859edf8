// fleetq's opt-in group-restart backoff (restart-backoff.ts, restart-backoff-pass.ts): off without the annotation,
// the delays, the limit (condition, event, no delete), bad annotation values, and the state on the leader
// StatefulSet surviving each recreation, driven pass by pass with a clock.
import { describe, expect, it } from '@jest/globals';
import type { Pod, StatefulSet } from '../../../../shared/kube/api/objects.js';
import type { Action } from '../../../../shared/kube/actions.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import { planLwsPodActions } from '../../../../shared/controllers/leaderworkerset/pod-plan.js';
import {
  BACKOFF_RESET_MS,
  backoffDelayMs,
  backoffPolicyOf,
  decideRecreation,
  DEFAULT_RECREATION_LIMIT,
  GROUP_RESTART_BACKOFF_ANNOTATION,
  GROUP_RESTART_LIMIT_CONDITION,
  GROUP_RESTART_STATE_ANNOTATION,
  readBackoffState,
} from '../../../../shared/controllers/leaderworkerset/restart-backoff.js';
import {
  observeLwsPodWithBackoff,
  planLwsPodWithBackoff,
  type ObservedLwsPodWithBackoff,
} from '../../../../shared/controllers/leaderworkerset/restart-backoff-pass.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, LWS, NS } from './builders.js';
import { FakeCluster } from './fake-cluster.js';

const T0 = new Date('2026-03-10T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

const leaderSts = (state?: string): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {
    name: LWS,
    namespace: NS,
    uid: 'uid-leader-sts',
    ...(state !== undefined && { annotations: { [GROUP_RESTART_STATE_ANNOTATION]: state } }),
  },
});

const lwsWith = (value?: string, status?: LeaderWorkerSet['status']): LeaderWorkerSet =>
  anLws({
    replicas: 1,
    size: 2,
    ...(value !== undefined && { annotations: { [GROUP_RESTART_BACKOFF_ANNOTATION]: value } }),
    ...(status !== undefined && { status }),
  });

/** Group 0 of incarnation `n`: its leader (uid per incarnation) and a worker that restarted. */
function group(n: number, o: { revision?: string; workerRestarts?: number } = {}) {
  const revision = o.revision ?? 'r1';
  const leader = aPod(0, 0, { revision, uid: `leader-${n}` });
  const worker = aPod(0, 1, {
    revision,
    restarts: o.workerRestarts ?? 1,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: `${LWS}-0`, uid: `leader-${n}`, controller: true }],
  });
  return { leader, worker };
}

function observedFor(lws: LeaderWorkerSet, pod: Pod, leader: Pod, sts: StatefulSet | null): ObservedLwsPodWithBackoff {
  return {
    pod,
    lws,
    world: {
      groupPods: [leader, pod === leader ? aPod(0, 1, { revision: 'r1' }) : pod],
      leader,
      ownerStatefulSet: null,
      revisions: [],
      groupServiceExists: true,
      workerStatefulSetExists: true,
    },
    leaderStatefulSet: sts,
  };
}

const deletes = (r: PlanResult) => r.actions.filter((a) => a.type === 'delete');
const patches = (r: PlanResult) => r.actions.filter((a): a is Extract<Action, { type: 'patch' }> => a.type === 'patch');
const statusWrites = (r: PlanResult) =>
  r.actions.filter((a): a is Extract<Action, { type: 'updateStatus' }> => a.type === 'updateStatus');
const eventReasons = (r: PlanResult) =>
  r.actions.flatMap((a) => (a.type === 'event' ? [a.event.reason] : (a.events?.onSuccess ?? []).map((e) => e.reason)));

/** The state the pass's patch writes. */
const patchedState = (r: PlanResult) => readBackoffState(applyPatch(leaderSts(), r));

/** The leader StatefulSet after the pass's patch (what the apiserver keeps across the group's recreation). */
function applyPatch(sts: StatefulSet, r: PlanResult): StatefulSet {
  const p = patches(r)[0];
  if (p === undefined) return sts;
  const annotations = (p.patch.metadata as { annotations: Record<string, string> }).annotations;
  return { ...sts, metadata: { ...sts.metadata, annotations: { ...sts.metadata?.annotations, ...annotations } } };
}

/**
 * Drive group 0 under the backoff: its worker restarts again `failAfterMs` after each recreation; each pass runs
 * when the last one asked (requeueAfter) or when the pod changes. Returns when each recreation (delete) went out.
 */
function simulate(lws: LeaderWorkerSet, failAfterMs: number, untilMs: number) {
  let sts = leaderSts();
  let incarnation = 0;
  let { leader, worker } = group(incarnation);
  let t = failAfterMs;
  const recreatedAt: number[] = [];
  const results: PlanResult[] = [];
  while (t <= untilMs) {
    const r = planLwsPodWithBackoff(observedFor(lws, worker, leader, sts), at(t));
    results.push(r);
    sts = applyPatch(sts, r);
    if (deletes(r).length > 0) {
      recreatedAt.push(t);
      incarnation++;
      ({ leader, worker } = group(incarnation));
      t += failAfterMs;
    } else if (r.requeueAfter !== undefined) {
      t += r.requeueAfter;
    } else {
      break;
    }
  }
  return { recreatedAt, results, sts };
}

describe('off unless asked for', () => {
  it.each([
    ['no annotation', undefined],
    ['"false"', 'false'],
  ])('%s: upstream’s pass, the leader deleted at once every time', (_name, value) => {
    const lws = lwsWith(value);
    expect(backoffPolicyOf(lws)).toBeNull();
    for (let n = 0; n < 5; n++) {
      const { leader, worker } = group(n);
      const observed = observedFor(lws, worker, leader, leaderSts());
      const got = planLwsPodWithBackoff(observed, at(n * 1000));
      expect(got).toEqual(planLwsPodActions(observed));
      expect(deletes(got)).toHaveLength(1);
    }
  });

  it('observe reads no leader StatefulSet without the annotation', async () => {
    const { leader, worker } = group(0);
    const cluster = new FakeCluster([lwsWith(), { ...leader, kind: 'Pod' }, { ...worker, kind: 'Pod' }, leaderSts()]);
    const observed = await observeLwsPodWithBackoff(cluster, {
      cluster: 'c',
      kind: 'LeaderWorkerSetPod',
      namespace: NS,
      name: `${LWS}-0-1`,
    });
    expect(observed.leaderStatefulSet).toBeUndefined();
    expect(cluster.requests).not.toContain(`GET StatefulSet ${LWS}`);
  });

  it('observe reads the leader StatefulSet with it, for a restarted pod only', async () => {
    const { leader, worker } = group(0);
    const healthy = group(0, { workerRestarts: 0 }).worker;
    const key = (name: string) => ({ cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: NS, name });
    const restarted = new FakeCluster([
      lwsWith('true'),
      { ...leader, kind: 'Pod' },
      { ...worker, kind: 'Pod' },
      leaderSts(),
    ]);
    expect((await observeLwsPodWithBackoff(restarted, key(`${LWS}-0-1`))).leaderStatefulSet?.metadata?.uid).toBe(
      'uid-leader-sts',
    );
    const quiet = new FakeCluster([
      lwsWith('true'),
      { ...leader, kind: 'Pod' },
      { ...healthy, kind: 'Pod' },
      leaderSts(),
    ]);
    expect((await observeLwsPodWithBackoff(quiet, key(`${LWS}-0-1`))).leaderStatefulSet).toBeUndefined();
  });
});

describe('the annotation’s value (untrusted)', () => {
  it.each([
    ['true', 10],
    ['1', 1],
    [' 3 ', 3],
    ['1000', 1000],
  ])('%j: limit %d', (value, limit) => {
    expect(backoffPolicyOf(lwsWith(value))).toEqual({ limit });
  });

  it.each(['', '0', '-1', '1001', '9999', '3.5', '1e3', 'yes', 'True', '10s', '0x10', '5 6'])(
    '%j: the default limit, reported as invalid',
    (value) => {
      expect(backoffPolicyOf(lwsWith(value))).toEqual({ limit: DEFAULT_RECREATION_LIMIT, invalid: value });
    },
  );

  it('a bad value: every recreation records a Warning that says what is accepted; the backoff still applies', () => {
    const { recreatedAt, results } = simulate(lwsWith('lots'), 1_000, 60_000);
    expect(recreatedAt.length).toBeGreaterThan(1);
    expect(recreatedAt[1]! - recreatedAt[0]!).toBeGreaterThanOrEqual(10_000);
    const warning = results
      .flatMap((r) => r.actions)
      .find((a): a is Extract<Action, { type: 'event' }> => a.type === 'event')!;
    expect(warning.event).toMatchObject({ type: 'Warning', reason: 'InvalidGroupRestartBackoff' });
    expect(warning.event.message).toBe(
      'annotation fleetq.dev/group-restart-backoff: "lots" is not "true", "false" or a recreation limit ' +
        '(an integer from 1 to 1000); using the default limit 10',
    );
  });

  it('a malformed state annotation counts as none', () => {
    expect(readBackoffState(leaderSts('{nope'))).toEqual({});
    expect(readBackoffState(leaderSts('[1]'))).toEqual({});
    expect(readBackoffState(leaderSts('{"0":{"count":"3"},"1":null}'))).toEqual({});
  });
});

describe('backoff delays', () => {
  it('client-go style: base 10 s, factor 2, cap 5 min; the first recreation of a streak at once', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 40].map(backoffDelayMs)).toEqual([
      0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('a group whose worker fails 1 s after each recreation is recreated after 0, 10, 20, 40 … s', () => {
    const { recreatedAt } = simulate(lwsWith('8'), 1_000, 3_600_000);
    const gaps = recreatedAt.slice(1).map((t, i) => t - recreatedAt[i]!);
    expect(recreatedAt[0]).toBe(1_000);
    expect(gaps).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('records the recreation before deleting: a patch pass (requeueAfter 0), then upstream’s delete', () => {
    const lws = lwsWith('true');
    const { leader, worker } = group(0);
    const first = planLwsPodWithBackoff(observedFor(lws, worker, leader, leaderSts()), T0);
    expect(deletes(first)).toEqual([]);
    expect(first.requeueAfter).toBe(0);
    expect(patchedState(first)).toEqual({
      '0': { count: 1, lastMs: T0.getTime(), leaderUid: 'leader-0', revision: 'r1' },
    });
    const sts = applyPatch(leaderSts(), first);
    const second = planLwsPodWithBackoff(observedFor(lws, worker, leader, sts), at(50));
    const observed = observedFor(lws, worker, leader, sts);
    expect(second).toEqual(planLwsPodActions(observed));
    // Replayed from a stale cache (the patch not seen yet): the same count written again, no double count.
    const replay = planLwsPodWithBackoff(observedFor(lws, worker, leader, leaderSts()), at(60));
    expect(patchedState(replay)['0']?.count).toBe(1);
  });

  it('while in backoff: no write, look again when the delay is over', () => {
    const lws = lwsWith('true');
    const state = JSON.stringify({ '0': { count: 2, lastMs: T0.getTime(), leaderUid: 'leader-0', revision: 'r1' } });
    const { leader, worker } = group(1);
    const got = planLwsPodWithBackoff(observedFor(lws, worker, leader, leaderSts(state)), at(5_000));
    expect(got).toEqual({ actions: [], requeueAfter: 15_000 });
  });
});

describe('the limit', () => {
  it('past it: no delete, the condition and one Warning event; later passes write nothing more', () => {
    const { recreatedAt, results, sts } = simulate(lwsWith('3'), 1_000, 3_600_000);
    expect(recreatedAt).toEqual([1_000, 11_000, 31_000]);
    const held = results.at(-1)!;
    expect(deletes(held)).toEqual([]);
    expect(held.requeueAfter).toBeUndefined();
    expect(eventReasons(held)).toEqual(['GroupRestartLimitReached']);
    const event = patches(held)[0]!.events!.onSuccess![0]!;
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.message).toContain(`group 0 was recreated 3 times in a row and failed again; leader pod ${LWS}-0`);
    const condition = (statusWrites(held)[0]!.object as LeaderWorkerSet).status!.conditions!.find(
      (c) => c.type === GROUP_RESTART_LIMIT_CONDITION,
    );
    expect(condition).toEqual({
      type: 'GroupRestartLimitReached',
      status: 'True',
      reason: 'GroupRestartLimitReached',
      message: 'groups held at the recreation limit (not recreated again): 0',
      observedGeneration: 1,
      lastTransitionTime: '2026-03-10T10:00:32Z',
    });
    expect(readBackoffState(sts)['0']).toMatchObject({ count: 3, held: true, leaderUid: 'leader-3' });

    // The next pass, with the condition written: nothing (no delete, no event, no write), however late.
    const lws = lwsWith('3', { conditions: [condition!] });
    const { leader, worker } = group(3);
    expect(planLwsPodWithBackoff(observedFor(lws, worker, leader, sts), at(7_200_000))).toEqual({ actions: [] });
  });

  it('a held group whose leader someone else replaced starts over; the condition turns False', () => {
    const { sts, results } = simulate(lwsWith('2'), 1_000, 3_600_000);
    const condition = (statusWrites(results.at(-1)!)[0]!.object as LeaderWorkerSet).status!.conditions![0]!;
    const lws = lwsWith('2', { conditions: [condition] });
    const { leader } = group(99); // an operator deleted the held leader; its StatefulSet made this one
    const release = planLwsPodWithBackoff(observedFor(lws, leader, leader, sts), at(100_000));
    expect(readBackoffState(applyPatch(sts, release))).toEqual({});
    expect((statusWrites(release)[0]!.object as LeaderWorkerSet).status!.conditions).toEqual([
      {
        type: 'GroupRestartLimitReached',
        status: 'False',
        reason: 'NoGroupHeld',
        message: 'no group is held at the recreation limit',
        observedGeneration: 1,
        lastTransitionTime: '2026-03-10T10:01:40Z',
      },
    ]);
    const restarted = group(99).worker;
    const again = planLwsPodWithBackoff(
      observedFor(lwsWith('2'), restarted, leader, applyPatch(sts, release)),
      at(101_000),
    );
    expect(patches(again)).toHaveLength(1); // recorded as the first of a new streak: at once
    expect(again.requeueAfter).toBe(0);
  });
});

describe('state surviving recreation', () => {
  it('the count read back from the leader StatefulSet after fleetq’s recreation makes the next one wait', () => {
    const lws = lwsWith('true');
    let sts = leaderSts();
    const g0 = group(0);
    sts = applyPatch(sts, planLwsPodWithBackoff(observedFor(lws, g0.worker, g0.leader, sts), T0));
    expect(deletes(planLwsPodWithBackoff(observedFor(lws, g0.worker, g0.leader, sts), at(10)))).toHaveLength(1);
    // The group is recreated: new leader uid, new worker; only the leader StatefulSet (and its annotation) is left.
    const g1 = group(1);
    const got = planLwsPodWithBackoff(observedFor(lws, g1.worker, g1.leader, sts), at(2_000));
    expect(got).toEqual({ actions: [], requeueAfter: 8_000 });
  });

  it('a streak ends after 10 quiet minutes, or with another revision', () => {
    const policy = { limit: 10 };
    const state = { '0': { count: 6, lastMs: T0.getTime(), leaderUid: 'leader-6', revision: 'r1' } };
    const leader = group(7).leader;
    expect(decideRecreation(policy, state, leader, at(60_000))).toEqual({ kind: 'wait', waitMs: 240_000, count: 6 });
    expect(decideRecreation(policy, state, leader, at(BACKOFF_RESET_MS + 1))).toMatchObject({
      kind: 'record',
      entry: { count: 1 },
    });
    expect(decideRecreation(policy, state, group(7, { revision: 'r2' }).leader, at(60_000))).toMatchObject({
      kind: 'record',
      entry: { count: 1, revision: 'r2' },
    });
  });

  it('two pods of a group deciding from the same state write the same count', () => {
    const policy = { limit: 10 };
    const state = { '0': { count: 1, lastMs: T0.getTime(), leaderUid: 'leader-1', revision: 'r1' } };
    const leader = group(2).leader;
    const a = decideRecreation(policy, state, leader, at(20_000));
    const b = decideRecreation(policy, state, leader, at(20_500));
    expect(a).toMatchObject({ kind: 'record', entry: { count: 2, leaderUid: 'leader-2' } });
    expect(b).toMatchObject({ kind: 'record', entry: { count: 2, leaderUid: 'leader-2' } });
  });
});
