import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import {
  podDeletionCost,
  podsToDelete,
  rankPodsForDeletion,
} from '../../../../shared/controllers/pod-utils/deletion-rank.js';
import { NOW, aPod } from '../replicaset/builders.js';

const names = (pods: readonly Pod[]) => pods.map((p) => p.metadata?.name);

describe('scale-down ranking (ActivePodsWithRanks.Less)', () => {
  it.each([
    {
      name: '1. unassigned before assigned (even when less costly to keep)',
      first: aPod('unassigned', { node: '', phase: 'Pending', cost: '100' }),
      second: aPod('assigned', { phase: 'Pending', cost: '-100' }),
    },
    {
      name: '2. Pending before Running',
      first: aPod('pending', { phase: 'Pending' }),
      second: aPod('running', { phase: 'Running' }),
    },
    {
      name: '2. Pending before Unknown',
      first: aPod('pending', { phase: 'Pending' }),
      second: aPod('unknown', { phase: 'Unknown' }),
    },
    {
      name: '2. Unknown before Running',
      first: aPod('unknown', { phase: 'Unknown' }),
      second: aPod('running', { phase: 'Running' }),
    },
    {
      name: '3. not ready before ready',
      first: aPod('not-ready', { cost: '10' }),
      second: aPod('ready', { readyFor: 10 }),
    },
    {
      name: '4. lower pod-deletion-cost first',
      first: aPod('cheap', { readyFor: 10, cost: '-5' }),
      second: aPod('dear', { readyFor: 5000, cost: '3' }),
    },
    {
      name: '4. an invalid cost ("+5") counts as 0',
      first: aPod('invalid', { readyFor: 10, cost: '+5' }),
      second: aPod('one', { readyFor: 10, cost: '1' }),
    },
    {
      name: '6. ready for less time first (different log2 buckets)',
      first: aPod('recent', { readyFor: 60, age: 7200 }),
      second: aPod('long', { readyFor: 3600, age: 60 }),
    },
    {
      name: '6. same log2 bucket of ready time: smaller uid first, although ready for longer',
      first: aPod('x', { readyFor: 110, uid: 'uid-a' }),
      second: aPod('y', { readyFor: 100, uid: 'uid-b' }),
    },
    {
      name: '7. more container restarts first',
      first: aPod('crashy', { restarts: 3, age: 7200 }),
      second: aPod('steady', { restarts: 1, age: 60 }),
    },
    {
      name: '7. equal regular restarts: more sidecar restarts first',
      first: aPod('crashy-sidecar', { restarts: 1, sidecarRestarts: 4, age: 7200 }),
      second: aPod('steady-sidecar', { restarts: 1, sidecarRestarts: 0, age: 60 }),
    },
    {
      name: '8. newer first (different log2 buckets of age)',
      first: aPod('new', { age: 60 }),
      second: aPod('old', { age: 3600 }),
    },
    {
      name: '8. same log2 bucket of age: smaller uid first, although older',
      first: aPod('x', { age: 110, uid: 'uid-a' }),
      second: aPod('y', { age: 100, uid: 'uid-b' }),
    },
  ])('$name', ({ first, second }) => {
    const want = [first.metadata?.name, second.metadata?.name];
    expect(names(rankPodsForDeletion([first, second], [], NOW).map((r) => r.pod))).toEqual(want);
    expect(names(rankPodsForDeletion([second, first], [], NOW).map((r) => r.pod))).toEqual(want);
  });

  it('5. more related active pods on the same node first (getPodsRankedByRelatedPodsOnSameNode)', () => {
    const crowded = aPod('crowded', { readyFor: 60, node: 'node-a' });
    const alone = aPod('alone', { readyFor: 3600, node: 'node-b' });
    const related = [
      crowded,
      alone,
      aPod('sibling-1', { node: 'node-a', owner: 'uid-other-rs' }),
      aPod('sibling-2', { node: 'node-a', owner: 'uid-other-rs' }),
      aPod('sibling-gone', { node: 'node-b', owner: 'uid-other-rs', phase: 'Succeeded' }),
    ];
    // Without related pods rule 6 decides (alone has been ready longer, so crowded goes first either way);
    // make rule 6 point the other way to see rule 5 win.
    const crowdedLong = aPod('crowded', { readyFor: 3600, node: 'node-a' });
    const aloneRecent = aPod('alone', { readyFor: 60, node: 'node-b' });
    expect(names(podsToDelete([aloneRecent, crowdedLong], [], 1, NOW))).toEqual(['alone']);
    expect(names(podsToDelete([aloneRecent, crowdedLong], related, 1, NOW))).toEqual(['crowded']);
    expect(rankPodsForDeletion([alone, crowded], related, NOW).map((r) => r.rank)).toEqual([3, 1]);
  });

  it('deleting every pod skips the ranking and keeps the listed order', () => {
    const pods = [aPod('b', { readyFor: 10 }), aPod('a', { phase: 'Pending' })];
    expect(names(podsToDelete(pods, [], 2, NOW))).toEqual(['b', 'a']);
  });
});

describe('podDeletionCost (GetDeletionCostFromPodAnnotations)', () => {
  it.each([
    { raw: undefined, want: 0 },
    { raw: '0', want: 0 },
    { raw: '12', want: 12 },
    { raw: '-7', want: -7 },
    { raw: '-007', want: -7 },
    { raw: '007', want: 0 },
    { raw: '+5', want: 0 },
    { raw: '1.5', want: 0 },
    { raw: '', want: 0 },
    { raw: '2147483647', want: 2147483647 },
    { raw: '2147483648', want: 0 },
    { raw: '-2147483648', want: -2147483648 },
  ])('$raw → $want', ({ raw, want }) => {
    expect(podDeletionCost(aPod('p', raw === undefined ? {} : { cost: raw }))).toBe(want);
  });
});
