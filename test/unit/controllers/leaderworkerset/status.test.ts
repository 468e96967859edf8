// Status and conditions: upstream's TestExclusiveConditionTypes and TestSetCondition (leaderworkerset_controller_test.go,
// v0.9.0), and computeStatus's counts, conditions and event. upstream-golden.test.ts checks many more against Go.
import { describe, expect, it } from '@jest/globals';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import {
  areExclusiveConditionTypes,
  computeStatus,
  hpaPodSelector,
  makeCondition,
  setCondition,
  setConditions,
} from '../../../../shared/controllers/leaderworkerset/status.js';
import type { Condition } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, aWorkerSts, LWS, NOW } from './builders.js';

const T = '2026-03-10T10:00:30Z';
const OLD_T = '2026-03-10T09:00:00Z';
const cond = (type: string, status: 'True' | 'False', observedGeneration?: number): Condition => ({
  type,
  status,
  reason: '',
  message: '',
  lastTransitionTime: OLD_T,
  ...(observedGeneration !== undefined && { observedGeneration }),
});

describe('areExclusiveConditionTypes (upstream TestExclusiveConditionTypes)', () => {
  it.each([
    ['Available', 'Progressing', true],
    ['Progressing', 'Available', true],
    ['Progressing', 'Progressing', false],
    ['UpdateInProgress', 'Available', true],
    ['Available', 'UpdateInProgress', true],
    ['Progressing', 'UpdateInProgress', false],
    ['UpdateInProgress', 'Progressing', false],
    ['Available', 'Available', false],
  ])('%s, %s: %s', (a, b, want) => expect(areExclusiveConditionTypes({ type: a }, { type: b })).toBe(want));
});

describe('setCondition (upstream TestSetCondition)', () => {
  it.each([
    {
      name: 'same type, other status',
      current: [cond('Progressing', 'False', 1)],
      next: cond('Progressing', 'True', 1),
      want: true,
    },
    {
      name: 'other type, new one True',
      current: [cond('Available', 'False', 1)],
      next: cond('Progressing', 'True', 1),
      want: true,
    },
    { name: 'no conditions yet', current: [], next: cond('Progressing', 'True', 1), want: true },
    {
      name: 'same type and status',
      current: [cond('Progressing', 'False')],
      next: cond('Progressing', 'False'),
      want: false,
    },
    {
      name: 'same type and status, newer generation',
      current: [cond('Available', 'True', 1)],
      next: cond('Available', 'True', 2),
      want: true,
    },
    { name: 'a False condition is not added', current: [], next: cond('Progressing', 'False', 1), want: false },
  ])('$name: $want', ({ current, next, want }) => {
    expect(setCondition([...current], next, NOW)).toBe(want);
  });

  it('turns a True exclusive condition False, with the new generation and time', () => {
    const conditions = [cond('Progressing', 'True', 1)];
    expect(setCondition(conditions, makeCondition('Available', 2, NOW), NOW)).toBe(true);
    expect(conditions).toEqual([
      { ...cond('Progressing', 'False', 2), lastTransitionTime: T },
      {
        type: 'Available',
        status: 'True',
        reason: 'AllGroupsReady',
        message: 'All replicas are ready',
        observedGeneration: 2,
        lastTransitionTime: T,
      },
    ]);
  });
});

describe('setConditions', () => {
  it('stops at the first condition that changes something (the rest wait for the next pass), then syncs generations', () => {
    const conditions = [cond('Available', 'True', 1)];
    const next = [makeCondition('UpdateInProgress', 1, NOW), makeCondition('Progressing', 1, NOW)];
    expect(setConditions(conditions, next, 1, NOW)).toBe(true);
    expect(conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['Available=False', 'UpdateInProgress=True']);
    expect(setConditions(conditions, next, 1, NOW)).toBe(true);
    expect(conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Available=False',
      'UpdateInProgress=True',
      'Progressing=True',
    ]);
    expect(setConditions(conditions, next, 1, NOW)).toBe(false);
  });
});

describe('computeStatus (updateStatus)', () => {
  const leader = (replicas: number): StatefulSet => ({
    metadata: { name: LWS },
    spec: { replicas, selector: {}, serviceName: LWS, template: {} },
    status: { replicas },
  });
  const byName = (sts: StatefulSet[]) => new Map(sts.map((s) => [s.metadata?.name ?? '', s]));

  it('all groups ready and updated: Available, counts, selector, done', () => {
    const lws = anLws({ replicas: 2, generation: 3 });
    const pods = [aPod(0, 0, { revision: 'k' }), aPod(1, 0, { revision: 'k' })];
    const got = computeStatus(
      lws,
      leader(2),
      pods,
      byName([aWorkerSts(0, { revision: 'k' }), aWorkerSts(1, { revision: 'k' })]),
      'k',
      NOW,
    );
    expect(got).toEqual({
      status: {
        replicas: 2,
        observedGeneration: 3,
        hpaPodSelector: `leaderworkerset.sigs.k8s.io/name=${LWS},leaderworkerset.sigs.k8s.io/worker-index=0`,
        readyReplicas: 2,
        updatedReplicas: 2,
        conditions: [makeCondition('Available', 3, NOW)],
      },
      updateDone: true,
      events: [
        {
          type: 'Normal',
          reason: 'AllGroupsReady',
          action: 'Update',
          note: 'All replicas are ready, with 2 groups ready of total 2 groups',
        },
      ],
    });
  });

  it('a group on the old revision: UpdateInProgress first, not done', () => {
    const lws = anLws({ replicas: 2 });
    const pods = [aPod(0, 0, { revision: 'old' }), aPod(1, 0, { revision: 'k' })];
    const got = computeStatus(
      lws,
      leader(2),
      pods,
      byName([aWorkerSts(0, { revision: 'old' }), aWorkerSts(1, { revision: 'k' })]),
      'k',
      NOW,
    );
    expect(got.status?.conditions).toEqual([makeCondition('UpdateInProgress', 1, NOW)]);
    expect(got.status?.updatedReplicas).toBe(1);
    expect(got.updateDone).toBe(false);
    expect(got.events[0]?.note).toBe('Rolling Upgrade is in progress, with 2 groups ready of total 2 groups');
  });

  it('a count that drops to 0 is left out of the status written, as Go encodes omitempty fields', () => {
    const lws = anLws({ replicas: 1, size: 1 });
    const ready = computeStatus(lws, leader(1), [aPod(0, 0, { revision: 'k' })], byName([]), 'k', NOW);
    expect(ready.status?.readyReplicas).toBe(1);
    const notReady = aPod(0, 0, { revision: 'old', phase: 'Pending', ready: false });
    const got = computeStatus({ ...lws, status: ready.status }, leader(1), [notReady], byName([]), 'k', NOW);
    expect(got.status).toBeDefined();
    expect(Object.keys(got.status ?? {}).filter((k) => k === 'readyReplicas' || k === 'updatedReplicas')).toEqual([]);
  });

  it('a leader without its worker StatefulSet is left out of every count', () => {
    const lws = anLws({ replicas: 1 });
    const got = computeStatus(lws, leader(1), [aPod(0, 0, { revision: 'k' })], byName([]), 'k', NOW);
    expect(got.status?.readyReplicas ?? 0).toBe(0);
    expect(got.status?.conditions).toEqual([makeCondition('Progressing', 1, NOW)]);
  });

  it('nothing changed: no write, no event', () => {
    const lws = anLws({ replicas: 1, size: 1 });
    const first = computeStatus(lws, leader(1), [aPod(0, 0, { revision: 'k' })], byName([]), 'k', NOW);
    const again = computeStatus(
      { ...lws, status: first.status },
      leader(1),
      [aPod(0, 0, { revision: 'k' })],
      byName([]),
      'k',
      NOW,
    );
    expect(again).toEqual({ updateDone: true, events: [] });
  });

  it('the selector string', () => {
    expect(hpaPodSelector(anLws())).toBe(
      'leaderworkerset.sigs.k8s.io/name=test-sample,leaderworkerset.sigs.k8s.io/worker-index=0',
    );
  });
});
