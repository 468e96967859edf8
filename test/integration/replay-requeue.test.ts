// `fleetq replay requeue`: the keys of a window of a real log (Redis stream and JSON-lines files), mapped as the
// forwarder maps them against an index rebuilt from the log before the window, enqueued once each into a real
// Redis queue: exactly the window's keys, no more.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyString } from '../../shared/kube/key.js';
import type { LoggedEvent } from '../../shared/queue/history/event-log.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { openLogStore, type LogStore } from '../../shared/replay/log-store.js';
import { requeue, windowKeys } from '../../shared/replay/requeue.js';
import { loadConfig } from '../../shared/runtime/config.js';
import '../helpers/long-timeout.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';

const execFileP = promisify(execFile);
const T0 = Date.UTC(2026, 11, 3, 10, 0, 0);
const CLUSTER = 'c1';
const OWNS = new Set(['Deployment', 'ReplicaSet']);

const ref = (kind: string, name: string) => [
  { apiVersion: 'apps/v1', kind, name, uid: `uid-${name}`, controller: true },
];
const deployment = (name: string, rv: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv },
  spec: { selector: { matchLabels: { app: name } } },
});
const replicaSet = (name: string, owner: string, rv: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name,
    namespace: 'ns',
    uid: `uid-${name}`,
    resourceVersion: rv,
    ownerReferences: ref('Deployment', owner),
  },
  spec: { selector: { matchLabels: { app: name } } },
});
const pod = (name: string, labels: Record<string, string>, owner: string | undefined, rv: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'ns',
    uid: `uid-${name}`,
    resourceVersion: rv,
    labels,
    ...(owner && { ownerReferences: ref('ReplicaSet', owner) }),
  },
});
const at = (s: number, type: LoggedEvent['type'], resource: string, object: unknown): LoggedEvent => ({
  type,
  cluster: CLUSTER,
  resource,
  observedAt: T0 + s * 1000,
  object,
});

// Before the window: the baseline (a relist) and one event. In it: events whose keys are the answer. After it:
// an event that must not be requeued.
const LOG: LoggedEvent[] = [
  at(0, 'LISTED', 'deployments', deployment('d1', '1')),
  at(0, 'LISTED', 'replicasets', replicaSet('rs1', 'd1', '2')),
  at(0, 'LISTED', 'replicasets', replicaSet('rs9', 'd1', '3')),
  at(0, 'LISTED', 'pods', pod('p1', { app: 'rs1' }, 'rs1', '3')),
  at(5, 'ADDED', 'deployments', deployment('before', '4')),
  at(10, 'MODIFIED', 'pods', pod('p1', { app: 'rs1' }, 'rs1', '5')), // → ReplicaSet rs1
  at(11, 'ADDED', 'deployments', deployment('d2', '6')), // → Deployment d2
  at(12, 'MODIFIED', 'pods', pod('p1', { app: 'rs1' }, 'rs1', '7')), // → rs1 again (deduplicated)
  at(13, 'ADDED', 'replicasets', replicaSet('rs2', 'd1', '8')), // → ReplicaSet rs2, Deployment d1
  at(14, 'ADDED', 'pods', pod('orphan', { app: 'rs9' }, undefined, '9')), // no owner: rs9 (in the index) adopts
  at(30, 'MODIFIED', 'deployments', deployment('after', '10')),
];
const WINDOW = { fromMs: T0 + 10_000, toMs: T0 + 20_000 };
const WANT = [
  'c1/ReplicaSet/ns/rs1',
  'c1/Deployment/ns/d2',
  'c1/ReplicaSet/ns/rs2',
  'c1/Deployment/ns/d1',
  'c1/ReplicaSet/ns/rs9',
];

describe.each(['redis', 'jsonl'] as const)('replay requeue from a %s log', (kind) => {
  const redis = redisClient();
  let dir: string;
  let name: string;
  let store: LogStore;
  let queue: RedisQueue;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-requeue-'));
    name = testQueueName();
    store = openLogStore(kind === 'redis' ? 'redis' : `jsonl:${dir}`, loadConfig({ FLEETQ_QUEUE: name }));
    await store.importRecords(CLUSTER, LOG);
    queue = new RedisQueue({ name, redis: REDIS_URL, leaseMs: 30_000 });
  });
  afterEach(async () => {
    await store.close();
    await queue.close();
    await deleteQueueKeys(redis, queue.prefix);
    const keys = await redis.keys(`fleetq:{fleetq:${name}}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await rm(dir, { recursive: true, force: true });
  });
  afterAll(async () => redis.quit());

  it('enqueues exactly the keys of the window, once each', async () => {
    const found = await windowKeys(store.read(CLUSTER, 0, WINDOW.toMs), { cluster: CLUSTER, owns: OWNS, ...WINDOW });
    expect(found.keys.map(keyString)).toEqual(WANT);
    expect(found.events).toBe(5);
    expect(await requeue(queue, found.keys)).toBe(5);
    expect(await queue.depth()).toBe(5);
    const got: string[] = [];
    for (let lease = await queue.get(2_000); lease; lease = await queue.get(500)) {
      got.push(lease.id);
      await queue.done(lease);
    }
    expect(got.sort()).toEqual([...WANT].sort());
  });

  it('filters by kind', async () => {
    const found = await windowKeys(store.read(CLUSTER, 0, WINDOW.toMs), {
      cluster: CLUSTER,
      owns: OWNS,
      kind: 'Deployment',
      ...WINDOW,
    });
    expect(found.keys.map(keyString)).toEqual(['c1/Deployment/ns/d2', 'c1/Deployment/ns/d1']);
  });
});

describe('fleetq replay requeue --dry-run (the command)', () => {
  it('prints the window keys and enqueues nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-requeue-cli-'));
    try {
      const name = `test-${randomUUID()}`;
      const store = openLogStore(`jsonl:${dir}/log`, loadConfig({}));
      await store.importRecords(CLUSTER, LOG);
      await store.close();
      await writeFile(
        join(dir, 'fleet.yaml'),
        `clusters:\n  - name: ${CLUSTER}\n    kubeconfig: /nowhere\n    owns: [Deployment, ReplicaSet]\n`,
      );
      const { stdout, stderr } = await execFileP(
        process.execPath,
        [
          '--import',
          'tsx',
          'functions/cli.ts',
          'replay',
          'requeue',
          '--cluster',
          CLUSTER,
          '--since',
          new Date(WINDOW.fromMs).toISOString(),
          '--until',
          String(WINDOW.toMs),
          '--dry-run',
          '--store',
          `jsonl:${dir}/log`,
          '--registry',
          join(dir, 'fleet.yaml'),
          '--driver',
          'redis',
        ],
        { env: { ...process.env, FLEETQ_QUEUE: name, NODE_OPTIONS: '' }, timeout: 240_000 },
      );
      expect(stdout.trim().split('\n')).toEqual(WANT);
      expect(stderr).toContain('would requeue 5 key(s) from 5 event(s)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('fleetq replay requeue on the memory queue (the command)', () => {
  it('is refused: that queue lives only inside fleetq run, and the keys would vanish with the command', async () => {
    const run = await execFileP(
      process.execPath,
      ['--import', 'tsx', 'functions/cli.ts', 'replay', 'requeue', '--cluster', CLUSTER, '--since', '1h'],
      { env: { ...process.env, FLEETQ_DRIVER: '', NODE_OPTIONS: '' }, timeout: 240_000 },
    ).then(
      (out) => ({ code: 0, ...out }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('requeued');
    expect(run.stderr).toContain('replay requeue on the memory queue: that queue lives only inside `fleetq run`');
    expect(run.stderr).toContain('Use --driver redis or sqs');
  });
});
