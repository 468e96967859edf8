// Log format v1 on real stores (a Redis stream under its own prefix, JSON-lines files in a temp dir): an export
// of a stream is a valid file log, byte for byte; import and stats; an unknown version is refused by every
// reader; and redaction through a real forwarder on the sandbox cluster fleetq-2.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { redactionPolicy } from '../../shared/forwarder/forwarder-deps.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { TeeEventLog, type LoggedEvent } from '../../shared/queue/history/event-log.js';
import { JsonlEventLog, segmentName } from '../../shared/queue/history/jsonl-event-log.js';
import { LogFormatError, type LogRecord } from '../../shared/queue/history/log-record.js';
import { RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { readLogFile, writeLogFile } from '../../shared/replay/log-file.js';
import { importLog } from '../../shared/replay/log-import.js';
import { logStats } from '../../shared/replay/log-stats.js';
import { openLogStore } from '../../shared/replay/log-store.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kubectl, sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const execFileP = promisify(execFile);
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);
const obj = (kind: string, name: string, rv: string): unknown => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const EVENTS: LoggedEvent[] = [
  { type: 'LISTED', cluster: 'c1', resource: 'pods', observedAt: T0, object: obj('Pod', 'a', '1') },
  { type: 'LISTED', cluster: 'c1', resource: 'pods', observedAt: T0, object: obj('Pod', 'b', '2') },
  { type: 'ADDED', cluster: 'c1', resource: 'pods', observedAt: T0 + 1000, object: obj('Pod', 'c', '3') },
  { type: 'MODIFIED', cluster: 'c1', resource: 'pods', observedAt: T0 + 2000, object: obj('Pod', 'c', '4') },
  { type: 'ADDED', cluster: 'c1', resource: 'configmaps', observedAt: T0 + 3000, object: obj('ConfigMap', 'm', '5') },
  { type: 'DELETED', cluster: 'c1', resource: 'pods', observedAt: T0 + 4000, object: obj('Pod', 'a', '6') },
];

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('log format v1 on Redis and files', () => {
  const redis = redisClient();
  let prefix: string;
  let dir: string;
  beforeEach(async () => {
    prefix = `test-${randomUUID()}`;
    dir = await mkdtemp(join(tmpdir(), 'fleetq-replay-log-'));
  });
  afterEach(async () => {
    const keys = await redis.keys(`fleetq:{${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await rm(dir, { recursive: true, force: true });
  });
  afterAll(async () => redis.quit());

  it('exports a stream to a JSON-lines file that is a valid file log, and imports it back into both stores', async () => {
    const stream = new RedisStreamEventLog({ redis, prefix, maxLen: 0 });
    await stream.append('c1', EVENTS);
    const exported = join(dir, 'export.jsonl');
    expect(await writeLogFile(exported, stream.read('c1', 0, Number.MAX_SAFE_INTEGER))).toBe(EVENTS.length);

    // The file's lines are the stream's entries, byte for byte.
    const entries = (await redis.xrange(stream.key('c1'), '-', '+')).map(([, f]) => f[1]);
    expect((await readFile(exported, 'utf8')).trimEnd().split('\n')).toEqual(entries);
    const records = await collect(readLogFile(exported));
    expect(records.map((r) => [r.v, r.type, r.resourceVersion, r.observedAt])).toEqual(
      EVENTS.map((e) => [
        1,
        e.type,
        (e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
        e.observedAt,
      ]),
    );

    // The same file as a segment of a file log, and imported into a file store and a second stream.
    const files = new JsonlEventLog({ dir: join(dir, 'copy'), maxSegments: 0 });
    await mkdir(files.clusterDir('c1'), { recursive: true });
    await writeFile(join(files.clusterDir('c1'), segmentName(T0)), await readFile(exported));
    expect(await collect(files.read('c1', 0, Number.MAX_SAFE_INTEGER))).toEqual(records);

    const config = loadConfig({ FLEETQ_QUEUE: `${prefix}-b` });
    const targets = [openLogStore(`jsonl:${join(dir, 'imported')}`, config), openLogStore('redis', config)];
    for (const target of targets) {
      expect([...(await importLog(readLogFile(exported), target))]).toEqual([['c1', EVENTS.length]]);
      expect(await collect(target.read('c1', 0, Number.MAX_SAFE_INTEGER))).toEqual(records);
      // A Redis import takes the records' time: a window selects by observedAt.
      expect((await collect(target.read('c1', T0 + 1000, T0 + 2000))).map((r) => r.type)).toEqual([
        'ADDED',
        'MODIFIED',
      ]);
      await target.close();
    }

    expect(await logStats(readLogFile(exported))).toEqual({
      records: 6,
      firstAt: T0,
      lastAt: T0 + 4000,
      counts: { pods: { LISTED: 2, ADDED: 1, MODIFIED: 1, DELETED: 1 }, configmaps: { ADDED: 1 } },
    });
  });

  // Far more than one XRANGE page (500): a window that starts and ends inside pages is exported whole, in order.
  // The stream is filled by an import (entry ids from the records' time), so a window selects by observedAt.
  it('exports, imports and counts a window of a stream several pages long, every record once', async () => {
    const many: LogRecord[] = Array.from({ length: 1_234 }, (_, i) => ({
      v: 1,
      type: i === 0 ? 'ADDED' : 'MODIFIED',
      cluster: 'c1',
      resource: 'pods',
      observedAt: T0 + i * 1000,
      resourceVersion: String(i + 1),
      object: obj('Pod', 'p', String(i + 1)),
    }));
    const source = join(dir, 'many.jsonl');
    expect(
      await writeLogFile(
        source,
        (async function* () {
          yield* many;
        })(),
      ),
    ).toBe(1_234);
    const config = loadConfig({ FLEETQ_QUEUE: `${prefix}-m` });
    const stream = openLogStore('redis', config);
    expect([...(await importLog(readLogFile(source), stream))]).toEqual([['c1', 1_234]]);
    const [from, to] = [T0 + 250_000, T0 + 1_149_000]; // records 251..1150: 900 of them, across three pages
    const exported = join(dir, 'window.jsonl');
    expect(await writeLogFile(exported, stream.read('c1', from, to))).toBe(900);
    const records = await collect(readLogFile(exported));
    expect(records.map((r) => r.resourceVersion)).toEqual(Array.from({ length: 900 }, (_, i) => String(i + 251)));
    const files = openLogStore(`jsonl:${join(dir, 'imported-window')}`, config);
    expect([...(await importLog(readLogFile(exported), files))]).toEqual([['c1', 900]]);
    expect(await collect(files.read('c1', 0, Number.MAX_SAFE_INTEGER))).toEqual(records);
    expect((await logStats(stream.read('c1', 0, Number.MAX_SAFE_INTEGER))).counts).toEqual({
      pods: { ADDED: 1, MODIFIED: 1_233 },
    });
    await Promise.all([files.close(), stream.close()]);
  });

  it('refuses a record of an unknown version in a stream, a file log and an exported file, naming where', async () => {
    const stream = new RedisStreamEventLog({ redis, prefix, maxLen: 0 });
    await stream.append('c1', EVENTS.slice(0, 1));
    const future = JSON.stringify({ ...(EVENTS[1] as LoggedEvent), v: 2 });
    const id = await redis.xadd(stream.key('c1'), '*', 'e', future);
    await expect(collect(stream.read('c1', 0, Number.MAX_SAFE_INTEGER))).rejects.toThrow(
      new LogFormatError(
        `${stream.key('c1')} entry ${id}: log format version 2 is unknown; this reader knows v1 (a newer fleetq wrote it?)`,
      ),
    );

    const files = new JsonlEventLog({ dir, maxSegments: 0 });
    await files.append('c1', EVENTS.slice(0, 1));
    const segment = join(files.clusterDir('c1'), segmentName(T0));
    await appendFile(segment, `${future}\n`);
    await expect(collect(files.read('c1', 0, Number.MAX_SAFE_INTEGER))).rejects.toThrow(
      `${segment}:2: log format version 2`,
    );
    await expect(collect(readLogFile(segment))).rejects.toThrow(LogFormatError);
  });
});

describe('fleetq log export and stats (the command)', () => {
  const redis = redisClient();
  afterAll(async () => redis.quit());

  it('exports a cluster the store holds, refuses one it has no record of naming the nearest, and counts as JSON', async () => {
    const queue = `test-${randomUUID()}`;
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-export-cli-'));
    const store = openLogStore('redis', loadConfig({ FLEETQ_QUEUE: queue }));
    try {
      await store.append('prod-eu', EVENTS);
      await store.append('prod-us', EVENTS.slice(0, 1));
      const fleetq = (...args: string[]) =>
        execFileP(process.execPath, ['--import', 'tsx', 'functions/cli.ts', 'log', ...args], {
          env: { ...process.env, FLEETQ_QUEUE: queue, FLEETQ_EVENT_LOG: '', NODE_OPTIONS: '' },
          timeout: 240_000,
        }).then(
          (out) => ({ code: 0, ...out }),
          (err: { code: number; stdout: string; stderr: string }) => err,
        );
      const out = join(dir, 'eu.jsonl');
      const [exported, typo, unknown, stats] = await Promise.all([
        fleetq('export', '--cluster', 'prod-eu', '--out', out),
        fleetq('export', '--cluster', 'prod-euu'),
        fleetq('export', '--cluster', 'nosuch'),
        fleetq('stats', '--cluster', 'prod-eu', '-o', 'json'),
      ]);
      expect(exported.code).toBe(0);
      expect(exported.stderr).toContain(`exported ${EVENTS.length} record(s) of prod-eu from redis to ${out}`);
      expect((await collect(readLogFile(out))).length).toBe(EVENTS.length);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain(
        'fleetq: --cluster "prod-euu": redis has no record of this cluster; did you mean prod-eu? (it holds prod-eu, prod-us)',
      );
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(
        '--cluster "nosuch": redis has no record of this cluster (it holds prod-eu, prod-us)',
      );
      expect(unknown.stdout).toBe('');
      expect(stats.code).toBe(0);
      expect(JSON.parse(stats.stdout)).toMatchObject({ records: 6, counts: { pods: { LISTED: 2, DELETED: 1 } } });
    } finally {
      await store.close();
      const keys = await redis.keys(`fleetq:{fleetq:${queue}}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('redaction through a real forwarder (fleetq-2)', () => {
  const CLUSTER = 'fleetq-2';
  const PASSWORD = `hunter2-${randomUUID()}`;
  const redis = redisClient();
  const queue = new MemoryQueue();
  let dir: string;
  afterAll(async () => {
    await queue.close();
    await redis.quit();
  });

  it('logs neither a Secret nor ConfigMap data (nor its last-applied copy) unless the cluster opts in', async () => {
    const c = await sandboxCluster(CLUSTER);
    const ns = await testNamespace(c.kc);
    dir = await mkdtemp(join(tmpdir(), 'fleetq-redaction-'));
    const prefix = `test-${randomUUID()}`;
    const stream = new RedisStreamEventLog({ redis, prefix, maxLen: 0 });
    const files = new JsonlEventLog({ dir });
    // The opt-in as the forwarder's stores read it: a registry naming another cluster leaves fleetq-2 redacted.
    const registryFile = join(dir, 'fleet.yaml');
    await writeFile(
      registryFile,
      `clusters:\n  - name: ${CLUSTER}\n    kubeconfig: ${c.state.kubeconfig}\n  - name: other\n    kubeconfig: /k\n    eventLog: { configMapData: true }\n`,
    );
    const redaction = redactionPolicy(loadConfig({ FLEETQ_REGISTRY: registryFile }));
    expect([redaction.keepConfigMapData?.(CLUSTER), redaction.keepConfigMapData?.('other')]).toEqual([false, true]);
    const opted = new RedisStreamEventLog({
      redis,
      prefix: `${prefix}-opted`,
      maxLen: 0,
      redaction: { keepConfigMapData: () => true },
    });
    const log = new TeeEventLog([
      new RedisStreamEventLog({ redis, prefix, maxLen: 0, redaction }),
      new JsonlEventLog({ dir, redaction }),
      opted,
    ]);
    const forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['ConfigMap'],
      queue,
      checkpoints: new MemoryCheckpointStore(),
      eventLog: log,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
    try {
      const manifest = join(dir, 'objects.yaml');
      const b64 = Buffer.from(PASSWORD).toString('base64');
      await writeFile(
        manifest,
        [
          `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: listed, namespace: ${ns.name} }\ndata: { password: "${PASSWORD}" }`,
          `apiVersion: v1\nkind: Secret\nmetadata: { name: creds, namespace: ${ns.name} }\ndata: { password: "${b64}" }`,
        ].join('\n---\n'),
      );
      await kubectl(c.state, ['apply', '-f', manifest]); // apply: last-applied-configuration repeats the data
      await forwarder.start();
      await forwarder.synced();
      await writeFile(
        manifest,
        `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: watched, namespace: ${ns.name} }\ndata: { password: "${PASSWORD}" }`,
      );
      await kubectl(c.state, ['apply', '-f', manifest]);

      const ours = (records: LogRecord[]): string[] =>
        records
          .filter((r) => (r.object as { metadata?: { namespace?: string } }).metadata?.namespace === ns.name)
          .filter((r) => !JSON.stringify(r).includes('kube-root-ca.crt'))
          .map((r) => `${r.type} ${(r.object as { metadata: { name: string } }).metadata.name}`);
      const want = ['LISTED listed', 'ADDED watched'];
      for (const l of [stream, files, opted]) {
        await waitFor(
          async () => ours(await collect(l.read(CLUSTER, 0, Number.MAX_SAFE_INTEGER))).join() === want.join(),
          30_000,
          100,
          `${l.constructor.name} to hold ${want.join(', ')}`,
        );
      }
      const segments = await readdir(files.clusterDir(CLUSTER));
      const fileText = (
        await Promise.all(segments.map((s) => readFile(join(files.clusterDir(CLUSTER), s), 'utf8')))
      ).join();
      const streamText = (await redis.xrange(stream.key(CLUSTER), '-', '+')).map(([, f]) => f[1]).join();
      for (const text of [fileText, streamText]) {
        // The forwarder drops last-applied before it holds an object (object-trim.ts), so the log's own redaction
        // (log-record.ts, which would drop it too) never sees it: either way no copy of the data is logged.
        expect(text).toContain('"fleetqRedacted":["data"]');
        expect(text).not.toContain('"kubectl.kubernetes.io/last-applied-configuration":');
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain(b64);
        expect(text).not.toContain('"creds"');
      }
      // The cluster that opts in keeps the data (so the test above would see it, were it logged).
      const optedText = (await redis.xrange(opted.key(CLUSTER), '-', '+')).map(([, f]) => f[1]).join();
      expect(optedText).toContain(PASSWORD);
      // The Secret went through the same writers: no store holds it.
      await log.append(CLUSTER, [
        {
          type: 'ADDED',
          cluster: CLUSTER,
          resource: 'secrets',
          observedAt: Date.now(),
          object: JSON.parse(await kubectl(c.state, ['get', 'secret', 'creds', '-n', ns.name, '-o', 'json'])),
        },
      ]);
      const after = (await redis.xrange(opted.key(CLUSTER), '-', '+')).map(([, f]) => f[1]).join();
      expect(after).not.toContain(b64);
    } finally {
      await forwarder.stop();
      const keys = await redis.keys(`fleetq:{${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await rm(dir, { recursive: true, force: true });
      await ns.remove();
    }
  });
});
