// `fleetq replay shadow` over the recorded logs (events/logs/*.jsonl, captured from sandbox runs), from a file
// and from a real Redis stream: this build against itself differs nowhere; a changed Deployment planner (a
// fixture module, as another commit's build would be given) differs exactly at the expected events.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../shared/runtime/config.js';
import type { LogRecord } from '../../shared/queue/history/log-record.js';
import { readLogFile } from '../../shared/replay/log-file.js';
import { importLog } from '../../shared/replay/log-import.js';
import { openLogStore } from '../../shared/replay/log-store.js';
import { loadControllers, shadow, type ShadowReport } from '../../shared/replay/shadow.js';
import '../helpers/long-timeout.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const execFileP = promisify(execFile);
const LOGS = 'events/logs';
const ROLLOUT = join(LOGS, 'rollout-scale.jsonl');
const OWNS = new Set(['Deployment', 'ReplicaSet']);
const FIXTURES = 'test/unit/replay/fixtures';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('replay shadow', () => {
  const redis = redisClient();
  afterAll(async () => redis.quit());

  it.each(readdirSync(LOGS).filter((f) => f.endsWith('.jsonl')))(
    'this build against itself: no difference on %s',
    async (file) => {
      const current = await loadControllers('current');
      // Every kind this build has a controller for (the Job storm and the DaemonSet log need theirs).
      const owns = new Set(current.keys());
      const report = await shadow(readLogFile(join(LOGS, file)), { owns, a: current, b: current });
      expect(report.differences).toEqual([]);
      expect(report.differing).toBe(0);
      expect(report.acting).toBeGreaterThan(10); // the planners did decide things
    },
  );

  it('a changed Deployment planner differs exactly at the events after the scale to 7', async () => {
    const current = await loadControllers('current');
    const run = async (fixture: string): Promise<ShadowReport> =>
      shadow(readLogFile(ROLLOUT), { owns: OWNS, a: current, b: await loadControllers(join(FIXTURES, fixture)) });
    // Where the Deployment was decided at all (every such decision differs under this fixture) …
    const all = await run('deployment-always.ts');
    expect(new Set(all.differences.map((d) => d.key))).toEqual(new Set(['upstream-1/Deployment/rollout/web']));
    // … and the spec.replicas the log held at each event, read from the log itself.
    const records: LogRecord[] = await collect(readLogFile(ROLLOUT));
    let replicas = 0;
    const replicasAt = records.map((r) => {
      if (r.resource === 'deployments') replicas = (r.object as { spec: { replicas: number } }).spec.replicas;
      return replicas;
    });
    const want = all.differences.map((d) => d.event.index).filter((i) => replicasAt[i] === 7);
    const firstAtSeven = replicasAt.indexOf(7);

    const atSeven = await run('deployment-at-seven.ts');
    expect(atSeven.differences.map((d) => d.event.index)).toEqual(want);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(all.differences.length);
    // The first difference names the event that scaled the Deployment.
    expect(atSeven.differences[0]?.event).toMatchObject({
      index: firstAtSeven,
      type: 'MODIFIED',
      resource: 'deployments',
      name: 'rollout/web',
    });
  });

  it('reads a Redis stream the same way, and the command exits 1 on a difference', async () => {
    const name = testQueueName();
    const store = openLogStore('redis', loadConfig({ FLEETQ_QUEUE: name }));
    try {
      await importLog(readLogFile(ROLLOUT), store);
      const current = await loadControllers('current');
      const fromStream = await shadow(store.read('upstream-1', 0, Number.MAX_SAFE_INTEGER), {
        owns: OWNS,
        a: current,
        b: await loadControllers(join(FIXTURES, 'deployment-at-seven.ts')),
      });
      const fromFile = await shadow(readLogFile(ROLLOUT), {
        owns: OWNS,
        a: current,
        b: await loadControllers(join(FIXTURES, 'deployment-at-seven.ts')),
      });
      expect(fromStream).toEqual(fromFile);

      const cli = await execFileP(
        process.execPath,
        [
          '--import',
          'tsx',
          'functions/cli.ts',
          'replay',
          'shadow',
          '--log',
          ROLLOUT,
          '--owns',
          'Deployment,ReplicaSet',
          '--b',
          join(FIXTURES, 'deployment-at-seven.ts'),
          '--json',
        ],
        { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 240_000 },
      ).then(
        () => ({ code: 0, stdout: '' }),
        (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
      );
      expect(cli.code).toBe(1);
      expect((JSON.parse(cli.stdout) as ShadowReport).differences).toEqual(fromFile.differences);
    } finally {
      await store.close();
      const keys = await redis.keys(`fleetq:{fleetq:${name}}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
