// A tick that cannot read or write its checkpoints (the stack's Redis down) fails the invocation: tick throws
// ForwarderTickError, so Lambda counts an error and an alarm can fire, instead of returning {ok: false} normally.
// Lambda mode (AWS_LAMBDA_FUNCTION_NAME), a redis-server of the test's own, stopped between two ticks.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ScheduledEvent } from 'aws-lambda';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForwarderTickError, closeTickDeps, tick } from '../../functions/forwarder.js';
import { startOwnRedis, type OwnRedis } from '../helpers/queue/redis.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';

describe('forwarder tick with its store down', () => {
  let redis: OwnRedis;
  let dir: string;
  let event: ScheduledEvent;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    redis = await startOwnRedis();
    dir = await mkdtemp(join(tmpdir(), 'fleetq-tick-outage-'));
    const c = await sandboxCluster('fleetq-1');
    await writeFile(
      join(dir, 'fleet.yaml'),
      `clusters:\n  - { name: fleetq-1, kubeconfig: ${c.state.kubeconfig}, owns: [ConfigMap] }\n`,
    );
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'fleetq-test-forwarder',
      FLEETQ_REGISTRY: join(dir, 'fleet.yaml'),
      FLEETQ_DRIVER: 'memory',
      REDIS_URL: redis.url,
      FORWARDER_RUN_MS: '1500',
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
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  });

  it('succeeds with Redis up, and throws ForwarderTickError naming the cluster once Redis is down', async () => {
    const ok = await tick(event, { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'ok' });
    expect(ok.results).toEqual([{ cluster: 'fleetq-1', ok: true }]);
    await redis.stop();
    const failed = tick(event, { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'outage' });
    await expect(failed).rejects.toBeInstanceOf(ForwarderTickError);
    await expect(failed).rejects.toThrow(/forwarder tick failed for fleetq-1/);
  });
});
