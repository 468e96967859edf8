// Checkpoint stores on real Redis and a real filesystem: per-cluster isolation, overwrite, removal, and
// atomic file replacement.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileCheckpointStore,
  MemoryCheckpointStore,
  RedisCheckpointStore,
  type CheckpointStore,
} from '../../shared/queue/history/checkpoint-store.js';
import { redisClient } from '../helpers/queue/redis.js';

const redis = redisClient();
afterAll(async () => redis.quit());

type Fixture = { store: CheckpointStore; cleanup: () => Promise<void> };
const drivers: Array<[string, () => Promise<Fixture>]> = [
  [
    'redis',
    async () => {
      const store = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
      return { store, cleanup: async () => void (await redis.del(store.key)) };
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
  it('is one hash per prefix with fields <cluster>/<resource>', async () => {
    const prefix = `test-${randomUUID()}`;
    const store = new RedisCheckpointStore(redis, prefix);
    try {
      await store.save('fleet-a', new Map([['pods', '42']]));
      expect(store.key).toBe(`fleetq:{${prefix}}:checkpoints`);
      expect(await redis.hgetall(store.key)).toEqual({ 'fleet-a/pods': '42' });
    } finally {
      await redis.del(store.key);
    }
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
