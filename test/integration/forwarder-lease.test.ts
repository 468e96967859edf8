// The forwarder lease and its fence on real Redis: one holder at a time, tokens that only grow, a lease that
// expires when not renewed, and fenced enqueues and checkpoint writes refused (nothing written) once the lease
// is someone else's, seen through the Redis driver's own state.
import { afterAll, describe, expect, it } from '@jest/globals';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import {
  ForwarderLease,
  ForwarderLeaseLost,
  readLeaseHolders,
  readWriterTokens,
} from '../../shared/forwarder/forwarder-lease.js';
import { FencedCheckpoints, FencedQueue } from '../../shared/forwarder/fenced-writes.js';
import type { QueueOptions } from '../../shared/queue/work-queue.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';
import { waitFor } from '../../infra/sandbox/process.js';

const redis = redisClient();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  await redis.quit();
});

function fixture(leaseMs = 1_500, queueOptions: QueueOptions = {}) {
  const name = testQueueName();
  const queue = new RedisQueue({ ...queueOptions, name, redis });
  const checkpoints = new RedisCheckpointStore(redis, name);
  cleanups.push(
    () => queue.close(), // its blocking get() connections (the shared client stays open)
    () => deleteQueueKeys(redis, queue.prefix),
    () => checkpoints.clear(),
  );
  const lease = (holder: string, cluster = 'c1') =>
    new ForwarderLease({ redis, queuePrefix: queue.prefix, cluster, holder, leaseMs });
  const writes = (l: ForwarderLease) => ({
    queue: new FencedQueue({ queue, lease: l }),
    checkpoints: new FencedCheckpoints(checkpoints, l),
  });
  return { name, queue, checkpoints, lease, writes };
}

const key = (name: string) => ({ cluster: 'c1', kind: 'Deployment', namespace: 'ns', name });

describe('forwarder lease', () => {
  it('is held by one forwarder at a time; a second acquire is refused until it is released', async () => {
    const f = fixture();
    const a = f.lease('A');
    const b = f.lease('B');
    const got = await a.acquire();
    expect(got).toMatchObject({ acquired: true, token: 1, gapMs: -1 });
    expect(await b.acquire()).toEqual({ acquired: false });
    const holders = await readLeaseHolders(redis, f.queue.prefix);
    expect(holders.get('c1')).toMatchObject({ holder: 'A', token: 1 });
    expect(await a.renew()).toBe(true);
    expect(await a.release()).toBe(true);
    expect(await b.acquire()).toMatchObject({ acquired: true, token: 2 });
    expect(a.held()).toBe(false);
    expect(await a.renew()).toBe(false);
  });

  it('fences enqueues and checkpoint writes: after expiry and takeover the old holder writes nothing', async () => {
    const f = fixture(1_000);
    const a = f.lease('A');
    const b = f.lease('B');
    await a.acquire();
    const wa = f.writes(a);
    await wa.queue.add(key('one'));
    await wa.checkpoints.save('c1', new Map([['deployments', '10']]));
    expect(await f.queue.depth()).toBe(1);
    // A is "paused": no renewal. The key expires in Redis; B takes it.
    await waitFor(async () => (await b.acquire()).acquired, 5_000, 50, 'B takes the lease');
    const wb = f.writes(b);
    await wb.queue.add(key('two'));
    await wb.checkpoints.save('c1', new Map([['deployments', '20']]));
    // A resumes: its local deadline has passed, so nothing is even sent...
    await expect(wa.queue.add(key('stale'))).rejects.toBeInstanceOf(ForwarderLeaseLost);
    await expect(wa.checkpoints.save('c1', new Map([['deployments', '5']]))).rejects.toBeInstanceOf(ForwarderLeaseLost);
    // ...and were its clock wrong (a deadline that did not pass), Redis refuses it: the compare is in the script.
    const fooled = f.lease('A');
    Object.assign(fooled, { token: a.currentToken, deadline: Infinity, lost: undefined });
    const wf = f.writes(fooled);
    await expect(wf.queue.add(key('stale2'))).rejects.toBeInstanceOf(ForwarderLeaseLost);
    await expect(wf.checkpoints.save('c1', new Map([['deployments', '6']]))).rejects.toBeInstanceOf(ForwarderLeaseLost);
    const ids = await redis.hkeys(`${f.queue.prefix}pending`);
    expect(ids.sort()).toEqual(['c1/Deployment/ns/one', 'c1/Deployment/ns/two']);
    expect(await redis.hget(f.checkpoints.keyFor('c1'), 'deployments')).toBe('20');
    expect(await readWriterTokens(redis, 'c1', f.queue.prefix)).toEqual([1, 2]);
  });

  it('a fenced add is the queue add: a key taken by a worker comes back once after it (dirty)', async () => {
    const f = fixture();
    const a = f.lease('A');
    await a.acquire();
    const wa = f.writes(a);
    await wa.queue.add(key('x'));
    const lease = await f.queue.get(1_000);
    expect(lease?.id).toBe('c1/Deployment/ns/x');
    await wa.queue.add(key('x'));
    expect(await f.queue.get(0)).toBeNull();
    await f.queue.done(lease!);
    expect((await f.queue.get(1_000))?.id).toBe('c1/Deployment/ns/x');
  });

  it('a fenced addAfter is the queue addAfter: delayed, dirty on a held key, and refused once the lease is lost', async () => {
    const f = fixture(1_000);
    const a = f.lease('A');
    await a.acquire();
    const wa = f.writes(a);
    await wa.queue.addAfter(key('later'), 60_000);
    expect(await redis.zrange(`${f.queue.prefix}delayed`, '0', '-1')).toEqual(['c1/Deployment/ns/later']);
    expect(await f.queue.get(0)).toBeNull();
    // On a key a worker holds: it comes back once after done, when its time has come.
    await wa.queue.add(key('x'));
    const lease = await f.queue.get(1_000);
    expect(lease?.id).toBe('c1/Deployment/ns/x');
    await wa.queue.addAfter(key('x'), 300);
    expect(await redis.hexists(`${f.queue.prefix}dirty`, 'c1/Deployment/ns/x')).toBe(1);
    await f.queue.done(lease!);
    expect((await f.queue.get(2_000))?.id).toBe('c1/Deployment/ns/x');
    // A lease lost (expired, taken over): nothing is written, and the forwarder is told.
    const b = f.lease('B');
    await waitFor(async () => (await b.acquire()).acquired, 5_000, 50, 'B takes the lease');
    const fooled = f.lease('A');
    Object.assign(fooled, { token: a.currentToken, deadline: Infinity, lost: undefined });
    await expect(f.writes(fooled).queue.addAfter(key('stale'), 300)).rejects.toBeInstanceOf(ForwarderLeaseLost);
    await expect(wa.queue.addAfter(key('stale'), 300)).rejects.toBeInstanceOf(ForwarderLeaseLost);
    expect(await redis.hexists(`${f.queue.prefix}pending`, 'c1/Deployment/ns/stale')).toBe(0);
  });

  it("a fenced add on a signed queue carries the queue's signature: the worker takes it, a wrong secret is dead-lettered", async () => {
    const f = fixture(1_500, { signingSecret: 'pool-secret' });
    const a = f.lease('A');
    await a.acquire();
    await f.writes(a).queue.add(key('signed'));
    const lease = await f.queue.get(1_000);
    expect(lease?.id).toBe('c1/Deployment/ns/signed');
    await f.queue.done(lease!);
    // A fenced queue over a queue given another secret signs differently: the worker refuses the key, as any
    // forged entry.
    const other = new RedisQueue({ name: f.name, redis, signingSecret: 'another-secret' });
    cleanups.push(() => other.close());
    const forged = new FencedQueue({ queue: other, lease: a });
    await forged.add(key('forged'));
    expect(await f.queue.get(200)).toBeNull();
    // Parked as raw text (a key whose signature fails is not trusted as a key).
    expect((await f.queue.deadLetters()).map((d) => (d.key === null ? [d.raw, d.reason] : d.key))).toEqual([
      ['c1/Deployment/ns/forged', 'bad signature'],
    ]);
  });

  it("the driver's fenced add refuses a fence whose keys are not in the queue's slot, writing nothing", async () => {
    const f = fixture();
    const a = f.lease('A');
    await a.acquire();
    const fence = a.fence();
    for (const outside of [
      { ...fence, leaseKey: `elsewhere:${fence.leaseKey}` },
      { ...fence, writersKey: `elsewhere:${fence.writersKey}` },
    ])
      await expect(f.queue.addFenced(key('outside'), outside)).rejects.toThrow(RangeError);
    expect(await redis.hkeys(`${f.queue.prefix}pending`)).toEqual([]);
    // (A fresh test queue has no data-loss marker: the add says so.)
    expect(await f.queue.addFenced(key('inside'), fence)).toBe('added-epoch-missing');
    expect(await redis.hkeys(`${f.queue.prefix}pending`)).toEqual(['c1/Deployment/ns/inside']);
  });

  it('a fenced add that finds the data-loss marker gone adds the key and says so (onEpochMissing)', async () => {
    const f = fixture();
    const a = f.lease('A');
    await a.acquire();
    let told = 0;
    const fenced = new FencedQueue({ queue: f.queue, lease: a, onEpochMissing: () => told++ });
    const marker = redisKeys(f.queue.prefix).epoch;
    cleanups.push(() => redis.del(marker));
    await redis.set(marker, 'e1');
    await fenced.add(key('before-loss'));
    expect(told).toBe(0);
    await redis.del(marker); // what a FLUSHALL does to it
    await fenced.add(key('after-loss'));
    expect(told).toBe(1);
    expect((await redis.hkeys(`${f.queue.prefix}pending`)).sort()).toEqual([
      'c1/Deployment/ns/after-loss',
      'c1/Deployment/ns/before-loss',
    ]);
  });
});
