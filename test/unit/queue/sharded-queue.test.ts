// The sharded WorkQueue over memory queues as shards: routing by cluster, per-cluster fairness across shards,
// one wait over every shard, and the operator's views (dead letters, depth, backoff) over all of them.
import { describe, expect, it } from '@jest/globals';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { ShardedQueue, type ShardMember, type ShardPoll } from '../../../shared/queue/sharded-queue.js';
import type { ReconcileKey } from '../../../shared/kube/key.js';

// Shards of three over memory queues. Cluster → shard for N = 3 (pinned in queue-shards.test.ts):
// theta → 0; alpha, epsilon → 1; beta, gamma, delta → 2.
const SHARD_OF = { theta: 0, alpha: 1, epsilon: 1, beta: 2, gamma: 2, delta: 2 } as const;

/** A memory queue as a shard: poll is get(0); waitForWork ends at the next add to this shard or after ms. */
class MemoryShard extends MemoryQueue implements ShardMember {
  readonly polls: number[] = [];
  private wakers: Array<() => void> = [];

  constructor(readonly index: number) {
    super();
  }

  override async add(key: ReconcileKey): Promise<void> {
    await super.add(key);
    for (const wake of this.wakers.splice(0)) wake();
  }

  async poll(): Promise<ShardPoll> {
    this.polls.push(Date.now());
    const lease = await this.get(0);
    const clusters = new Set((await this.depthBreakdown()).map((b) => b.cluster));
    if (lease) clusters.add(lease.key.cluster);
    return { lease, waitHintMs: -1, readyClusters: clusters.size };
  }

  waitForWork(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'Deployment', namespace: 'ns', name });

function sharded(): { queue: ShardedQueue; shards: MemoryShard[] } {
  const shards = [0, 1, 2].map((i) => new MemoryShard(i));
  return { queue: new ShardedQueue(shards), shards };
}

describe('ShardedQueue', () => {
  it("adds a key to its cluster's shard only", async () => {
    const { queue, shards } = sharded();
    for (const cluster of Object.keys(SHARD_OF)) await queue.add(key(cluster, 'a'));
    expect(await Promise.all(shards.map((s) => s.depth()))).toEqual([1, 2, 3]);
    expect(await queue.depth()).toBe(6);
    await queue.close();
  });

  it('hands out every cluster an equal share, whichever shard it hashes to', async () => {
    const { queue } = sharded();
    for (const cluster of Object.keys(SHARD_OF)) for (let i = 0; i < 20; i++) await queue.add(key(cluster, `k${i}`));
    const counts = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const lease = await queue.get(0);
      if (!lease) throw new Error('no key handed out');
      counts.set(lease.key.cluster, (counts.get(lease.key.cluster) ?? 0) + 1);
      await queue.done(lease);
    }
    for (const cluster of Object.keys(SHARD_OF)) {
      expect(counts.get(cluster)).toBeGreaterThanOrEqual(9);
      expect(counts.get(cluster)).toBeLessThanOrEqual(11);
    }
    await queue.close();
  });

  it('answers a lease from its own shard (done releases it there, a re-add runs again)', async () => {
    const { queue, shards } = sharded();
    await queue.add(key('beta', 'x'));
    const lease = await queue.get(0);
    expect(lease?.key.cluster).toBe('beta');
    await queue.add(key('beta', 'x')); // dirty while held
    expect(await queue.done(lease!)).toEqual({ outcome: 'done' });
    expect(await shards[2]!.depth()).toBe(1);
    expect(await queue.renew(lease!)).toBe(false);
    await queue.close();
  });

  it('a blocked get wakes on a key added to any shard, not after waiting out the others', async () => {
    const { queue, shards } = sharded();
    const got = queue.get(60_000); // Jest's 5 s timeout fails the test if the wait were per shard in turn
    while (shards.some((s) => s.polls.length === 0)) await new Promise((r) => setImmediate(r));
    await queue.add(key('delta', 'late'));
    expect((await got)?.key).toEqual(key('delta', 'late'));
    await queue.close();
  });

  it('returns null after waitMs with every shard empty', async () => {
    const { queue } = sharded();
    expect(await queue.get(30)).toBeNull();
    await queue.close();
  });

  it('merges dead letters oldest first; a raw key is parked in its own shard; redrive covers every shard', async () => {
    const { queue, shards } = sharded();
    await queue.parkInvalid('gamma/Deployment/ns/raw', 'bad signature');
    await queue.parkInvalid('not a key', 'malformed');
    await queue.add(key('theta', 'dead'));
    const lease = await queue.get(0);
    await queue.deadLetter(lease!, 'unknown kind');
    expect((await shards[2]!.deadLetters()).map((d) => d.raw)).toEqual(['gamma/Deployment/ns/raw']);
    expect((await shards[0]!.deadLetters()).length).toBe(2);
    const letters = await queue.deadLetters();
    expect(letters.map((d) => d.reason).sort()).toEqual(['bad signature', 'malformed', 'unknown kind']);
    expect(letters.map((d) => d.at)).toEqual([...letters.map((d) => d.at)].sort((a, b) => a - b));
    expect(await queue.redrive(undefined, { raw: true })).toBe(2);
    expect(await shards[2]!.depth()).toBe(1);
    expect(await shards[0]!.depth()).toBe(1);
    await queue.close();
  });

  it('sums the backoff breakdown and depth breakdown over shards', async () => {
    const { queue } = sharded();
    await queue.add(key('alpha', 'a'));
    await queue.add(key('delta', 'd'));
    for (let i = 0; i < 2; i++) {
      const lease = await queue.get(0);
      await queue.retry(lease!, new Error('boom'));
    }
    expect((await queue.backoffBreakdown()).sort((a, b) => a.cluster.localeCompare(b.cluster))).toEqual([
      { cluster: 'alpha', keys: 1 },
      { cluster: 'delta', keys: 1 },
    ]);
    expect((await queue.depthBreakdown()).map((b) => b.cluster).sort()).toEqual(['alpha', 'delta']);
    await queue.close();
  });
});
