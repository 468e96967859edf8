// A relist that finishes after its forwarder lost the lease must not take the shared cache back in time.
// Holder A (a child process, real Redis) takes the lease on a cluster and starts a relist listed at
// resourceVersion 1000; after its first page it is paused (SIGSTOP) past its lease. Holder B takes the lease,
// lists at 1100 and applies newer events: pod x Failed (1200), pod y deleted (1201). A resumes (SIGCONT) and
// goes on with its pages and its end: its lease clock is frozen (the worst case: its last local check passed just
// before the pause), so only the fence in the cache's scripts can stop it. The cache keeps B's state: x Failed,
// y gone, the watermark 1201, and A reports its writes refused.
import { afterAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { fencedCacheStore } from '../../shared/cache/cache-fence.js';
import { cacheEntry } from '../../shared/cache/cache-entry.js';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { leaseCacheFence } from '../../shared/forwarder/fenced-writes.js';
import { ForwarderLease } from '../../shared/forwarder/forwarder-lease.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { REDIS_URL, redisClient } from '../helpers/queue/redis.js';

const redis = redisClient();
const id = randomUUID().slice(0, 8);
const queuePrefix = `test-${id}:{q}:`;
const cachePrefix = `test-${id}`;
const SECRET = 'relist-race-secret-0123456789';
const LEASE_MS = 1_500;
let holderA: Proc | undefined;

afterAll(async () => {
  if (holderA) {
    holderA.child.kill('SIGCONT');
    await holderA.stop('SIGKILL');
  }
  await deleteQueueKeys(redis, queuePrefix);
  await deleteQueueKeys(redis, `${cachePrefix}:{cache:c1}:`);
  await redis.quit();
});

const pod = (name: string, rv: number, phase = 'Running') =>
  cacheEntry('Pod', 'v1', {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(rv) },
    status: { phase },
  });

it("a paused holder that resumes after a takeover leaves the newer holder's cache as it was", async () => {
  const a = spawnTsx(
    'test/helpers/pipeline/relist-holder.ts',
    {
      REDIS_URL,
      RELIST_CLUSTER: 'c1',
      RELIST_QUEUE_PREFIX: queuePrefix,
      RELIST_CACHE_PREFIX: cachePrefix,
      RELIST_SECRET: SECRET,
      RELIST_LEASE_MS: String(LEASE_MS),
      RELIST_PODS: '400',
      RELIST_CLOCK: 'frozen',
    },
    'holder A',
  );
  holderA = a;
  await a.waitForLine(/^page 1$/, 30_000);
  a.child.kill('SIGSTOP');

  // B takes the lease once A's has expired in Redis.
  const leaseB = new ForwarderLease({ redis, queuePrefix, cluster: 'c1', holder: 'B', leaseMs: 60_000 });
  await waitFor(async () => (await leaseB.acquire()).acquired, 10_000, 100, 'B acquires the lease');
  const shared = new RedisCacheStore({ redis, cluster: 'c1', prefix: cachePrefix, signingSecrets: [SECRET] });
  const b = fencedCacheStore(shared, leaseCacheFence(leaseB));
  const listedByB = [...Array.from({ length: 400 }, (_, i) => pod(`p-${i}`, 500 + i)), pod('x', 990), pod('y', 991)];
  await b.replace('Pod', listedByB, '1100');
  await b.put(pod('x', 1200, 'Failed'), '1200');
  await b.remove('Pod', 'Pod/ns/y', '1201');

  a.child.kill('SIGCONT');
  const end = await a.waitForLine(/^(done|refused .*)$/, 30_000);
  expect(await a.exited).toBe(0);

  await shared.heartbeat(60_000);
  expect(await shared.get('Pod/ns/x')).toMatchObject({
    status: { phase: 'Failed' },
    metadata: { resourceVersion: '1200' },
  });
  expect(await shared.get('Pod/ns/y')).toBeNull();
  expect(await shared.watermark('Pod')).toBe('1201');
  expect(await shared.members('all:Pod')).toHaveLength(401);
  expect(end).toBe('refused ForwarderLeaseLost: forwarder lease on c1 lost: cache write refused by the fence');
});
