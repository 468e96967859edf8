// Queue shards: what sharding costs one worker process on one Redis (FLEETQ_QUEUE_SHARDS 1 against 3). Prints
// figures; asserts nothing.
//   npx tsx test/bench/queue-shards.ts [--runs 3] [--keys 6000] [--shards 1,3]
// On a redis-server of its own (no persistence, loopback). Throughput: --keys distinct keys of 12 clusters
// preloaded, then 8 async slots in this process drain them as a worker slot does (get, then done with thenGet);
// keys/s = keys / time until the last done. Wake latency: one idle slot blocked in get(), 100 keys added one every
// 20 ms to clusters spread over the shards; latency = add call → lease returned (p50, p99). Median of --runs runs.
import { parseArgs } from 'node:util';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { createQueue } from '../../shared/queue/index.js';
import { shardQueueNames } from '../../shared/queue/queue-shards.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { startOwnRedis } from '../helpers/queue/redis.js';
import { median, percentile } from '../helpers/stats.js';
import { Redis } from 'ioredis';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    keys: { type: 'string', default: '6000' },
    shards: { type: 'string', default: '1,3' },
  },
});
const RUNS = Number(values.runs);
const KEYS = Number(values.keys);
const SHARDS = (values.shards ?? '1,3').split(',').map(Number);
const SLOTS = 8;
const key = (i: number): ReconcileKey => ({ cluster: `c${i % 12}`, kind: 'Deployment', namespace: 'b', name: `d${i}` });

async function throughput(queue: WorkQueue): Promise<number> {
  for (let i = 0; i < KEYS; i += 500)
    await Promise.all(Array.from({ length: Math.min(500, KEYS - i) }, (_, j) => queue.add(key(i + j))));
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SLOTS }, async () => {
      while (done < KEYS) {
        const lease = await queue.get(200);
        if (!lease) continue;
        await queue.done(lease, undefined, { thenGet: done + SLOTS < KEYS });
        done++;
      }
    }),
  );
  return KEYS / ((performance.now() - started) / 1000);
}

async function wakeLatency(queue: WorkQueue): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < 100; i++) {
    const got = queue.get(5_000);
    await new Promise((r) => setTimeout(r, 20));
    const addedAt = performance.now();
    await queue.add(key(KEYS + i));
    const lease = await got;
    latencies.push(performance.now() - addedAt);
    if (lease) await queue.done(lease);
  }
  return latencies;
}

const own = await startOwnRedis();
const admin = new Redis(own.url);
try {
  console.log(
    `queue shards bench: ${KEYS} keys of 12 clusters, ${SLOTS} slots in one process, ${RUNS} runs, ${own.url}`,
  );
  const results = new Map<number, { keysPerSec: number[]; p50: number[]; p99: number[] }>();
  for (let run = 0; run < RUNS; run++) {
    for (const shards of SHARDS) {
      const name = `bench-${run}-${shards}`;
      const queue = await createQueue({ driver: 'redis', name, redisUrl: own.url, shards });
      const r = results.get(shards) ?? { keysPerSec: [], p50: [], p99: [] };
      r.keysPerSec.push(await throughput(queue));
      const lat = await wakeLatency(queue);
      r.p50.push(percentile(lat, 0.5)!);
      r.p99.push(percentile(lat, 0.99)!);
      results.set(shards, r);
      await queue.close();
      for (const n of shardQueueNames(name, shards)) await deleteQueueKeys(admin, redisKeyPrefix(n));
    }
  }
  const base = median(results.get(SHARDS[0]!)!.keysPerSec)!;
  console.log('shards  keys/s (median)  ratio to first  wake p50 ms  wake p99 ms');
  for (const [shards, r] of results) {
    const kps = median(r.keysPerSec)!;
    console.log(
      `${String(shards).padEnd(7)} ${kps.toFixed(0).padStart(15)} ${(kps / base).toFixed(2).padStart(15)} ` +
        `${median(r.p50)!.toFixed(2).padStart(12)} ${median(r.p99)!.toFixed(2).padStart(12)}`,
    );
  }
} finally {
  admin.disconnect();
  await own.stop();
}
