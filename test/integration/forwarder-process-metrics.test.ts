// The long-running forwarder's /metrics serves Node's process metrics beside its own, so that CPU per event
// (process_cpu_seconds_total over fleetq_forwarder_events_total) and memory can be read from a running forwarder.
// A real `functions/forwarder.ts` process on the memory driver watches the sandbox's fleetq-1; the test scrapes its
// endpoint once it has listed the cluster.
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readState } from '../../infra/sandbox/sandbox.js';
import { parseMetric } from '../helpers/pipeline/fleet-pipeline.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';

const sum = (text: string, name: string): number => parseMetric(text, name).reduce((a, s) => a + s.value, 0);

describe('forwarder process metrics', () => {
  let proc: Proc | undefined;
  afterAll(async () => {
    await proc?.stop('SIGTERM');
  });

  it('serves process_cpu_seconds_total, RSS and the heap beside fleetq_forwarder_*', async () => {
    const cluster = readState().clusters.find((c) => c.name === 'fleetq-1');
    if (!cluster) throw new Error('the sandbox cluster fleetq-1 is not running (the global setup starts it)');
    const port = await freePort();
    proc = spawnTsx(
      'functions/forwarder.ts',
      {
        FLEETQ_REGISTRY: writeRegistry([{ name: 'fleetq-1', kubeconfig: cluster.kubeconfig, owns: ['Deployment'] }]),
        FLEETQ_DRIVER: 'memory',
        FLEETQ_QUEUE: `metrics-${randomUUID().slice(0, 8)}`,
        FLEETQ_CHECKPOINTS: 'memory',
        FLEETQ_EVENT_LOG: 'none',
        FLEETQ_READS: 'live',
        FLEETQ_RESYNC_MS: '0',
        FLEETQ_METRICS_PORT: String(port),
        LOG_LEVEL: 'info',
      },
      'forwarder',
    );
    await proc.waitForLine(/"Forwarder running"/, 120_000);
    let text = '';
    const scrape = async (): Promise<string> =>
      (text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text());
    // Listed: the initial list of every watched resource counted on the same endpoint.
    await waitFor(
      async () => sum(await scrape(), 'fleetq_forwarder_relists_total') > 0,
      60_000,
      200,
      'the forwarder listed fleetq-1',
    );
    expect(sum(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sum(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sum(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE fleetq_forwarder_events_total counter');
    // One copy of each (the registry got the defaults once).
    expect(text.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
  });
});
