// FLEETQ_QUEUE_SHARDS: 1 by default (the one queue of before), 1-64 on the redis driver, refused on the others.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../../shared/runtime/config.js';
import { queueConfig } from '../../../shared/runtime/deps.js';

describe('FLEETQ_QUEUE_SHARDS', () => {
  it('defaults to 1: the redis queue config names one queue, as before', () => {
    const config = loadConfig({ FLEETQ_DRIVER: 'redis' });
    expect(config.FLEETQ_QUEUE_SHARDS).toBe(1);
    expect(queueConfig(config)).toMatchObject({ driver: 'redis', name: 'fleetq', shards: 1 });
  });

  it('passes N to the redis driver', () => {
    expect(queueConfig(loadConfig({ FLEETQ_DRIVER: 'redis', FLEETQ_QUEUE_SHARDS: '3' }))).toMatchObject({ shards: 3 });
  });

  it.each(['0', '65', 'two'])('refuses %p', (value) => {
    expect(() => loadConfig({ FLEETQ_DRIVER: 'redis', FLEETQ_QUEUE_SHARDS: value })).toThrow(/FLEETQ_QUEUE_SHARDS/);
  });

  it.each(['memory', 'sqs'])('refuses shards on the %s driver, which keeps one queue', (driver) => {
    expect(() => loadConfig({ FLEETQ_DRIVER: driver, FLEETQ_QUEUE_SHARDS: '2' })).toThrow(ConfigError);
    expect(() => loadConfig({ FLEETQ_DRIVER: driver, FLEETQ_QUEUE_SHARDS: '2' })).toThrow(/only the redis driver/);
    expect(loadConfig({ FLEETQ_DRIVER: driver, FLEETQ_QUEUE_SHARDS: '1' }).FLEETQ_QUEUE_SHARDS).toBe(1);
  });
});
