// CI's share of the fleet bench (test/bench/fleet.ts): 5 fleetq-mode sandbox clusters of its own (fl-ci-1..5, 3 kwok
// nodes each), one forwarder process and two worker processes on the Redis driver. Every cluster converges a
// Deployment created and then rolled to a new image, all clusters at once, and no key waited in the queue
// longer than 10 s (workqueue_queue_duration_seconds over both workers). The clusters are stopped at the end.
// FLEET_CI_CLUSTERS changes the count.
// The clusters start two at a time (startFleetClusters in test/helpers/pipeline/fleet-pipeline.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import {
  deleteByPrefix,
  FLEET_REDIS_URL,
  FleetPipeline,
  rollout,
  startFleetClusters,
  stopFleetClusters,
} from '../helpers/pipeline/fleet-pipeline.js';

const CLUSTERS = Number(process.env.FLEET_CI_CLUSTERS ?? 5);
const WAIT_BOUND_S = 10;

let clusters: ClusterState[] = [];
let pipeline: FleetPipeline | undefined;

describe('fleet of sandbox clusters', () => {
  beforeAll(async () => {
    const t = Date.now();
    clusters = await startFleetClusters('fl-ci', CLUSTERS, 3);
    console.log(`fleet: ${clusters.length} clusters up in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    pipeline = new FleetPipeline({ clusters, workers: 2, concurrency: 8 });
    await pipeline.start();
  }, 600_000);

  afterAll(async () => {
    await pipeline?.stop();
    if (pipeline) {
      const redis = new Redis(FLEET_REDIS_URL);
      await deleteByPrefix(redis, pipeline.prefix);
      redis.disconnect();
    }
    if (clusters.length > 0) await stopFleetClusters(clusters);
  }, 300_000);

  it('every cluster of the fleet converges a rollout, and no key waits longer than the bound', async () => {
    const p = pipeline as FleetPipeline;
    const t = Date.now();
    const results = await Promise.all(clusters.map((c) => rollout(c, `fleet-${p.queue}`, 6, 240_000)));
    console.log(`fleet: rollouts ${JSON.stringify(results)} in ${Date.now() - t} ms`);
    for (const r of results) {
      expect({ cluster: r.cluster, created: r.createMs !== null, updated: r.updateMs !== null }).toEqual({
        cluster: r.cluster,
        created: true,
        updated: true,
      });
    }
    const waits = await p.queueWaits(WAIT_BOUND_S);
    console.log(`fleet: queue waits ${JSON.stringify(waits)}`);
    expect(waits.count).toBeGreaterThan(clusters.length * 2);
    expect(waits.over).toBe(0);
    const requests = await p.workerSum('fleetq_kube_requests_total', 'cluster');
    for (const c of clusters) expect(requests.get(c.name) ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
