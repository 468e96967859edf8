// Queue latency: the memory driver's oldestReadyBreakdown on a fixed clock, and the parsing of the redis driver's
// script reply (lua/oldest-ready.lua), whose figures come from Redis and are untrusted.
import { describe, expect, it } from '@jest/globals';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { mergeOldestReady, parseOldestReadyReply } from '../../../shared/queue/oldest-ready.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'ConfigMap', namespace: 'ns', name });

describe('MemoryQueue.oldestReadyBreakdown', () => {
  it('gives per cluster the age of the ready key that has waited longest; delayed and held keys do not count', async () => {
    let now = T0;
    const q = new MemoryQueue({ now: () => now, leaseMs: 60_000 });
    await q.addAfter(key('a', 'due'), 1_000); // ready at T0+1s, due but not yet moved by a get()
    now = T0 + 3_000;
    await q.add(key('a', 'newer')); // ready at T0+3s
    await q.add(key('b', 'held')); // taken below: held keys are not waiting
    await q.add(key('c', 'held'));
    await q.addAfter(key('c', 'later'), 60_000); // only delayed keys left for c
    const taken = [await q.get(), await q.get(), await q.get()].map((l) => l?.key.cluster).sort();
    expect(taken).toEqual(['a', 'b', 'c']);
    now = T0 + 10_000;
    await q.add(key('b', 'x')); // b's only waiting key, ready at T0+10s

    const got = await q.oldestReadyBreakdown();
    const byCluster = Object.fromEntries(got.clusters.map((r) => [r.cluster, r]));
    // The get took a's list head, `newer`; `due` was moved behind it by that get and has waited longest.
    expect(byCluster).toEqual({
      a: { cluster: 'a', oldestReadyAt: T0 + 1_000, ageMs: 9_000, exact: true },
      b: { cluster: 'b', oldestReadyAt: T0 + 10_000, ageMs: 0, exact: true },
    });
    expect(got).toMatchObject({ unusable: 0, dueTruncated: false });
  });

  it('counts a delayed key from the end of its delay once that has passed', async () => {
    let now = T0;
    const q = new MemoryQueue({ now: () => now });
    await q.addAfter(key('a', 'k'), 2_000);
    expect((await q.oldestReadyBreakdown()).clusters).toEqual([]);
    now = T0 + 5_000;
    expect((await q.oldestReadyBreakdown()).clusters).toEqual([
      { cluster: 'a', oldestReadyAt: T0 + 2_000, ageMs: 3_000, exact: true },
    ]);
  });
});

describe('parseOldestReadyReply', () => {
  const NOW = T0 + 60_000;
  it.each([
    {
      name: 'a cluster with a ready key, one without',
      reply: [String(NOW), '0', 'a', String(T0), '3', '3', '0', 'b', '', '0', '0', '0'],
      want: { clusters: [{ cluster: 'a', oldestReadyAt: T0, ageMs: 60_000, exact: true }], unusable: 0 },
    },
    {
      name: 'a list longer than was read: a lower bound',
      reply: [String(NOW), '0', 'a', String(NOW - 5), '150', '100', '0'],
      want: { clusters: [{ cluster: 'a', oldestReadyAt: NOW - 5, ageMs: 5, exact: false }], unusable: 0 },
    },
    {
      name: 'skipped entries the script counted',
      reply: [String(NOW), '0', 'a', '', '2', '2', '2'],
      want: { clusters: [], unusable: 2 },
    },
    {
      name: 'a figure that is not a usable time (not a number, in the future, zero) is left out and counted',
      reply: [
        String(NOW),
        '0',
        'a',
        'nan',
        '1',
        '1',
        '0',
        'b',
        String(NOW + 1),
        '1',
        '1',
        '0',
        'c',
        '0',
        '1',
        '1',
        '0',
      ],
      want: { clusters: [], unusable: 3 },
    },
  ])('$name', ({ reply, want }) =>
    expect(parseOldestReadyReply(reply, 1000)).toEqual({ ...want, dueTruncated: false }),
  );

  it('says when the due delayed keys read reached the limit', () => {
    expect(parseOldestReadyReply([String(NOW), '1000'], 1000).dueTruncated).toBe(true);
    expect(parseOldestReadyReply([String(NOW), '999'], 1000).dueTruncated).toBe(false);
  });

  it('refuses a reply that is not the script’s', () => {
    expect(() => parseOldestReadyReply('OK', 1000)).toThrow(/not a list/);
    expect(() => parseOldestReadyReply(['x', '0'], 1000)).toThrow(/server time/);
  });

  it('merges the replies of several calls', () => {
    const a = parseOldestReadyReply([String(NOW), '0', 'a', String(T0), '1', '1', '1'], 1000);
    const b = parseOldestReadyReply([String(NOW), '1000', 'b', String(T0), '1', '1', '0'], 1000);
    expect(mergeOldestReady([a, b])).toEqual({
      clusters: [...a.clusters, ...b.clusters],
      unusable: 1,
      dueTruncated: true,
    });
  });
});
