// CloudWatch EMF lines from the prom-client registry: counters and histogram sums/counts as increases since the
// last flush, gauges as they stand, labels as dimensions, only fleetq's metrics.
import { describe, expect, it } from '@jest/globals';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EmfExporter } from '../../../shared/runtime/emf.js';

describe('EmfExporter', () => {
  it('writes one record per label set with the increases since the last flush', async () => {
    const registry = new Registry();
    const reconciles = new Counter({
      name: 'fleetq_reconcile_total',
      help: 'h',
      labelNames: ['cluster', 'outcome'],
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'fleetq_reconcile_duration_seconds',
      help: 'h',
      labelNames: ['cluster'],
      buckets: [1],
      registers: [registry],
    });
    const depth = new Gauge({ name: 'workqueue_depth', help: 'h', labelNames: ['name'], registers: [registry] });
    new Counter({ name: 'process_cpu_seconds_total', help: 'h', registers: [registry] }).inc(5);
    const emf = new EmfExporter(registry, { namespace: 'fleetq', service: 'reconcile', now: () => 1_700_000_000_000 });
    reconciles.inc({ cluster: 'eu-1', outcome: 'done' }, 3);
    duration.observe({ cluster: 'eu-1' }, 0.5);
    depth.set({ name: 'fleetq' }, 7);
    const lines: string[] = [];
    expect(await emf.flush((l) => lines.push(l))).toBe(3);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toEqual(
      expect.arrayContaining([
        {
          _aws: {
            Timestamp: 1_700_000_000_000,
            CloudWatchMetrics: [
              {
                Namespace: 'fleetq',
                Dimensions: [['service', 'cluster', 'outcome']],
                Metrics: [{ Name: 'fleetq_reconcile_total', Unit: 'Count' }],
              },
            ],
          },
          service: 'reconcile',
          cluster: 'eu-1',
          outcome: 'done',
          fleetq_reconcile_total: 3,
        },
        expect.objectContaining({
          cluster: 'eu-1',
          fleetq_reconcile_duration_seconds_sum: 0.5,
          fleetq_reconcile_duration_seconds_count: 1,
        }),
        expect.objectContaining({ name: 'fleetq', workqueue_depth: 7 }),
      ]),
    );
    expect(lines.join('\n')).not.toMatch(/process_cpu|_bucket/);
    reconciles.inc({ cluster: 'eu-1', outcome: 'done' }, 2);
    lines.length = 0;
    await emf.flush((l) => lines.push(l));
    // Only what moved: the counter's increase (2), and the gauge as it stands.
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ fleetq_reconcile_total: 2 }),
      expect.objectContaining({ workqueue_depth: 7 }),
    ]);
  });
});
