import { describe, expect, it } from '@jest/globals';
import { assignClusters, assignedCounts } from '../../../shared/forwarder/cluster-assignment.js';

const clusters = (n: number) => Array.from({ length: n }, (_, i) => `cluster-${i}`);
const members = (n: number) => Array.from({ length: n }, (_, i) => `host/${100 + i}/m${i}`);

describe('assignClusters', () => {
  it.each([
    [6, 3],
    [7, 3],
    [20, 3],
    [1, 4],
    [100, 7],
  ])('%i clusters over %i forwarders: each gets floor or ceil of n/m, every cluster exactly one', (n, m) => {
    const a = assignClusters(clusters(n), members(m));
    expect([...a.keys()].sort()).toEqual(clusters(n).sort());
    for (const count of assignedCounts(a, members(m)).values()) {
      expect(count).toBeGreaterThanOrEqual(Math.floor(n / m));
      expect(count).toBeLessThanOrEqual(Math.ceil(n / m));
    }
  });

  it('is the same whatever order the inputs come in (every forwarder computes the same map)', () => {
    const a = assignClusters(clusters(12), members(4));
    const b = assignClusters([...clusters(12)].reverse(), [...members(4)].reverse());
    expect([...b].sort()).toEqual([...a].sort());
  });

  it('a forwarder leaving moves only its own clusters and a few to even out; joining takes ceil(n/m) at most', () => {
    const before = assignClusters(clusters(30), members(3));
    const gone = members(3)[2] as string;
    const after = assignClusters(clusters(30), members(3).slice(0, 2));
    const moved = [...before].filter(([c, m]) => m !== gone && after.get(c) !== m);
    expect(moved.length).toBeLessThanOrEqual(5);
    const joined = assignClusters(clusters(30), members(4));
    expect(assignedCounts(joined, members(4)).get(members(4)[3] as string)).toBeGreaterThanOrEqual(7);
  });

  it('a member that gave a cluster up is left out of its ranking; a cluster all gave up goes to none', () => {
    const before = assignClusters(clusters(6), members(3));
    const [cluster, owner] = [...before][0] as [string, string];
    const after = assignClusters(clusters(6), members(3), new Map([[cluster, new Set([owner])]]));
    expect(after.get(cluster)).toBeDefined();
    expect(after.get(cluster)).not.toBe(owner);
    expect(after.size).toBe(6);
    const none = assignClusters(clusters(6), members(3), new Map([[cluster, new Set(members(3))]]));
    expect(none.has(cluster)).toBe(false);
    expect(none.size).toBe(5);
  });

  it('a quarantined cluster is assigned to none, and the others are spread as if it were not registered', () => {
    const names = clusters(7);
    const quarantined = new Set([names[3] as string]);
    const a = assignClusters(names, members(3), new Map(), quarantined);
    expect(a.has(names[3] as string)).toBe(false);
    expect(a.size).toBe(6);
    expect([...assignedCounts(a, members(3)).values()]).toEqual([2, 2, 2]);
    expect([...a].sort()).toEqual(
      [
        ...assignClusters(
          names.filter((c) => !quarantined.has(c)),
          members(3),
        ),
      ].sort(),
    );
  });

  it('no members: nothing assigned', () => {
    expect(assignClusters(clusters(3), []).size).toBe(0);
  });
});
