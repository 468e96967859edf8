// A forwarder's relist of Pods into a shared cache, behind its lease, as a child process a chaos test can pause
// (test/chaos/relist-race.test.ts). It takes the lease on RELIST_CLUSTER, lists RELIST_PODS Running pods at
// resourceVersion 1000 in pages of 200 (a pause between pages, as fetching the next page takes), prints
// `page <n>` after each, and `done` or `refused <error name>: <message>` at the end.
// RELIST_CLOCK=frozen: its lease clock never moves, so the local deadline never stops it: only Redis can.
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheEntry } from '../../../shared/cache/cache-entry.js';
import { fencedCacheStore } from '../../../shared/cache/cache-fence.js';
import { RedisCacheStore } from '../../../shared/cache/redis-cache-store.js';
import { leaseCacheFence } from '../../../shared/forwarder/fenced-writes.js';
import { ForwarderLease } from '../../../shared/forwarder/forwarder-lease.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set`);
  return v;
};

const PAGE = 200;

async function main(): Promise<void> {
  const redis = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 3 });
  const cluster = env('RELIST_CLUSTER');
  const lease = new ForwarderLease({
    redis,
    queuePrefix: env('RELIST_QUEUE_PREFIX'),
    cluster,
    holder: 'A',
    leaseMs: Number(env('RELIST_LEASE_MS')),
    ...(process.env.RELIST_CLOCK === 'frozen' && { clock: () => 0 }),
  });
  const got = await lease.acquire();
  if (!got.acquired) throw new Error('lease not acquired');
  const store = fencedCacheStore(
    new RedisCacheStore({
      redis,
      cluster,
      prefix: env('RELIST_CACHE_PREFIX'),
      signingSecrets: [env('RELIST_SECRET')],
    }),
    leaseCacheFence(lease),
  );
  const pod = (name: string, rv: number) =>
    cacheEntry('Pod', 'v1', {
      metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(rv) },
      status: { phase: 'Running' },
    });
  const listed = [
    ...Array.from({ length: Number(env('RELIST_PODS')) }, (_, i) => pod(`p-${i}`, 500 + i)),
    pod('x', 990),
    pod('y', 991),
  ];
  try {
    await store.beginReplace('Pod');
    for (let i = 0; i < listed.length; i += PAGE) {
      await store.putListed(listed.slice(i, i + PAGE));
      process.stdout.write(`page ${i / PAGE + 1}\n`);
      await sleep(300);
    }
    await store.endReplace('Pod', new Set(listed.map((e) => e.id)), '1000');
    process.stdout.write('done\n');
  } catch (err) {
    const e = err as Error;
    process.stdout.write(`refused ${e.name}: ${e.message}\n`);
  }
  await redis.quit();
}

main().catch((err: unknown) => {
  process.stderr.write(`relist-holder: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
