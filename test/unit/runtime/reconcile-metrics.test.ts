// What a worker's /metrics holds per cluster it serves: the reconcile counters and the duration histogram carry
// the cluster, the per-phase histogram does not (at 14 buckets and up to 11 phases per kind it was ~170 series per
// cluster: 150,000 at 1,000 clusters, a 22 MB scrape; docs/benchmarks.md).
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { forgetClusterSeries, runtimeMetrics } from '../../../shared/runtime/metrics.js';

async function seriesOf(registry: Registry, name: string): Promise<string[]> {
  const text = await registry.metrics();
  return text.split('\n').filter((l) => l.startsWith(`${name}_bucket{`) || l.startsWith(`${name}{`));
}

describe('reconcile metrics', () => {
  const run = (metrics: ReturnType<typeof runtimeMetrics>, cluster: string) =>
    metrics.onOutcome({
      cluster,
      kind: 'Deployment',
      outcome: 'done',
      seconds: 0.02,
      phases: { observe: 3, plan: 1, apply: 12, total: 20 },
    });

  it('keeps the phase histogram per kind and phase, whatever the number of clusters', async () => {
    const one = runtimeMetrics(new Registry(), false);
    run(one, 'c-0');
    const many = runtimeMetrics(new Registry(), false);
    for (let i = 0; i < 50; i++) run(many, `c-${i}`);
    const phaseSeries = await seriesOf(many.registry, 'fleetq_reconcile_phase_seconds');
    expect(phaseSeries.length).toBeGreaterThan(0);
    expect(phaseSeries).toHaveLength((await seriesOf(one.registry, 'fleetq_reconcile_phase_seconds')).length);
    expect(phaseSeries.some((l) => l.includes('cluster='))).toBe(false);
    // Each phase counted once per run, over every cluster's runs.
    expect(await many.registry.metrics()).toContain(
      'fleetq_reconcile_phase_seconds_count{kind="Deployment",phase="apply"} 50',
    );
  });

  it('keeps the reconcile counter and the duration per cluster', async () => {
    const many = runtimeMetrics(new Registry(), false);
    for (let i = 0; i < 3; i++) run(many, `c-${i}`);
    const text = await many.registry.metrics();
    for (let i = 0; i < 3; i++) {
      expect(text).toContain(`fleetq_reconcile_total{cluster="c-${i}",kind="Deployment",outcome="done"} 1`);
      expect(text).toContain(`fleetq_reconcile_duration_seconds_count{cluster="c-${i}",kind="Deployment"} 1`);
    }
  });

  it("forgets a removed cluster's series (counters, histograms, API requests), and only its", async () => {
    const metrics = runtimeMetrics(new Registry(), false);
    for (const c of ['c-0', 'c-1']) {
      run(metrics, c);
      metrics.onRequest({ cluster: c, method: 'GET', code: 200, ms: 3 });
    }
    const withCluster = async (c: string) =>
      (await metrics.registry.metrics()).split('\n').filter((l) => l.includes(`cluster="${c}"`));
    expect((await withCluster('c-0')).length).toBeGreaterThan(3);
    const kept = await withCluster('c-1');
    // The reconcile counter, the duration histogram, the request counter.
    expect(await forgetClusterSeries(metrics.registry, 'c-0')).toBe(3);
    expect(await withCluster('c-0')).toEqual([]);
    expect(await withCluster('c-1')).toEqual(kept);
    expect(await forgetClusterSeries(metrics.registry, 'c-0')).toBe(0);
  });
});
