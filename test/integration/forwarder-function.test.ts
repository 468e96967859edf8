// functions/forwarder.ts `tick`, the scheduled Lambda, invoked directly with the sample event: every registered
// cluster is watched for FORWARDER_RUN_MS from the checkpoints in Redis, and the next tick resumes from them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScheduledEvent } from 'aws-lambda';
import { readAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { closeTickDeps, tick } from '../../functions/forwarder.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';

describe('forwarder tick (scheduled Lambda)', () => {
  const redis = redisClient();
  const prefix = `test-${randomUUID()}`;
  let dir: string;
  let event: ScheduledEvent;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-tick-'));
    const [a, b] = await Promise.all([sandboxCluster('fleetq-1'), sandboxCluster('fleetq-2')]);
    const registry = [
      'defaults:',
      '  owns: [Deployment, ConfigMap]',
      'clusters:',
      `  - { name: fleetq-1, kubeconfig: ${a.state.kubeconfig} }`,
      `  - { name: fleetq-2, kubeconfig: ${b.state.kubeconfig} }`,
    ].join('\n');
    await writeFile(join(dir, 'registry.yaml'), registry);
    Object.assign(process.env, {
      FLEETQ_REGISTRY: join(dir, 'registry.yaml'),
      FLEETQ_DRIVER: 'memory',
      FLEETQ_REDIS_PREFIX: prefix,
      // Long enough for both clusters' first lists on a loaded machine: a tick whose lists do not finish in its
      // run fails (it throws ForwarderTickError; the next tick goes on from the saved continue token).
      FORWARDER_RUN_MS: '5000',
      FLEETQ_EVENT_LOG: 'none',
      LOG_LEVEL: 'error',
    });
    const sample = new URL('../../events/scheduled/forwarder-tick.json', import.meta.url);
    event = JSON.parse(await readFile(sample, 'utf8')) as ScheduledEvent;
  });

  afterAll(async () => {
    await closeTickDeps();
    const keys = await redis.keys(`fleetq:{${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await rm(dir, { recursive: true, force: true });
  });

  it('watches every cluster for the run time, checkpoints in Redis, and resumes on the next tick', async () => {
    const started = Date.now();
    const first = await tick(event, { getRemainingTimeInMillis: () => 60_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    expect(first.results).toEqual([
      { cluster: 'fleetq-1', ok: true },
      { cluster: 'fleetq-2', ok: true },
    ]);
    const stored = await readAllCheckpoints(redis, `${prefix}:fleetq`);
    for (const c of ['fleetq-1', 'fleetq-2']) {
      for (const r of ['deployments', 'replicasets', 'pods', 'configmaps'])
        expect(stored.get(c)?.get(r)).toMatch(/^\d+$/);
      expect(first.stats[c]?.relists.initial).toBe(4);
    }

    const second = await tick(event, { getRemainingTimeInMillis: () => 60_000 });
    expect(second.results.every((r) => r.ok)).toBe(true);
    for (const c of ['fleetq-1', 'fleetq-2']) expect(second.stats[c]?.relists).toEqual({ initial: 0, expired: 0 });
  });

  it('stops before the invocation deadline', async () => {
    const started = Date.now();
    // 9 s left: the run is cut to 4 s (5 s before the deadline), not FORWARDER_RUN_MS.
    const result = await tick(event, { getRemainingTimeInMillis: () => 9_000 });
    expect(result.results.every((r) => r.ok)).toBe(true);
    expect(Date.now() - started).toBeLessThan(9_000);
  });
});
