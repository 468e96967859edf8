// Hostile input in a log: a line that is not JSON, a record without its fields, odd and invalid names, a pod
// whose owner does not exist, a huge object, an object the entry cap truncated, a resource this build does not
// know. Shadow, requeue, stats and import go on past each one, report it with a reason, and never stop or hang;
// from a JSON-lines file and from a real Redis stream alike. A record of an unknown format version still stops
// the read (that refusal is the format's promise; replay-log.test.ts).
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LogFormatError } from '../../shared/queue/history/log-record.js';
import { type LogRecord } from '../../shared/queue/history/log-record.js';
import { RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { readLogFile } from '../../shared/replay/log-file.js';
import { logStats } from '../../shared/replay/log-stats.js';
import { windowKeys } from '../../shared/replay/requeue.js';
import { loadControllers, shadow } from '../../shared/replay/shadow.js';
import '../helpers/long-timeout.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const execFileP = promisify(execFile);
const ROLLOUT = 'events/logs/rollout-scale.jsonl';
const OWNS = new Set(['Deployment', 'ReplicaSet']);

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The rollout's first 60 records with hostile lines between them; returns the lines and what each is. */
async function hostileLines(): Promise<string[]> {
  const good = (await collect(readLogFile(ROLLOUT))).slice(0, 60);
  const t = good[10]!.observedAt;
  const rec = (resource: string, type: string, object: unknown, dt = 0): string =>
    JSON.stringify({ v: 1, cluster: 'upstream-1', resource, type, resourceVersion: '', observedAt: t + dt, object });
  const deployment = good.find((r) => r.resource === 'deployments')!.object as Record<string, unknown>;
  const meta = (name: string, extra: object = {}) => ({ name, namespace: 'rollout', uid: `uid-${name}`, ...extra });
  const hostile = [
    '{"v":1,"cluster":"upstream-1","resource":"pods",', // cut short: not JSON
    'this line is not JSON at all',
    '{"v":1,"cluster":"upstream-1"}', // no resource, type, time, object
    rec('deployments', 'ADDED', { ...deployment, metadata: meta('Bad Name!') }), // an invalid key
    rec('deployments', 'ADDED', { ...deployment, metadata: meta(`d${'x'.repeat(300)}`) }), // a name too long
    rec('pods', 'ADDED', {
      kind: 'Pod',
      metadata: meta('orphan-of-a-ghost', {
        labels: { app: 'nothing' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: 'no-such-uid', controller: true },
        ],
      }),
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { phase: 'Running' },
    }),
    rec('deployments', 'ADDED', {
      ...deployment,
      metadata: meta('huge', { annotations: { blob: 'y'.repeat(3_000_000) } }),
    }),
    rec('deployments', 'MODIFIED', {
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'rollout', resourceVersion: '99999' },
      fleetqTruncated: { bytes: 99_999, maxBytes: 16_384 },
    }),
    rec('widgets', 'ADDED', { metadata: meta('w') }),
    rec('deployments', 'ADDED', { metadata: 'not an object' }),
    rec('deployments', 'ADDED', null),
  ];
  const lines = good.map((r) => JSON.stringify(r));
  lines.splice(11, 0, ...hostile);
  return lines;
}

describe('replay over hostile input', () => {
  const redis = redisClient();
  let dir: string;
  afterAll(async () => {
    await redis.quit();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shadow, requeue and stats go on past every hostile record of a file and of a Redis stream, saying why', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-hostile-'));
    const lines = await hostileLines();
    const file = join(dir, 'hostile.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const stream = new RedisStreamEventLog({ redis, prefix: `test-${testQueueName()}`, maxLen: 0 });
    const key = stream.key('upstream-1');
    // Raw entries, as a writer that went wrong would leave them (ids in order of the lines).
    let id = 1;
    for (const line of lines) await redis.xadd(key, `${id++}-0`, 'e', line);
    try {
      const current = await loadControllers('current');
      for (const source of ['file', 'stream'] as const) {
        const malformed: LogFormatError[] = [];
        const read = (): AsyncIterable<LogRecord> =>
          source === 'file'
            ? readLogFile(file, undefined, (e) => malformed.push(e))
            : stream.read('upstream-1', 0, Number.MAX_SAFE_INTEGER, (e) => malformed.push(e));
        const report = await shadow(read(), { owns: OWNS, a: current, b: current });
        expect(malformed.map((e) => e.message.replace(/^.*?: /, ''))).toEqual([
          expect.stringMatching(/^not JSON/),
          expect.stringMatching(/^not JSON/),
          'not a v1 record (needs cluster, resource, type, observedAt, object)',
        ]);
        // Where each malformed record is: file:line or the stream entry.
        expect(malformed[1]?.message).toMatch(source === 'file' ? /hostile\.jsonl:13: / : / entry 13-0: /);
        expect(report.differing).toBe(0);
        const reasons = Object.fromEntries(report.skipped.map((s) => [s.reason, s.count]));
        expect(reasons).toMatchObject({
          'an object truncated in the log (larger than its entry cap)': 1,
          'resource widgets unknown to this build': 1,
          'an object without metadata.name': 2,
        });
        expect(Object.keys(reasons).filter((r) => r.startsWith('invalid key'))).toHaveLength(2);
        // Read as events: the 60 good records, the two badly named, the ghost's orphan, the huge one, the widget.
        expect(report.events).toBe(60 + 5);
        expect(report.acting).toBeGreaterThan(5);
        malformed.length = 0;
        const found = await windowKeys(read(), {
          cluster: 'upstream-1',
          fromMs: 0,
          toMs: Number.MAX_SAFE_INTEGER,
          owns: OWNS,
        });
        expect(found.invalid).toBeGreaterThanOrEqual(2);
        expect(found.keys.map((k) => `${k.kind}/${k.name}`)).toEqual(
          expect.arrayContaining(['Deployment/web', 'Deployment/huge', 'ReplicaSet/ghost']),
        );
        malformed.length = 0;
        expect((await logStats(read())).records).toBe(lines.length - 3);
      }
      // Without a reporter, a reader still refuses the first malformed record, naming it.
      await expect(collect(readLogFile(file))).rejects.toThrow(`${file}:12: not JSON`);

      // The command says what it skipped, and finishes with its report.
      const cli = await execFileP(
        'npx',
        [
          'tsx',
          'functions/cli.ts',
          'replay',
          'shadow',
          '--log',
          file,
          '--owns',
          'Deployment,ReplicaSet',
          '--b',
          'current',
        ],
        { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
      );
      expect(cli.stderr).toContain(`fleetq: skipped a malformed record: ${file}:12: not JSON`);
      expect(cli.stderr).toContain('fleetq: skipped 3 malformed record(s)');
      expect(cli.stdout).toContain('skipped 1×: resource widgets unknown to this build');
      expect(cli.stdout).toMatch(/65 event\(s\), \d+ decision\(s\) compared .* 0 difference\(s\)/);
    } finally {
      await redis.del(key);
    }
  });
});
