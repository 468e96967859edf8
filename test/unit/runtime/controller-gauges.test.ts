// The gauges a controller's plan reports reach /metrics: one family per name, a sample replacing the last of its
// labels, and a sample whose labels do not fit its family dropped without failing the run.
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { runtimeMetrics } from '../../../shared/runtime/metrics.js';

describe('controller gauges', () => {
  it('sets each sample on its family, replacing the last value of the same labels', async () => {
    const metrics = runtimeMetrics(new Registry(), false);
    const sample = (state: string, value: number) => ({
      name: 'fleetq_fleetrollout_clusters',
      help: 'clusters by state',
      labels: { namespace: 'ns', rollout: 'web', state },
      value,
    });
    metrics.onGauges([sample('Waiting', 4), sample('InFlight', 1)]);
    metrics.onGauges([sample('Waiting', 3), sample('InFlight', 2)]);
    metrics.onGauges([{ ...sample('Waiting', 9), labels: { other: 'x' } }]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('fleetq_fleetrollout_clusters{namespace="ns",rollout="web",state="Waiting"} 3');
    expect(text).toContain('fleetq_fleetrollout_clusters{namespace="ns",rollout="web",state="InFlight"} 2');
    expect(text).not.toContain('other="x"');
  });
});
