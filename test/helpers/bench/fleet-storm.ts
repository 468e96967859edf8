// The fleet bench's storm (test/bench/fleet.ts): many keys of one cluster at once, and how long a quiet key
// elsewhere waits behind them.
import { AppsV1Api } from '@kubernetes/client-node';
import type { Redis } from 'ioredis';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { waitFor } from '../../../infra/sandbox/process.js';
import { RedisQueue } from '../../../shared/queue/redis/redis-queue.js';
import {
  benchDeployment,
  commandCalls,
  createNamespace,
  deleteNamespace,
  kubeConfigOf,
  updateDeployment,
  waitComplete,
  type FleetPipeline,
} from '../pipeline/fleet-pipeline.js';

export type StormOptions = {
  /** Keys added at once. */
  readonly keys: number;
  readonly timeoutMs: number;
  /** Redis commands per second of the idle pipeline, subtracted from the storm's. */
  readonly idleCallsPerS: number;
  readonly load: () => string;
  readonly log: (m: string) => void;
};

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/**
 * Fairness under a storm. `keys` keys of the storm cluster (Deployments `storm/d-<i>` that do not exist: a
 * reconcile reads the cache, plans nothing) are added to the queue at once; right after, one Deployment's
 * replicas change, and the time until its status shows the new generation is the quiet key's wait plus one
 * reconcile. Three cases: unloaded (no storm); the quiet Deployment in another cluster (the Redis driver
 * rotates over clusters: fairness on); the quiet Deployment in the storm's own cluster (behind the storm in
 * that cluster's FIFO list: what a queue without per-cluster rotation does to every cluster; the driver has
 * no switch to turn the rotation off, so this is how "off" is measured).
 */
export async function storm(
  pipeline: FleetPipeline,
  clusters: ClusterState[],
  stormName: string,
  redis: Redis,
  redisUrl: string,
  o: StormOptions,
) {
  const { keys: STORM, timeoutMs: TIMEOUT_MS, idleCallsPerS, load, log } = o;
  const stormC = clusters[0] as ClusterState;
  const quietC = clusters[1] as ClusterState;
  const ns = `quiet-${pipeline.queue}`;
  const queue = new RedisQueue({ name: pipeline.queue, prefix: pipeline.prefix, redis: redisUrl });
  const cases: Array<{
    case: string;
    waitMs: number | null;
    drainMs?: number | null;
    /** Redis commands per storm key, from the add to the end of the drain (INFO commandstats). */
    callsPerKey?: number;
    load: string;
  }> = [];
  try {
    for (const c of [stormC, quietC]) {
      const kc = kubeConfigOf(c);
      await createNamespace(kc, ns);
      await kc
        .makeApiClient(AppsV1Api)
        .createNamespacedDeployment({ namespace: ns, body: benchDeployment('quiet', 1) });
      await waitComplete(kc, ns, 'quiet', Date.now(), TIMEOUT_MS);
    }
    const change = async (c: ClusterState): Promise<number | null> => {
      const kc = kubeConfigOf(c);
      const t = Date.now();
      const d = await updateDeployment(kc, ns, 'quiet', (x) => {
        if (x.spec) x.spec.replicas = (x.spec.replicas ?? 1) === 1 ? 2 : 1;
      });
      const gen = d.metadata?.generation ?? 0;
      const apps = kc.makeApiClient(AppsV1Api);
      try {
        await waitFor(
          async () =>
            ((await apps.readNamespacedDeployment({ namespace: ns, name: 'quiet' })).status?.observedGeneration ?? 0) >=
            gen,
          TIMEOUT_MS,
          20,
          'quiet observedGeneration',
        );
        return Date.now() - t;
      } catch {
        return null;
      }
    };
    const reconciled = async (): Promise<number> =>
      (await pipeline.workerSum('fleetq_reconcile_total', 'cluster')).get(stormName) ?? 0;
    const addStorm = async (): Promise<() => Promise<number | null>> => {
      const before = await reconciled();
      await redis.config('RESETSTAT');
      const t = Date.now();
      await Promise.all(
        Array.from({ length: STORM }, (_, i) =>
          queue.add({ cluster: stormName, kind: 'Deployment', namespace: 'storm', name: `d-${i}` }),
        ),
      );
      return async () => {
        try {
          await waitFor(async () => (await reconciled()) - before >= STORM, TIMEOUT_MS, 100, 'storm drained');
          return Date.now() - t;
        } catch {
          return null;
        }
      };
    };
    for (let i = 0; i < 3; i++)
      cases.push({ case: 'unloaded (quiet cluster)', waitMs: await change(quietC), load: load() });
    for (let i = 0; i < 3; i++) {
      const drained = await addStorm();
      const waitMs = await change(quietC);
      const drainMs = await drained();
      const calls = sum(await commandCalls(redis)) - (idleCallsPerS * (drainMs ?? 0)) / 1000;
      cases.push({
        case: 'storm, quiet key in another cluster (rotation: on)',
        waitMs,
        drainMs,
        callsPerKey: Math.round((calls / STORM) * 10) / 10,
        load: load(),
      });
    }
    for (let i = 0; i < 3; i++) {
      const drained = await addStorm();
      const waitMs = await change(stormC);
      cases.push({
        case: 'storm, quiet key in the storm cluster (FIFO: off)',
        waitMs,
        drainMs: await drained(),
        load: load(),
      });
    }
  } finally {
    await queue.close();
    await Promise.all([stormC, quietC].map((c) => deleteNamespace(kubeConfigOf(c), ns)));
  }
  for (const c of cases) log(`storm: ${c.case}: wait ${c.waitMs} ms, drain ${c.drainMs ?? '-'} ms, load ${c.load}`);
  return { keys: STORM, cases };
}
