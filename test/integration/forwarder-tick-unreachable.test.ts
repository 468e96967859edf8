// A tick in which a cluster was never reached (no watch started, nothing listed) fails the invocation, naming the
// cluster, while the reachable cluster's run is done and checkpointed: Lambda's error metric sees a cluster the
// forwarder cannot watch. Lambda mode, with the stack's Redis (the test's own prefix).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ScheduledEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { ForwarderTickError, closeTickDeps, tick } from '../../functions/forwarder.js';
import { unreachableCluster, writeRegistry } from '../helpers/pipeline/fleet.js';
import { REDIS_URL, redisClient } from '../helpers/queue/redis.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';

describe('forwarder tick with a cluster it cannot reach', () => {
  const prefix = `test-${randomUUID()}`;
  const redis = redisClient();
  const savedEnv = { ...process.env };
  let event: ScheduledEvent;

  beforeAll(async () => {
    const c = await sandboxCluster('fleetq-1');
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'fleetq-test-forwarder',
      FLEETQ_REGISTRY: writeRegistry([
        { name: 'fleetq-1', kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'] },
        await unreachableCluster('gone'),
      ]),
      FLEETQ_DRIVER: 'memory',
      REDIS_URL,
      FLEETQ_REDIS_PREFIX: prefix,
      FORWARDER_RUN_MS: '2000',
      FLEETQ_EVENT_LOG: 'none',
      FLEETQ_RESYNC_MS: '0',
      LOG_LEVEL: 'error',
    });
    event = JSON.parse(
      await readFile(new URL('../../events/scheduled/forwarder-tick.json', import.meta.url), 'utf8'),
    ) as ScheduledEvent;
  });

  afterAll(async () => {
    await closeTickDeps();
    const keys = await redis.keys(`*${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  });

  it('throws ForwarderTickError for the unreachable cluster only; the other cluster is checkpointed', async () => {
    const failed = await tick(event, { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'r' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(ForwarderTickError);
    expect((failed as ForwarderTickError).failed).toEqual([
      { cluster: 'gone', ok: false, error: expect.stringMatching(/not synced within the run/) },
    ]);
    const stored = await readAllCheckpoints(redis, `${prefix}:fleetq`);
    expect(stored.get('fleetq-1')?.get('configmaps')).toMatch(/^\d+$/);
    expect(stored.has('gone')).toBe(false);
  });
});
