// Which sandbox cluster serves a chaos cluster's name: test/run-all.sh runs the chaos tests that bring their own Redis
// beside the others with FLEETQ_CHAOS_CLUSTER_MAP=chaos-1=chaos-4, so that the two halves never share an apiserver.
import { describe, expect, it } from '@jest/globals';
import { chaosSandboxName } from '../../helpers/chaos/harness.js';

describe('chaosSandboxName', () => {
  it('is the name itself without a map, or when the map does not name it', () => {
    expect(chaosSandboxName('chaos-1', '')).toBe('chaos-1');
    expect(chaosSandboxName('chaos-2', 'chaos-1=chaos-4')).toBe('chaos-2');
  });

  it('is what the map gives the name, among several pairs', () => {
    expect(chaosSandboxName('chaos-1', 'chaos-1=chaos-4')).toBe('chaos-4');
    expect(chaosSandboxName('chaos-3', 'chaos-1=chaos-4, chaos-3=chaos-6')).toBe('chaos-6');
  });

  it('refuses a pair that is not chaos-N=chaos-M, naming it', () => {
    expect(() => chaosSandboxName('chaos-1', 'chaos-1=fleetq-1')).toThrow('"chaos-1=fleetq-1" is not chaos-N=chaos-M');
    expect(() => chaosSandboxName('chaos-1', 'chaos-1')).toThrow('is not chaos-N=chaos-M');
  });
});
