// connectRedis's choice between one node and a Redis Cluster, and the seed URL form it reads.
import { describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import {
  clusterFromEnv,
  connectRedis,
  keySlot,
  parseRedisUrl,
  wantsCluster,
} from '../../../shared/queue/redis/redis-connection.js';

describe('parseRedisUrl', () => {
  it('reads several seeds, each port defaulting to 6379, with the password and user of the URL', () => {
    expect(parseRedisUrl('rediss://bob:s%40cret@h1:7000,h2,[::1]:7002')).toEqual({
      tls: true,
      seeds: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      username: 'bob',
      password: 's@cret',
      db: 0,
    });
  });

  it('reads a password without a user, and a database', () => {
    expect(parseRedisUrl('redis://:pw@h:6380/3')).toEqual({
      tls: false,
      seeds: [{ host: 'h', port: 6380 }],
      password: 'pw',
      db: 3,
    });
  });

  it('refuses what is not a Redis URL without echoing the password', () => {
    expect(() => parseRedisUrl('http://:topsecret@h:1')).toThrow(/not a Redis URL/);
    expect(() => parseRedisUrl('http://:topsecret@h:1')).not.toThrow(/topsecret/);
    expect(() => parseRedisUrl('redis://:topsecret@h:99999')).toThrow(/bad Redis seed/);
    expect(() => parseRedisUrl('redis://:topsecret@h:99999')).not.toThrow(/topsecret/);
  });
});

describe('cluster or one node', () => {
  it('is a Cluster for several seeds, FLEETQ_REDIS_CLUSTER=true or the option; one node otherwise', () => {
    expect(wantsCluster('redis://h1:7000,h2:7001', {})).toBe(true);
    expect(wantsCluster('redis://h1:7000', { cluster: true })).toBe(true);
    expect(wantsCluster('redis://h1:7000', { cluster: false })).toBe(false);
    expect(clusterFromEnv({ FLEETQ_REDIS_CLUSTER: 'true' })).toBe(true);
    expect(clusterFromEnv({ FLEETQ_REDIS_CLUSTER: 'false' })).toBe(false);
    expect(clusterFromEnv({})).toBe(false);
  });

  it('builds a Cluster client whose every node gets the URL password and TLS', () => {
    const c = connectRedis('rediss://:pw@127.0.0.1:7000,127.0.0.1:7001', {}, { lazyConnect: true });
    expect(c).toBeInstanceOf(Cluster);
    const cluster = c as Cluster;
    expect(cluster.options.lazyConnect).toBe(true);
    expect(cluster.options.redisOptions).toMatchObject({ password: 'pw', tls: {} });
    cluster.disconnect();
    const one = connectRedis('redis://127.0.0.1:7000', { cluster: false }, { lazyConnect: true });
    expect(one).toBeInstanceOf(Redis);
    one.disconnect();
  });

  it('refuses a database other than 0 for a Cluster', () => {
    expect(() => connectRedis('redis://h1:7000,h2:7001/2', {}, { lazyConnect: true })).toThrow(/only database 0/);
  });

  it('computes hash slots as Redis does: the hash tag alone when there is one', () => {
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('fleetq:{q}:pending')).toBe(keySlot('q'));
    expect(keySlot('a{}b')).toBe(keySlot('a{}b')); // an empty tag hashes the whole key
  });
});
