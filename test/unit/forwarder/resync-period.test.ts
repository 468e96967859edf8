// The periodic resync's period (resync-period.ts): kube-controller-manager's default least period, a fraction per
// cluster that is the same in every process and spreads a fleet, 0 disabling it, and the timer's limit.
import { describe, expect, it } from '@jest/globals';
import { loadForwarderConfig } from '../../../shared/forwarder/forwarder-deps.js';
import { DEFAULT_RESYNC_MS, resyncJitter, resyncPeriodMs } from '../../../shared/forwarder/resync-period.js';

const HOUR = 60 * 60 * 1000;

describe('resyncPeriodMs', () => {
  it('defaults to 12 h × (1 + the cluster’s fraction), from FLEETQ_RESYNC_MS unset too', () => {
    expect(DEFAULT_RESYNC_MS).toBe(12 * HOUR);
    expect(loadForwarderConfig({}).FLEETQ_RESYNC_MS).toBe(DEFAULT_RESYNC_MS);
    const period = resyncPeriodMs('prod-eu-1');
    expect(period).toBeGreaterThanOrEqual(12 * HOUR);
    expect(period).toBeLessThan(24 * HOUR);
    expect(period).toBe(Math.floor(12 * HOUR * (1 + resyncJitter('prod-eu-1'))));
  });

  it('is the same for a cluster in every process (a scheduled tick starts a new forwarder each time)', () => {
    expect(resyncPeriodMs('prod-eu-1', 60_000)).toBe(resyncPeriodMs('prod-eu-1', 60_000));
  });

  it('spreads the clusters of a fleet over [min, 2 × min)', () => {
    const fractions = Array.from({ length: 1_000 }, (_, i) => resyncJitter(`cluster-${i}`));
    expect(Math.min(...fractions)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...fractions)).toBeLessThan(1);
    // Each tenth of the range holds some clusters (1 000 draws: about 100 each).
    for (let tenth = 0; tenth < 10; tenth++) {
      const inTenth = fractions.filter((f) => Math.floor(f * 10) === tenth).length;
      expect(inTenth).toBeGreaterThan(50);
    }
  });

  it('keeps 0 as disabled and a configured least period as the lower bound', () => {
    expect(resyncPeriodMs('a', 0)).toBe(0);
    expect(loadForwarderConfig({ FLEETQ_RESYNC_MS: '0' }).FLEETQ_RESYNC_MS).toBe(0);
    const period = resyncPeriodMs('a', 300_000);
    expect(period).toBeGreaterThanOrEqual(300_000);
    expect(period).toBeLessThan(600_000);
  });

  it('cuts a period past a Node timer’s longest (which would fire after 1 ms) to it', () => {
    expect(resyncPeriodMs('a', 30 * 24 * HOUR)).toBe(2 ** 31 - 1);
  });
});
