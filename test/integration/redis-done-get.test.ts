// The Redis driver's done(lease, after, { thenGet: true }): the release and the next hand-out in one script and
// one round trip (a worker slot asks for its next key at once). Real Redis; the round trips are counted on the
// queue's own ioredis client. The contract's guarantees must hold through this path as through get().
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { BAD_SIGNATURE, signKey } from '../../shared/queue/message-signing.js';
import { RedisQueue, type RedisQueueOptions } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import type { Lease } from '../../shared/queue/work-queue.js';
import { REDIS_URL, testQueueName } from '../helpers/queue/redis.js';

jest.setTimeout(30_000);

const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'Deployment', namespace: 'd', name });

type Opened = { queue: RedisQueue; client: Redis; scripts: () => number };
const opened: Opened[] = [];

/**
 * A queue on its own client whose script runs (one round trip each: EVAL for a script's first run, EVALSHA for the
 * others; shared/lua/script-runner.ts) are counted.
 */
function open(name: string, options: Partial<RedisQueueOptions> = {}): Opened {
  const client = new Redis(REDIS_URL, { enableAutoPipelining: true });
  let calls = 0;
  type Run = (...args: unknown[]) => Promise<unknown>;
  const counted = client as unknown as { eval: Run; evalsha: Run };
  for (const command of ['eval', 'evalsha'] as const) {
    const run = counted[command].bind(client);
    counted[command] = (...args) => {
      calls++;
      return run(...args);
    };
  }
  const queue = new RedisQueue({ leaseMs: 10_000, ...options, name, redis: client });
  const o = { queue, client, scripts: () => calls };
  opened.push(o);
  return o;
}

async function mustGet(queue: RedisQueue): Promise<Lease> {
  const lease = await queue.get(2_000);
  if (!lease) throw new Error('no lease within 2 s');
  return lease;
}

afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.queue.close();
    await deleteQueueKeys(o.client, o.queue.prefix);
    o.client.disconnect();
  }
});

describe('Redis driver: done with thenGet', () => {
  it('releases and hands out the next key in one round trip; the next get() costs none', async () => {
    const { queue, client, scripts } = open(testQueueName());
    const keys = redisKeys(queue.prefix);
    for (const n of ['a', 'b', 'c']) await queue.add(key('x', n));
    const first = await mustGet(queue);
    const before = scripts();
    expect(await queue.done(first, undefined, { thenGet: true })).toEqual({ outcome: 'done' });
    expect(scripts() - before).toBe(1);
    // Held in Redis before this process asked for it: the hand-out was the release's.
    expect(await client.hlen(keys.held)).toBe(1);
    const second = await mustGet(queue);
    expect(scripts() - before).toBe(1);
    expect(second.id).not.toBe(first.id);
    expect(await client.hexists(keys.held, second.id)).toBe(1);
    expect(await client.hexists(keys.held, first.id)).toBe(0);
    // Without thenGet, done is a release only, and get() is its own round trip.
    await queue.done(second);
    expect(await client.hlen(keys.held)).toBe(0);
    const third = await mustGet(queue);
    expect(scripts() - before).toBe(3);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
  });

  it('keeps the contract through the combined script: a dirty key runs again, a requeue is scheduled, nothing twice', async () => {
    const { queue } = open(testQueueName());
    await queue.add(key('x', 'a'));
    const first = await mustGet(queue);
    await queue.add(key('x', 'a')); // dirty while held
    expect(await queue.done(first, 60_000, { thenGet: true })).toEqual({ outcome: 'done' });
    const again = await mustGet(queue);
    expect(again.id).toBe(first.id);
    expect(again.token).not.toBe(first.token);
    expect(await queue.done(again, 60_000, { thenGet: true })).toEqual({ outcome: 'done' });
    // The requeue is 60 s ahead: nothing is ready now, and the key waits (delayed) exactly once.
    expect(await queue.get(100)).toBeNull();
    expect(await queue.depth()).toBe(1);
  });

  it('a lost lease is refused and changes nothing, and the next key is still handed out', async () => {
    const name = testQueueName();
    const { queue } = open(name, { leaseMs: 200 });
    // The other holder's leases last 10 s: on a loaded machine a 200 ms lease of its own could lapse between two
    // calls and hand its own key back to it before the stale one.
    const other = open(name).queue;
    await queue.add(key('x', 'a'));
    await queue.add(key('y', 'b'));
    const stale = await mustGet(queue);
    const taken = await mustGet(other); // y/b
    // stale's lease expires and another holder takes the key.
    let current: Lease | null = null;
    const deadline = Date.now() + 5_000;
    while (current === null && Date.now() < deadline) current = await other.get(100);
    expect(current?.id).toBe(stale.id);
    expect(await queue.done(stale, 0, { thenGet: true })).toEqual({ outcome: 'lease-lost' });
    expect(await other.renew(current as Lease)).toBe(true);
    expect(await other.done(current as Lease)).toEqual({ outcome: 'done' });
    expect(await other.done(taken)).toEqual({ outcome: 'done' });
  });

  it('a key taken with the release and never asked for is given back by close(): ready at once, no failure', async () => {
    const name = testQueueName();
    const a = open(name);
    await a.queue.add(key('x', 'a'));
    await a.queue.add(key('x', 'b'));
    const first = await mustGet(a.queue);
    await a.queue.done(first, undefined, { thenGet: true });
    await a.queue.close();
    const b = open(name).queue;
    const started = Date.now();
    const handedBack = await mustGet(b);
    expect(Date.now() - started).toBeLessThan(1_000); // not after its 10 s lease ran out
    expect(handedBack.id).not.toBe(first.id);
    expect(handedBack.failures).toBe(0);
  });

  it('respects the cluster cap: a capped cluster gets its next key only because the release freed a slot', async () => {
    const { queue, client } = open(testQueueName(), { clusterConcurrency: 1 });
    const keys = redisKeys(queue.prefix);
    for (const n of ['a', 'b', 'c']) await queue.add(key('x', n));
    const first = await mustGet(queue);
    await queue.done(first, undefined, { thenGet: true });
    expect(await client.hget(keys.heldPerCluster, 'x')).toBe('1');
    const second = await mustGet(queue);
    expect(second.key.cluster).toBe('x');
    // At the cap, a get() finds nothing while second is held.
    expect(await queue.get(100)).toBeNull();
    await queue.done(second, undefined, { thenGet: true });
    expect(await client.hget(keys.heldPerCluster, 'x')).toBe('1');
  });

  it('dead-letters a forged key met by the combined script and never hands it out', async () => {
    const secret = 's3cret';
    const { queue, client } = open(testQueueName(), { signingSecret: secret });
    const keys = redisKeys(queue.prefix);
    await queue.add(key('x', 'a'));
    const first = await mustGet(queue);
    // A forging writer's entry: pending, ready, in rotation, with a wrong signature.
    const forged = 'x/Deployment/d/forged';
    await client.hset(keys.pending, forged, Date.now());
    await client.rpush(keys.ready('x'), forged);
    await client.hset(keys.signatures, forged, signKey('wrong', forged));
    await queue.done(first, undefined, { thenGet: true });
    expect(await queue.get(100)).toBeNull();
    const letters = await queue.deadLetters();
    expect(letters.map((d) => ({ key: d.key, raw: d.raw, reason: d.reason }))).toEqual([
      { key: null, raw: forged, reason: BAD_SIGNATURE },
    ]);
  });
});
