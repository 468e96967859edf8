// Checkpoint stores on real Redis and a real filesystem: per-cluster isolation, overwrite, removal, and
// atomic file replacement. Redis: one hash per cluster, and the upgrade from the one hash per prefix of before
// (read as a fallback until each field is saved anew). test/integration/checkpoint-store-cluster.test.ts runs the
// Redis store on a Redis Cluster.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileCheckpointStore,
  MemoryCheckpointStore,
  RedisCheckpointStore,
  checkpointsKey,
  readAllCheckpoints,
  type CheckpointStore,
} from '../../shared/queue/history/checkpoint-store.js';
import { keySlot } from '../../shared/queue/redis/redis-connection.js';
import { redisClient } from '../helpers/queue/redis.js';

const redis = redisClient();
afterAll(async () => redis.quit());

type Fixture = { store: CheckpointStore; cleanup: () => Promise<void> };
const drivers: Array<[string, () => Promise<Fixture>]> = [
  [
    'redis',
    async () => {
      const store = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
      return { store, cleanup: () => store.clear() };
    },
  ],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fleetq-checkpoints-'));
      return {
        store: new FileCheckpointStore(join(dir, 'sub', 'checkpoints.json')),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  ],
  ['memory', async () => ({ store: new MemoryCheckpointStore(), cleanup: async () => undefined })],
];

describe.each(drivers)('%s checkpoint store', (_name, make) => {
  let f: Fixture;
  beforeEach(async () => {
    f = await make();
  });
  afterEach(async () => {
    await f.store.close();
    await f.cleanup();
  });

  it('loads nothing before anything was saved', async () => {
    expect(await f.store.load('c1', ['pods', 'deployments'])).toEqual(new Map());
  });

  it('saves, overwrites and loads per cluster and resource', async () => {
    await f.store.save(
      'c1',
      new Map([
        ['pods', '10'],
        ['deployments', '11'],
      ]),
    );
    await f.store.save('c2', new Map([['pods', '99']]));
    await f.store.save('c1', new Map([['pods', '12']]));
    expect(await f.store.load('c1', ['pods', 'deployments', 'nodes'])).toEqual(
      new Map([
        ['pods', '12'],
        ['deployments', '11'],
      ]),
    );
    expect(await f.store.load('c2', ['pods', 'deployments'])).toEqual(new Map([['pods', '99']]));
  });

  it('removes one resource or a whole cluster', async () => {
    await f.store.save(
      'c1',
      new Map([
        ['pods', '1'],
        ['nodes', '2'],
      ]),
    );
    await f.store.save('c2', new Map([['pods', '3']]));
    await f.store.remove('c1', 'pods');
    expect(await f.store.load('c1', ['pods', 'nodes'])).toEqual(new Map([['nodes', '2']]));
    await f.store.remove('c1');
    expect(await f.store.load('c1', ['pods', 'nodes'])).toEqual(new Map());
    expect(await f.store.load('c2', ['pods'])).toEqual(new Map([['pods', '3']]));
  });

  it('keeps every one of many concurrent saves', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => f.store.save('c1', new Map([[`r${i}`, String(i)]]))));
    const loaded = await f.store.load(
      'c1',
      Array.from({ length: 30 }, (_, i) => `r${i}`),
    );
    expect(loaded.size).toBe(30);
  });
});

describe('RedisCheckpointStore layout', () => {
  let store: RedisCheckpointStore;
  beforeEach(() => {
    store = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
  });
  afterEach(() => store.clear());

  it('is one hash per cluster, tagged with the cluster as the cache is, fields <resource>', async () => {
    await store.save('fleet-a', new Map([['pods', '42']]));
    await store.save('fleet-b', new Map([['pods', '43']]));
    expect(store.keyFor('fleet-a')).toBe(`fleetq:${store.prefix}:{checkpoints:fleet-a}`);
    expect(await redis.hgetall(store.keyFor('fleet-a'))).toEqual({ pods: '42' });
    expect(await redis.hgetall(store.keyFor('fleet-b'))).toEqual({ pods: '43' });
    expect(await redis.exists(store.legacyKey)).toBe(0);
    expect(keySlot(store.keyFor('fleet-a'))).not.toBe(keySlot(store.keyFor('fleet-b')));
    expect(await readAllCheckpoints(redis, store.prefix)).toEqual(
      new Map([
        ['fleet-a', new Map([['pods', '42']])],
        ['fleet-b', new Map([['pods', '43']])],
      ]),
    );
  });

  it('gives every cluster name its own tag: never an empty one, and a name that would end it early is refused', () => {
    // Registry names are DNS-style (no braces); an empty name still has a non-empty tag of its own.
    expect(checkpointsKey('p', '')).toBe('fleetq:p:{checkpoints:}');
    expect(keySlot(checkpointsKey('p', ''))).not.toBe(keySlot(checkpointsKey('p', 'a')));
    expect(() => checkpointsKey('p', 'a}b')).toThrow(RangeError);
    expect(() => checkpointsKey('p', '{a')).toThrow(RangeError);
  });

  it('reads a checkpoint of the old one-hash layout until the cluster saves it anew, then deletes it', async () => {
    // What a forwarder before the upgrade left behind.
    await redis.hset(store.legacyKey, 'c1/pods', '7', 'c1/nodes', '8', 'c2/pods', '9', 'c10/pods', '10');
    expect(await store.load('c1', ['pods', 'nodes', 'services'])).toEqual(
      new Map([
        ['pods', '7'],
        ['nodes', '8'],
      ]),
    );
    // A new store (a restarted forwarder) reads the old hash again: nothing was saved yet.
    const restarted = new RedisCheckpointStore(redis, store.prefix);
    expect(await restarted.load('c1', ['pods'])).toEqual(new Map([['pods', '7']]));
    // The first save of a resource goes to the cluster's own hash and deletes its old field.
    await restarted.save('c1', new Map([['pods', '70']]));
    expect(await redis.hgetall(store.legacyKey)).toEqual({ 'c1/nodes': '8', 'c2/pods': '9', 'c10/pods': '10' });
    expect(await store.load('c1', ['pods', 'nodes'])).toEqual(
      new Map([
        ['pods', '70'],
        ['nodes', '8'],
      ]),
    );
    // Removing a cluster removes its old fields too (c10's stay), so nothing comes back from there.
    await store.remove('c1');
    expect(await redis.hgetall(store.legacyKey)).toEqual({ 'c2/pods': '9', 'c10/pods': '10' });
    expect(await new RedisCheckpointStore(redis, store.prefix).load('c1', ['pods', 'nodes'])).toEqual(new Map());
    await store.remove('c2', 'pods');
    expect(await new RedisCheckpointStore(redis, store.prefix).load('c2', ['pods'])).toEqual(new Map());
    // Redis deletes the old hash with its last field.
    await store.save('c10', new Map([['pods', '11']]));
    expect(await redis.exists(store.legacyKey)).toBe(0);
    expect(await store.load('c10', ['pods'])).toEqual(new Map([['pods', '11']]));
  });
});

describe('FileCheckpointStore', () => {
  it('replaces the file atomically and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-checkpoints-'));
    try {
      const path = join(dir, 'checkpoints.json');
      const store = new FileCheckpointStore(path);
      await store.save('c1', new Map([['pods', '5']]));
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'c1/pods': '5' });
      expect(await readdir(dir)).toEqual(['checkpoints.json']);
      // A second store on the same file (a restarted process) sees what the first wrote.
      expect(await new FileCheckpointStore(path).load('c1', ['pods'])).toEqual(new Map([['pods', '5']]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
