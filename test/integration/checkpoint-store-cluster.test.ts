// The Redis checkpoint store on a real Redis Cluster (test/helpers/redis-cluster.ts: three primaries, one replica
// each): each member cluster's checkpoints are one hash tagged with the cluster, so the clusters of a fleet land on
// different slots and primaries instead of all on the one slot of a per-prefix hash; loads, saves, removals, the
// upgrade fallback to the old hash and the listing of every cluster's checkpoints (a SCAN of every primary) work
// with no cross-slot command.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCheckpointStore, readAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import type { RedisClient } from '../../shared/queue/redis/redis-connection.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

const CLUSTERS = Array.from({ length: 12 }, (_, i) => `member-${i + 1}`);

describe('RedisCheckpointStore on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: RedisClient;
  let store: RedisCheckpointStore;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = cluster.client();
    store = new RedisCheckpointStore(client, 'fleetq:fleetq');
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it("puts the clusters' checkpoints on different slots and primaries, and reads them all back", async () => {
    for (const [i, c] of CLUSTERS.entries())
      await store.save(
        c,
        new Map([
          ['deployments', String(100 + i)],
          ['pods', String(200 + i)],
        ]),
      );
    const slots = await Promise.all(
      CLUSTERS.map(async (c) => Number(await client.call('CLUSTER', 'KEYSLOT', store.keyFor(c)))),
    );
    expect(new Set(slots).size).toBe(CLUSTERS.length);
    const primaries = await Promise.all(CLUSTERS.map(async (c) => (await cluster.primaryFor(store.keyFor(c))).port));
    expect(new Set(primaries).size).toBe(3);

    for (const [i, c] of CLUSTERS.entries())
      expect(await store.load(c, ['deployments', 'pods', 'nodes'])).toEqual(
        new Map([
          ['deployments', String(100 + i)],
          ['pods', String(200 + i)],
        ]),
      );
    const all = await readAllCheckpoints(client, 'fleetq:fleetq');
    expect([...all.keys()].sort()).toEqual([...CLUSTERS].sort());
    expect(all.get('member-3')).toEqual(
      new Map([
        ['deployments', '102'],
        ['pods', '202'],
      ]),
    );

    await store.remove('member-1', 'pods');
    await store.remove('member-2');
    expect(await store.load('member-1', ['deployments', 'pods'])).toEqual(new Map([['deployments', '100']]));
    expect(await store.load('member-2', ['deployments', 'pods'])).toEqual(new Map());
  });

  it("falls back to the old hash's checkpoints, and deletes each once saved anew", async () => {
    await client.hset(store.legacyKey, 'old-1/deployments', '5', 'old-2/deployments', '6');
    const restarted = new RedisCheckpointStore(client, 'fleetq:fleetq');
    expect(await restarted.load('old-1', ['deployments', 'pods'])).toEqual(new Map([['deployments', '5']]));
    await restarted.save('old-1', new Map([['deployments', '50']]));
    expect(await client.hgetall(store.legacyKey)).toEqual({ 'old-2/deployments': '6' });
    expect(await restarted.load('old-1', ['deployments'])).toEqual(new Map([['deployments', '50']]));
    await restarted.remove('old-2');
    expect(await client.exists(store.legacyKey)).toBe(0);
  });
});
