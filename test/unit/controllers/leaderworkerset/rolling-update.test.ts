// The rolling update's partition and replicas: upstream's TestCalculateRollingUpdateReplicas and the three
// TestRollingUpdateParameters* cases (leaderworkerset_controller_test.go, v0.9.0), and the paths of
// rollingUpdateParameters one by one. upstream-golden.test.ts checks many more against upstream's Go.
import { describe, expect, it } from '@jest/globals';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import type { ReplicaState } from '../../../../shared/controllers/leaderworkerset/group-state.js';
import {
  continuousReadyReplicas,
  rollingUpdatePartition,
  rollingUpdateParameters,
  rollingUpdateReplicas,
  unreadyReplicas,
} from '../../../../shared/controllers/leaderworkerset/rolling-update.js';
import { anLws, LWS } from './builders.js';

const leaderSts = (replicas: number, partition: number, annotatedReplicas = replicas): StatefulSet => ({
  metadata: { name: LWS, annotations: { 'leaderworkerset.sigs.k8s.io/replicas': String(annotatedReplicas) } },
  spec: {
    replicas,
    selector: {},
    serviceName: LWS,
    template: {},
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } },
  },
});
const R = (ready: boolean, updated: boolean): ReplicaState => ({ ready, updated });
const OLD_READY = R(true, false);
const NEW_READY = R(true, true);
const NEW_UNREADY = R(false, true);
const noStates = (): never => {
  throw new Error('replica states read');
};

describe('rollingUpdateReplicas (upstream TestCalculateRollingUpdateReplicas)', () => {
  it.each([
    {
      name: 'keeps the surge until maxUnavailable covers the unready',
      replicas: 1,
      surge: 1,
      unavailable: 0,
      unready: 1,
      want: 2,
    },
    { name: 'gives surge back as groups become ready', replicas: 4, surge: 2, unavailable: 1, unready: 2, want: 5 },
    {
      name: 'gives surge back before the partition reaches 0',
      replicas: 2,
      surge: 2,
      unavailable: 1,
      unready: 2,
      want: 3,
    },
    { name: 'back to replicas when all are ready', replicas: 1, surge: 1, unavailable: 0, unready: 0, want: 1 },
    { name: 'maxUnavailable allows the unready one', replicas: 1, surge: 1, unavailable: 1, unready: 1, want: 1 },
    { name: 'no surge when maxSurge is 0', replicas: 3, surge: 0, unavailable: 0, unready: 1, want: 3 },
  ])('$name', ({ replicas, surge, unavailable, unready, want }) => {
    expect(rollingUpdateReplicas(replicas, surge, unavailable, unready)).toBe(want);
  });
});

describe('rollingUpdateParameters (upstream TestRollingUpdateParameters*)', () => {
  const lws = (maxUnavailable: number, maxSurge: number, replicas: number) =>
    anLws({ replicas, size: 1, maxUnavailable, maxSurge });
  it('scaling up without a template change adds no surge', () => {
    const got = rollingUpdateParameters(lws(0, 1, 3), leaderSts(2, 0), false, noStates);
    expect(got).toEqual({ partition: 0, replicas: 3, events: [] });
  });
  it('scaling up with a template change: partition at the old size, no surge', () => {
    const got = rollingUpdateParameters(lws(0, 1, 3), leaderSts(2, 0), true, noStates);
    expect(got).toEqual({ partition: 2, replicas: 3, events: [] });
  });
  it('a template change at full size surges only as far as maxUnavailable needs', () => {
    const got = rollingUpdateParameters(lws(1, 2, 2), leaderSts(2, 0), true, noStates);
    expect(got).toEqual({ partition: 2, replicas: 3, events: [] });
  });
});

describe('rollingUpdateParameters paths', () => {
  it('no leader StatefulSet: partition 0 (raised to the configured partition), replicas', () => {
    expect(rollingUpdateParameters(anLws({ replicas: 4 }), null, false, noStates)).toEqual({
      partition: 0,
      replicas: 4,
      events: [],
    });
    expect(rollingUpdateParameters(anLws({ replicas: 4, partition: 2 }), null, false, noStates).partition).toBe(2);
  });
  it('at rest: partition 0, replicas, no states read', () => {
    expect(rollingUpdateParameters(anLws({ replicas: 3 }), leaderSts(3, 0), false, noStates)).toEqual({
      partition: 0,
      replicas: 3,
      events: [],
    });
  });
  it('under way, scaling up: the partition stays', () => {
    expect(rollingUpdateParameters(anLws({ replicas: 5 }), leaderSts(3, 2), false, noStates)).toEqual({
      partition: 2,
      replicas: 5,
      events: [],
    });
  });
  it('under way: the partition moves down by maxUnavailable past the updated, ready tail', () => {
    const states = () => [OLD_READY, OLD_READY, OLD_READY, NEW_READY];
    expect(rollingUpdateParameters(anLws({ replicas: 4 }), leaderSts(4, 3), false, states)).toEqual({
      partition: 2,
      replicas: 4,
      events: [],
    });
  });
  it('under way: an updated group not ready yet holds the partition (maxUnavailable 1)', () => {
    const states = () => [OLD_READY, OLD_READY, OLD_READY, NEW_UNREADY];
    expect(rollingUpdateParameters(anLws({ replicas: 4 }), leaderSts(4, 3), false, states).partition).toBe(3);
  });
  it('replicas changed during the update: the partition is capped at replicas + maxSurge', () => {
    const states = () => [OLD_READY, OLD_READY, NEW_READY, NEW_READY];
    expect(rollingUpdateParameters(anLws({ replicas: 3 }), leaderSts(4, 4, 4), false, states)).toEqual({
      partition: 3,
      replicas: 3,
      events: [
        { type: 'Normal', reason: 'GroupsProgressing', action: 'Delete', note: `deleting surge replica ${LWS}-3` },
      ],
    });
  });
  it('surge given back: one event naming the range', () => {
    // replicas 2, maxSurge 2 (burst 4), all four groups updated and ready, partition 0 not yet reached.
    const lws = anLws({ replicas: 2, maxUnavailable: 1, maxSurge: 2 });
    const states = () => [NEW_READY, NEW_READY, NEW_READY, NEW_READY];
    expect(rollingUpdateParameters(lws, leaderSts(4, 1, 2), false, states)).toEqual({
      partition: 0,
      replicas: 2,
      events: [
        {
          type: 'Normal',
          reason: 'GroupsProgressing',
          action: 'Delete',
          note: `deleting surge replicas from ${LWS}-2 to ${LWS}-3`,
        },
      ],
    });
  });
  it('a replicas annotation that is not a number is an error (retried)', () => {
    const sts = leaderSts(4, 3);
    sts.metadata!.annotations = { 'leaderworkerset.sigs.k8s.io/replicas': 'x' };
    expect(() => rollingUpdateParameters(anLws({ replicas: 4 }), sts, false, () => [])).toThrow(/not a number/);
  });
});

describe('rollingUpdatePartition and its counts', () => {
  it('counts the ready-and-updated tail and the unready below replicas', () => {
    expect(continuousReadyReplicas([OLD_READY, NEW_READY, NEW_READY])).toBe(2);
    expect(continuousReadyReplicas([NEW_READY, NEW_UNREADY])).toBe(0);
    expect(unreadyReplicas([NEW_READY, OLD_READY], 3)).toBe(2);
  });
  it.each([
    {
      name: 'one step down from the top',
      states: [OLD_READY, OLD_READY, OLD_READY, OLD_READY],
      step: 1,
      current: 4,
      want: 3,
    },
    {
      name: 'past an updated tail',
      states: [OLD_READY, OLD_READY, OLD_READY, NEW_READY],
      step: 1,
      current: 3,
      want: 2,
    },
    {
      name: 'an unready group below holds it (maxUnavailable is already spent)',
      states: [R(false, false), OLD_READY, OLD_READY, OLD_READY],
      step: 1,
      current: 4,
      want: 4,
    },
    {
      name: 'an unready group below raises it; lowered again over the unready top (never below the step)',
      states: [OLD_READY, OLD_READY, R(false, false), R(false, false)],
      step: 1,
      current: 4,
      want: 3,
    },
    { name: 'never raised', states: [OLD_READY, OLD_READY, OLD_READY, OLD_READY], step: 1, current: 2, want: 2 },
    { name: 'a bigger step', states: [OLD_READY, OLD_READY, OLD_READY, OLD_READY], step: 3, current: 4, want: 1 },
  ])('$name', ({ states, step, current, want }) => {
    expect(rollingUpdatePartition(states, states.length, step, current)).toBe(want);
  });
});
