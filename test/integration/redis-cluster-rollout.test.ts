// fleetq on a real Redis Cluster: the forwarder and a worker, as processes, given the six-node cluster's seeds
// (test/helpers/redis-cluster.ts) as REDIS_URL, roll out a Deployment on sandbox fleetq-1 (whose
// controller-manager runs no workload controllers, so only fleetq moves it; kwok makes the pods Ready). The
// queue, the checkpoints and the event log are all in the Redis Cluster.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { checkpointsKey } from '../../shared/queue/history/checkpoint-store.js';
import { eventStreamKey } from '../../shared/queue/history/redis-stream-event-log.js';
import type { RedisClient } from '../../shared/queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const NAME = 'web';
const LABELS = { app: 'redis-cluster-rollout' };
const REV = 'deployment.kubernetes.io/revision';

function deployment(image: string): V1Deployment {
  const template = kwokPodTemplate(LABELS);
  template.spec!.containers[0]!.image = image;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME },
    spec: { replicas: 2, selector: { matchLabels: LABELS }, template },
  };
}

describe('forwarder and worker on a Redis Cluster', () => {
  let redisCluster: RedisCluster;
  let redis: RedisClient;
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  const procs: Proc[] = [];

  beforeAll(async () => {
    [redisCluster, c] = await Promise.all([startRedisCluster(), sandboxCluster(CLUSTER)]);
    redis = redisCluster.client();
    ns = await testNamespace(c.kc);
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await ns?.remove();
    await redis?.quit();
    await redisCluster?.stop();
  });

  it('rolls out a Deployment and its update, the queue, checkpoints and event log in the Cluster', async () => {
    const queue = `rc-${randomUUID().slice(0, 8)}`;
    const env = {
      FLEETQ_REGISTRY: writeRegistry([
        { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['Deployment', 'ReplicaSet'] },
      ]),
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL: redisCluster.url,
      LOG_LEVEL: 'info',
    };
    const forwarder = spawnTsx(
      'functions/forwarder.ts',
      { ...env, FLEETQ_CHECKPOINTS: 'redis', FLEETQ_EVENT_LOG: 'redis', FLEETQ_RESYNC_MS: '0' },
      'forwarder',
    );
    const worker = spawnTsx(
      'functions/worker.ts',
      { ...env, FLEETQ_LEASE_MS: '3000', FLEETQ_CONCURRENCY: '4' },
      'worker',
    );
    procs.push(forwarder, worker);
    await Promise.all([
      forwarder.waitForLine(/"Forwarder running"/, 120_000),
      worker.waitForLine(/"Worker started"/, 120_000),
    ]);

    const apps = c.kc.makeApiClient(AppsV1Api);
    const rolledOut = (rev: string, image: string) => async (): Promise<boolean> => {
      const d = await apps.readNamespacedDeployment({ namespace: ns.name, name: NAME });
      return (
        d.metadata?.annotations?.[REV] === rev &&
        d.spec?.template.spec?.containers[0]?.image === image &&
        d.status?.observedGeneration === d.metadata?.generation &&
        d.status?.updatedReplicas === 2 &&
        d.status.availableReplicas === 2 &&
        d.status.replicas === 2
      );
    };
    await apps.createNamespacedDeployment({ namespace: ns.name, body: deployment('app:1') });
    await waitFor(rolledOut('1', 'app:1'), 90_000, 200, 'revision 1 rolled out');
    const current = await apps.readNamespacedDeployment({ namespace: ns.name, name: NAME });
    current.spec!.template.spec!.containers[0]!.image = 'app:2';
    await apps.replaceNamespacedDeployment({ namespace: ns.name, name: NAME, body: current });
    await waitFor(rolledOut('2', 'app:2'), 90_000, 200, 'revision 2 rolled out');

    // The state is in the Cluster: the queue's loss marker, the checkpoints and the cluster's event stream.
    expect(await redis.exists(redisKeys(redisKeyPrefix(queue)).epoch)).toBe(1);
    const storePrefix = `fleetq:${queue}`;
    // The forwarder writes its checkpoints every second (checkpoint-writer.ts): wait for the one after the rollout.
    await waitFor(
      async () => /^\d+$/.test((await redis.hget(checkpointsKey(storePrefix, CLUSTER), 'deployments')) ?? ''),
      10_000,
      100,
      'the deployments checkpoint in the Cluster',
    );
    expect(await redis.xlen(eventStreamKey(storePrefix, CLUSTER))).toBeGreaterThan(0);
    for (const p of [forwarder, worker]) expect(p.child.exitCode).toBeNull();
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(await forwarder.stop('SIGTERM')).toBe(0);
  });
});
