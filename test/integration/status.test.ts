// `fleetq status` against real Redis, a sandbox cluster, a forwarder and a running worker process. The test makes
// each figure itself, on a queue of its own, and checks the table shows exactly those numbers:
//   parked  3 keys added with a 10-minute delay (depth 3: waiting, not held)
//   held    2 keys this test holds under leases (in flight 2)
//   ghost   2 keys of a cluster the registry does not know: the worker dead-letters them after a 1 s wait (dead 2)
//   gone    1 key of a registered cluster nobody listens for: the worker retries it with backoff, without end
//           (backoff 1, errors per second > 0)
//   fleetq-2 keys reconciled by the worker (reconciles per second > 0, no errors); watched by a forwarder pool
//           member (`fleetq forwarder --pool`, a process) whose lease status names, and a ConfigMap created so the
//           forwarder logs an event (last event seen)
// Then the command itself: `fleetq status --json` as a process, the table, `--watch` until SIGINT, and the
// memory driver's refusal.
// Queue latency (LATENCY, oldestReadyAgeMs) on a queue of its own with no worker, so nothing takes its keys: keys
// put in through the queue at measured times, the age status reports within the bounds those times allow, none for
// a cluster with only delayed keys, a malformed stored ready time skipped and noted, and a lower bound marked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { deleteAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { eventStreamKey } from '../../shared/queue/history/redis-stream-event-log.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import type { Lease } from '../../shared/queue/work-queue.js';
import { collectStatus, type ClusterStatus, type FleetStatus } from '../../shared/ops/status.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { unreachableCluster, writeRegistry } from '../helpers/pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../helpers/processes.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLUSTER = 'fleetq-2';
const PREFIX = 'fleetq';

const key = (cluster: string, name: string, namespace = 'default'): ReconcileKey => ({
  cluster,
  kind: 'ConfigMap',
  namespace,
  name,
});

describe('fleetq status', () => {
  const queueName = `status-${randomUUID().slice(0, 8)}`;
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let redis: Redis;
  let queue: RedisQueue;
  let registry: string;
  /** The forwarder's own registry: fleetq-2 only (the unreachable entries would only be retried). */
  let forwarderRegistry: string;
  const procs: Proc[] = [];
  const held: Lease[] = [];
  const env = (): NodeJS.ProcessEnv => ({
    FLEETQ_REGISTRY: registry,
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: queueName,
    FLEETQ_REDIS_PREFIX: PREFIX,
    REDIS_URL,
    // No cache in Redis to clean up: handlers read live.
    FLEETQ_READS: 'live',
  });

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    redis = new Redis(REDIS_URL);
    // This test's own process: its leases last 5 minutes, so the held keys stay held for the whole test.
    queue = new RedisQueue({ name: queueName, prefix: PREFIX, redis: REDIS_URL, leaseMs: 300_000 });
    const fleetq2 = {
      name: CLUSTER,
      kubeconfig: c.state.kubeconfig,
      owns: ['ConfigMap'],
      mirror: { allowedNamespaces: ['test-*'] },
      limits: { qps: 50, burst: 100 },
    };
    registry = writeRegistry([fleetq2, await unreachableCluster('gone'), await unreachableCluster('parked')]);
    forwarderRegistry = writeRegistry([fleetq2]);
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await queue?.close();
    await deleteQueueKeys(redis, queue.prefix);
    await redis.del(eventStreamKey(`${PREFIX}:${queueName}`, CLUSTER));
    await deleteAllCheckpoints(redis, `${PREFIX}:${queueName}`);
    redis.disconnect();
    await ns?.remove();
  });

  const status = (): Promise<FleetStatus> =>
    collectStatus(loadConfig(env()), { clusters: ['fleetq-2', 'gone', 'parked'] });
  const rowOf = (s: FleetStatus, cluster: string): ClusterStatus => {
    const row = s.clusters.find((r) => r.cluster === cluster);
    if (!row) throw new Error(`no row for ${cluster} in ${JSON.stringify(s)}`);
    return row;
  };

  it('shows the depth, in-flight, backoff, dead-letter and rate figures the test made', async () => {
    // Held first, while no worker runs: this process takes both keys and keeps them.
    await queue.add(key('held', 'a'));
    await queue.add(key('held', 'b'));
    for (let i = 0; i < 2; i++) {
      const lease = await queue.get(5_000);
      if (!lease) throw new Error('no lease for a held key');
      held.push(lease);
    }
    for (const name of ['p1', 'p2', 'p3']) await queue.addAfter(key('parked', name), 600_000);
    await queue.add(key('ghost', 'g1'));
    await queue.add(key('ghost', 'g2'));
    await queue.add(key('gone', 'x'));

    // Before any worker: the figures are the queue's alone.
    const before = await status();
    expect(rowOf(before, 'parked')).toMatchObject({ depth: 3, inFlight: 0, deadLetters: 0 });
    expect(rowOf(before, 'held')).toMatchObject({ depth: 0, inFlight: 2, deadLetters: 0 });
    expect(rowOf(before, 'ghost')).toMatchObject({ depth: 2, inFlight: 0, deadLetters: 0 });
    expect(rowOf(before, 'fleetq-2')).toMatchObject({ depth: 0, inFlight: 0, reconcilesPerSec: null });

    // A forwarder pool member takes fleetq-2's lease and logs its events into the queue's event-log stream.
    const forwarder = spawnTsx(
      'functions/forwarder.ts',
      { ...env(), FLEETQ_REGISTRY: forwarderRegistry, FLEETQ_RESYNC_MS: '0' },
      'forwarder',
      ['--pool'],
    );
    procs.push(forwarder);

    // ghost's keys wait for a registry reload first (FLEETQ_UNKNOWN_CLUSTER_WAIT_MS); 1 s here.
    const worker = spawnTsx(
      'functions/worker.ts',
      { ...env(), FLEETQ_CONCURRENCY: '4', FLEETQ_UNKNOWN_CLUSTER_WAIT_MS: '1000' },
      'worker',
    );
    procs.push(worker);
    await Promise.all([
      worker.waitForLine(/"Worker started"/, 120_000),
      forwarder.waitForLine(/"Forwarder running"/, 120_000),
    ]);
    for (let i = 0; i < 5; i++) await queue.add(key(CLUSTER, `absent-${i}`, ns.name));
    await c.kc
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'status-probe' } } });

    let last: FleetStatus | undefined;
    await waitFor(
      async () => {
        last = await status();
        const [ghost, gone, fq, parked, heldRow] = ['ghost', 'gone', CLUSTER, 'parked', 'held'].map((n) =>
          rowOf(last as FleetStatus, n),
        ) as ClusterStatus[];
        return (
          ghost?.deadLetters === 2 &&
          ghost.depth === 0 &&
          gone?.backoff === 1 &&
          (gone.errorsPerSec ?? 0) > 0 &&
          (fq?.reconcilesPerSec ?? 0) > 0 &&
          fq?.lastEventAgeMs !== null &&
          fq?.forwarder?.split('/')[1] === String(forwarder.child.pid) &&
          parked?.depth === 3 &&
          heldRow?.inFlight === 2
        );
      },
      120_000,
      1_000,
      'status to show the dead letters, the backoff, the rates and the last event',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\nlast status: ${JSON.stringify(last, null, 1)}`);
    });
    const s = last as FleetStatus;
    expect(rowOf(s, CLUSTER).errorsPerSec ?? 0).toBe(0);
    expect(rowOf(s, CLUSTER).lastEventAgeMs).toBeLessThan(120_000);
    expect(rowOf(s, 'ghost').reconcilesPerSec).toBeGreaterThan(0);
    expect(rowOf(s, 'parked')).toMatchObject({ depth: 3, inFlight: 0, backoff: 0, deadLetters: 0 });
    expect(jsonLines(worker).some((l) => l.message === 'Worker started')).toBe(true);

    // The command, as a process: the same figures as JSON, and as a table.
    // Both at once: a process start takes tens of seconds at this machine's load.
    const json = spawnTsx('functions/cli.ts', env(), 'status --json', ['status', '--json']);
    const table = spawnTsx('functions/cli.ts', env(), 'status', ['status']);
    expect(await json.exited).toBe(0);
    const printed = JSON.parse(json.lines.find((l) => l.startsWith('{')) ?? 'null') as FleetStatus;
    expect(rowOf(printed, 'parked')).toMatchObject({ depth: 3, oldestReadyAgeMs: null, inFlight: 0 });
    expect(rowOf(printed, 'held')).toMatchObject({ inFlight: 2 });
    expect(rowOf(printed, 'ghost')).toMatchObject({ deadLetters: 2 });
    // The retried key is either waiting out its backoff or being retried right now.
    const gone = rowOf(printed, 'gone');
    expect((gone.depth ?? 0) + (gone.inFlight ?? 0)).toBe(1);

    expect(await table.exited).toBe(0);
    const header = table.lines.findIndex((l) => l.startsWith('CLUSTER'));
    expect(header).toBeGreaterThan(0);
    const cells = (cluster: string): string[] =>
      (table.lines.find((l) => l.startsWith(`${cluster} `)) ?? '').trim().split(/\s{2,}/);
    // CLUSTER FORWARDER LAST-EVENT DEPTH LATENCY IN-FLIGHT BACKOFF DEAD REC/S ERR/S; no latency without a ready key
    expect(cells('parked').slice(3, 8)).toEqual(['3', '-', '0', '0', '0']);
    expect(cells('held').slice(3, 8)).toEqual(['0', '-', '2', '0', '0']);
    expect(cells('ghost').slice(3, 8)).toEqual(['0', '-', '0', '0', '2']);
  });

  it('--watch prints again every interval until SIGINT; the memory driver is refused', async () => {
    const watch = spawnTsx('functions/cli.ts', env(), 'status --watch', [
      'status',
      '--watch',
      '--interval',
      '1s',
      '--json',
    ]);
    const memory = spawnTsx('functions/cli.ts', { ...env(), FLEETQ_DRIVER: 'memory' }, 'status memory', ['status']);
    procs.push(watch, memory);
    await waitFor(
      async () => watch.lines.filter((l) => l.startsWith('{')).length >= 2,
      120_000,
      200,
      'two refreshes of status --watch',
    );
    expect(await watch.stop('SIGINT')).toBe(0);
    const times = watch.lines.filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as FleetStatus).at);
    expect(new Set(times).size).toBe(times.length);

    expect(await memory.exited).toBe(1);
    expect(memory.lines.join('\n')).toMatch(/status needs a shared store/);
  });
});

/** A LATENCY cell (formatAge) in ms, with half its unit: the rounding it may carry. */
function shownAge(text: string): { ms: number; slack: number } {
  const m = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`LATENCY ${JSON.stringify(text)} is not an age`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return { ms: Number(m[1]) * unit, slack: unit / 2 };
}

describe('fleetq status: queue latency', () => {
  const queueName = `latency-${randomUUID().slice(0, 8)}`;
  let redis: Redis;
  let queue: RedisQueue;
  const procs: Proc[] = [];
  const env = (): NodeJS.ProcessEnv => ({
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: queueName,
    FLEETQ_REDIS_PREFIX: PREFIX,
    REDIS_URL,
  });
  const status = (): Promise<FleetStatus> =>
    collectStatus(loadConfig(env()), { clusters: ['parked', 'late', 'corrupt', 'bulk'], env: {} });
  const rowOf = (s: FleetStatus, cluster: string): ClusterStatus => {
    const row = s.clusters.find((r) => r.cluster === cluster);
    if (!row) throw new Error(`no row for ${cluster} in ${JSON.stringify(s)}`);
    return row;
  };
  /** The Redis server's clock and this process's are one machine's; TIME is cut to whole ms. */
  const CLOCK_SLACK_MS = 5;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    queue = new RedisQueue({ name: queueName, prefix: PREFIX, redis: REDIS_URL, leaseMs: 300_000 });
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await queue?.close();
    await deleteQueueKeys(redis, queue.prefix);
    redis.disconnect();
  });

  it('reports the age of the oldest ready key per cluster, none for delayed keys, and skips a malformed one', async () => {
    // parked: delayed keys only. late: a key whose short delay ends (due, not yet moved to the ready list: no get()
    // runs), then a key added once the first has waited 500 ms, so its ready time is later: the first is the oldest.
    for (const name of ['p1', 'p2']) await queue.addAfter(key('parked', name), 600_000);
    const dueFrom = Date.now() + 300;
    await queue.addAfter(key('late', 'due'), 300);
    const dueTo = Date.now() + 300;
    await waitFor(
      async () => (rowOf(await status(), 'late').oldestReadyAgeMs ?? 0) >= 500,
      30_000,
      50,
      'the delayed key of late to be due and have waited 500 ms',
    );
    const newFrom = Date.now();
    await queue.add(key('late', 'new'));
    // corrupt: one ready key put in through the queue, and one whose stored ready time is not a number (a corrupt or
    // hostile entry: written straight into Redis, beside it in the cluster's ready list).
    const goodFrom = Date.now();
    await queue.add(key('corrupt', 'good'));
    const goodTo = Date.now();
    await redis.hset(`${queue.prefix}pending`, 'corrupt/ConfigMap/default/bad', 'not-a-time');
    await redis.rpush(`${queue.prefix}ready:corrupt`, 'corrupt/ConfigMap/default/bad');

    const before = Date.now();
    const s = await status();
    const after = Date.now();
    const late = rowOf(s, 'late');
    // The oldest is the due key: its age lies within what its ready time allows, above any age the new key can have.
    expect(late.oldestReadyAgeMs).toBeGreaterThanOrEqual(before - dueTo - CLOCK_SLACK_MS);
    expect(late.oldestReadyAgeMs).toBeLessThanOrEqual(after - dueFrom + CLOCK_SLACK_MS);
    expect(late.oldestReadyAgeMs).toBeGreaterThan(after - newFrom + CLOCK_SLACK_MS);
    expect(late).toMatchObject({ depth: 2, oldestReadyLowerBound: false });
    expect(rowOf(s, 'parked')).toMatchObject({ depth: 2, oldestReadyAgeMs: null });
    const corrupt = rowOf(s, 'corrupt');
    expect(corrupt.oldestReadyAgeMs).toBeGreaterThanOrEqual(before - goodTo - CLOCK_SLACK_MS);
    expect(corrupt.oldestReadyAgeMs).toBeLessThanOrEqual(after - goodFrom + CLOCK_SLACK_MS);
    expect(s.notes).toContainEqual(expect.stringMatching(/^1 ready key\(s\) have a stored ready time that is not/));

    // The command as processes: -o json has the same figure, -o wide shows it in the LATENCY column.
    const spawnedFrom = Date.now();
    const json = spawnTsx('functions/cli.ts', env(), 'status -o json', ['status', '-o', 'json']);
    const wide = spawnTsx('functions/cli.ts', env(), 'status -o wide', ['status', '-o', 'wide']);
    procs.push(json, wide);
    expect(await json.exited).toBe(0);
    expect(await wide.exited).toBe(0);
    const exitedAt = Date.now();
    const printed = JSON.parse(json.lines.find((l) => l.startsWith('{')) ?? 'null') as FleetStatus;
    const lateAge = rowOf(printed, 'late').oldestReadyAgeMs ?? -1;
    expect(lateAge).toBeGreaterThanOrEqual(spawnedFrom - dueTo - CLOCK_SLACK_MS);
    expect(lateAge).toBeLessThanOrEqual(exitedAt - dueFrom + CLOCK_SLACK_MS);
    expect(rowOf(printed, 'parked').oldestReadyAgeMs).toBeNull();
    const header = wide.lines.find((l) => l.startsWith('CLUSTER'))?.split(/\s{2,}/) ?? [];
    expect(header.slice(3, 5)).toEqual(['DEPTH', 'LATENCY']);
    const cells = (cluster: string): string[] =>
      (wide.lines.find((l) => l.startsWith(`${cluster} `)) ?? '').trim().split(/\s{2,}/);
    expect(cells('parked').slice(3, 5)).toEqual(['2', '-']);
    expect(cells('late')[3]).toBe('2');
    const shown = shownAge(cells('late')[4] ?? '');
    expect(shown.ms + shown.slack).toBeGreaterThanOrEqual(spawnedFrom - dueTo - CLOCK_SLACK_MS);
    expect(shown.ms - shown.slack).toBeLessThanOrEqual(exitedAt - dueFrom + CLOCK_SLACK_MS);
  });

  it('marks a lower bound when the oldest ready key lies beyond the entries status reads', async () => {
    // bulk: a key whose delay ends, then 101 newer keys; a get() moves the due key behind them and takes the list's
    // head, so the oldest key is the 101st of 101 entries and status reads the first 100.
    await queue.addAfter(key('bulk', 'oldest'), 100);
    const oldestFrom = Date.now() + 100;
    await waitFor(
      async () => (rowOf(await status(), 'bulk').oldestReadyAgeMs ?? 0) >= 300,
      30_000,
      50,
      'the delayed key of bulk to be due and have waited 300 ms',
    );
    const newFrom = Date.now();
    for (let i = 0; i < 101; i++) await queue.add(key('bulk', `n${i}`));
    // The other clusters' keys are ready too: take until bulk's head goes (the get that moves the due key).
    for (;;) {
      const lease = await queue.get(5_000);
      if (!lease) throw new Error('no lease for a ready key');
      if (lease.key.cluster === 'bulk') break;
    }
    expect(await redis.llen(`${queue.prefix}ready:bulk`)).toBe(101);
    const s = await status();
    const after = Date.now();
    const bulk = rowOf(s, 'bulk');
    expect(bulk).toMatchObject({ depth: 101, oldestReadyLowerBound: true });
    // A lower bound: the age of a newer key, not the oldest's.
    expect(bulk.oldestReadyAgeMs).toBeLessThanOrEqual(after - newFrom + CLOCK_SLACK_MS);
    expect(bulk.oldestReadyAgeMs).toBeLessThan(after - oldestFrom);
    expect(s.notes).toContainEqual(
      expect.stringMatching(/^LATENCY ≥ is a lower bound: that cluster has more than 100 ready keys/),
    );
  });
});
