// The Redis driver's drain of a removed cluster (lua/drain-cluster.lua through RedisQueue.drainCluster): its
// waiting keys leave with their counts and signatures, a held key finishes its run but never runs again, other
// clusters are untouched, and a key named to delete in the same step goes too. Real Redis.
import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { REDIS_URL, testQueueName } from '../helpers/queue/redis.js';

jest.setTimeout(30_000);

const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'Deployment', namespace: 'd', name });

const client = new Redis(REDIS_URL);
const queues: RedisQueue[] = [];

afterEach(async () => {
  for (const q of queues.splice(0)) {
    await q.close();
    await deleteQueueKeys(client, q.prefix);
  }
});
afterAll(() => client.disconnect());

function open(): RedisQueue {
  const q = new RedisQueue({ name: testQueueName(), redis: client, leaseMs: 10_000, signingSecret: 's'.repeat(32) });
  queues.push(q);
  return q;
}

describe('Redis driver: drainCluster', () => {
  it('drops the cluster’s waiting keys and rerun marks, keeps its held run and other clusters, deletes the extra key', async () => {
    const q = open();
    const keys = redisKeys(q.prefix);
    await q.add(key('gone', 'held'));
    const held = await q.get(1_000);
    expect(held?.id).toBe('gone/Deployment/d/held');
    await q.add(key('gone', 'held')); // held: a rerun mark
    await q.add(key('gone', 'ready'));
    await q.addAfter(key('gone', 'later'), 60_000);
    await q.add(key('kept', 'ready'));
    const fence = `${q.prefix}fwd:lease:gone`;
    await client.set(fence, '7|someone');

    expect(await q.drainCluster('gone', { alsoDelete: fence })).toEqual({ dropped: 2, rerunMarks: 1 });

    expect(await client.hkeys(keys.pending)).toEqual(['kept/Deployment/d/ready']);
    expect(await client.zcard(keys.delayed)).toBe(0);
    expect(await client.exists(keys.ready('gone'), fence)).toBe(0);
    expect(await client.hkeys(keys.dirty)).toEqual([]);
    expect((await client.hkeys(keys.signatures)).sort()).toEqual(['gone/Deployment/d/held', 'kept/Deployment/d/ready']);
    // The held run finishes; nothing of the cluster runs after it.
    expect(await q.done(held!)).toEqual({ outcome: 'done' });
    expect((await q.get(200))?.id).toBe('kept/Deployment/d/ready');
    expect(await q.get(200)).toBeNull();
    // Idempotent.
    expect(await q.drainCluster('gone')).toEqual({ dropped: 0, rerunMarks: 0 });
  });

  it('refuses to delete a key outside the queue', async () => {
    const q = open();
    await expect(q.drainCluster('gone', { alsoDelete: 'elsewhere' })).rejects.toThrow(RangeError);
  });
});
