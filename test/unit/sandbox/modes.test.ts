import { describe, expect, it } from '@jest/globals';
import { controllersFlag, parseMode } from '../../../infra/sandbox/modes.js';

describe('sandbox modes', () => {
  it('upstream runs every default controller', () => expect(controllersFlag('upstream')).toBe('*'));
  it('fleetq turns off exactly the workload controllers', () =>
    expect(controllersFlag('fleetq')).toBe(
      '*,-deployment-controller,-replicaset-controller,-statefulset-controller,-daemonset-controller,-job-controller,-cronjob-controller,-ttl-after-finished-controller',
    ));
  it('rejects an unknown mode by name', () =>
    expect(() => parseMode('both')).toThrow(/--mode must be "fleetq" or "upstream", got "both"/));
});
