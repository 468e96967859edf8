import { describe, expect, it } from '@jest/globals';
import { apiBudgetMode } from '../../../shared/runtime/clients.js';
import { ConfigError, loadConfig } from '../../../shared/runtime/config.js';

describe('apiBudgetMode', () => {
  it.each([
    { name: 'memory keeps the budget in process (one process)', env: {}, want: 'process' },
    { name: 'redis shares it in Redis', env: { FLEETQ_DRIVER: 'redis' }, want: 'redis' },
    { name: 'sqs (Lambdas) shares it in Redis', env: { FLEETQ_DRIVER: 'sqs' }, want: 'redis' },
    {
      name: 'sqs without Redis opts out',
      env: { FLEETQ_DRIVER: 'sqs', FLEETQ_API_BUDGET: 'process' },
      want: 'process',
    },
    { name: 'memory may opt in', env: { FLEETQ_API_BUDGET: 'redis' }, want: 'redis' },
  ])('$name', ({ env, want }) => {
    expect(apiBudgetMode(loadConfig(env))).toBe(want);
  });

  it('names the variable for an unknown mode', () => {
    expect(() => loadConfig({ FLEETQ_API_BUDGET: 'cluster' })).toThrow(ConfigError);
    expect(() => loadConfig({ FLEETQ_API_BUDGET: 'cluster' })).toThrow('FLEETQ_API_BUDGET="cluster"');
  });
});
