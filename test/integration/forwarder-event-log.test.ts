// The forwarder writes every event it sees to the event log — a real Redis stream and real JSON-lines files —
// trimmed of managedFields, with the initial list as LISTED entries.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { TeeEventLog, type EventLog, type LoggedEvent } from '../../shared/queue/history/event-log.js';
import { JsonlEventLog } from '../../shared/queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kubectl, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';

async function readAll(log: EventLog, from: number): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for await (const e of log.read(CLUSTER, from, Date.now() + 60_000)) out.push(e);
  return out;
}

type Meta = { namespace?: string; name?: string; managedFields?: unknown };
const metaOf = (e: LoggedEvent): Meta => (e.object as { metadata?: Meta }).metadata ?? {};

describe('forwarder event log', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let dir: string;
  let stream: RedisStreamEventLog;
  let files: JsonlEventLog;
  let forwarder: Forwarder;
  const queue = new MemoryQueue();
  const redis = redisClient();

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    dir = await mkdtemp(join(tmpdir(), 'fleetq-event-log-'));
    stream = new RedisStreamEventLog({ redis, prefix: `test-${randomUUID()}`, maxLen: 0 });
    files = new JsonlEventLog({ dir });
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['ConfigMap'],
      queue,
      checkpoints: new MemoryCheckpointStore(),
      eventLog: new TeeEventLog([stream, files]),
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
  });

  afterEach(async () => {
    await forwarder.stop();
    await redis.del(stream.key(CLUSTER));
    await rm(dir, { recursive: true, force: true });
    await ns.remove();
  });

  afterAll(async () => {
    await queue.close();
    await redis.quit();
  });

  it('holds the initial list and every later event, without managedFields, in Redis and in JSON lines', async () => {
    const started = Date.now();
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'before' }, data: { a: '1' } },
    });
    await forwarder.start();
    await forwarder.synced();
    await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'cm' }, data: { a: '1' } } });
    await core.replaceNamespacedConfigMap({
      namespace: ns.name,
      name: 'cm',
      body: { metadata: { name: 'cm' }, data: { a: '2' } },
    });
    await core.deleteNamespacedConfigMap({ namespace: ns.name, name: 'cm' });

    const ours = (events: LoggedEvent[]): string[] =>
      events
        .filter((e) => metaOf(e).namespace === ns.name && metaOf(e).name !== 'kube-root-ca.crt')
        .map((e) => `${e.type} ${metaOf(e).name}`);
    const want = ['LISTED before', 'ADDED cm', 'MODIFIED cm', 'DELETED cm'];
    for (const log of [stream, files]) {
      await waitFor(
        async () => ours(await readAll(log, started)).join() === want.join(),
        30_000,
        100,
        `${log.constructor.name} to hold ${want.join(', ')}`,
      );
      const events = await readAll(log, started);
      expect(events.length).toBeGreaterThan(want.length - 1);
      for (const e of events) {
        expect(e).toMatchObject({ cluster: CLUSTER, resource: 'configmaps' });
        expect(e.observedAt).toBeGreaterThanOrEqual(started);
        expect(metaOf(e).managedFields).toBeUndefined();
      }
    }
    // The API server did send managedFields: the forwarder removed them.
    const raw = await kubectl(c.state, ['get', '--raw', `/api/v1/namespaces/${ns.name}/configmaps/before`]);
    expect((JSON.parse(raw) as { metadata: Meta }).metadata.managedFields).toEqual(expect.any(Array));
  });
});
