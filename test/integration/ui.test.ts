// `fleetq ui` in a real headless browser (Debian's chromium through playwright-core), against real Redis and the
// sandbox cluster fleetq-2. The test makes each figure itself, on a queue of its own:
//   fleetq-2  3 keys added with a 10-minute delay (depth 3, no latency: none is ready); its apiserver answers
//             /version (health ok)
//   gone      an unreachable cluster of the registry (health unreachable); 2 keys this test holds under leases
//             (in flight 2), 1 key it dead-letters with a reason carrying a <script> element (dead 1) and 1 ready
//             key nothing takes (depth 1; its latency, the age of that key, within the bounds of when it was added)
//   raw       a message that never was a key, parked with `<img src=x onerror=...>` as its text: (unparsed) dead 1
//   fleetq-1  the registry's hub (hub: true): the FleetRollout CRD applied (idempotently, and left installed: other
//             tests use it) and, in a namespace of this test's own, two FleetRollouts with their ledgers written
//             through /status (test/helpers/rollouts/ledger-fixture.ts): `web` mid-way (canary: eu-1 succeeded,
//             us-2 soaking, its reason an <img> element; rest: ap-3 waiting for an approval) and `web-stopped`
//             (us-2 failed with a signature, eu-1 rolled back, the stop reason a <script> element)
// `fleetq ui` runs as a process; the page must show exactly those figures and rollouts, the hostile text as literal
// text with nothing of it run or loaded (no <img>, no request for `x` or `y`, no flag set by a handler), and refuse
// anything but GET and HEAD. A screenshot of the page is saved to test/artifacts/ui.png.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { installCrds } from '../../infra/sandbox/crds.js';
import { KubeRest, NO_RATE_LIMIT } from '../../shared/kube/rest.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import type { Lease } from '../../shared/queue/work-queue.js';
import { unreachableCluster, writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { CURRENT_REVISION, ledgerRollout, type RawRollout } from '../helpers/rollouts/ledger-fixture.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = 'fleetq';
const CLUSTER = 'fleetq-2';
const HUB = 'fleetq-1';
const CRD_FILE = new URL('../../infra/k8s/fleetrollout-crd.yaml', import.meta.url);
const CHROMIUM = process.env.FLEETQ_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'ui.png');
/** Text that runs a handler if a page ever parses it as HTML. */
const HOSTILE_RAW = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_REASON = 'apply failed: <script>window.__pwned=2</script>';
/** Tenant text in FleetRollouts: a cluster's reason and a stop reason. */
const HOSTILE_CLUSTER_REASON = 'Available <img src=y onerror="window.__pwned=3">';
const HOSTILE_STOP_REASON = 'past the budget <script>window.__pwned=4</script>';

const key = (cluster: string, name: string): ReconcileKey => ({
  cluster,
  kind: 'ConfigMap',
  namespace: 'default',
  name,
});

/** What the page shows of a cluster: the text of each cell, by field. */
type Row = Record<string, string>;
type Shown = {
  rows: Record<string, Row>;
  deadSummary: string;
  deadLetters: Array<Record<string, string>>;
  rolloutsSummary: string;
  /** By `namespace/name`: the rollout's facts (by field) and its waves' rows. */
  rollouts: Record<string, { facts: Row; rows: Row[] }>;
  problem: string;
};

// Code run in the page. Strings: the project's TypeScript has no DOM types (Node only), and these read the DOM.
/** The page's figures: the text of each cell (data-cluster marks a cluster's row, data-field a cell). */
const READ_PAGE = `(() => {
  const fields = (tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.field, td.textContent]));
  return {
    rows: Object.fromEntries([...document.querySelectorAll('#clusters tbody tr')].map((tr) => [tr.dataset.cluster, fields(tr)])),
    deadSummary: document.getElementById('dead-summary').textContent,
    deadLetters: [...document.querySelectorAll('#dead-letters tbody tr')].map(fields),
    rolloutsSummary: document.getElementById('rollouts-summary').textContent,
    rollouts: Object.fromEntries([...document.querySelectorAll('#rollouts article')].map((a) => [a.dataset.rollout, {
      facts: Object.fromEntries([...a.querySelectorAll('h3[data-field], dd[data-field], p[data-field]')].map((n) => [n.dataset.field, n.textContent])),
      rows: [...a.querySelectorAll('tbody tr')].map(fields),
    }])),
    problem: document.getElementById('problem').textContent,
  };
})()`;
/** What would show that data was parsed as HTML or run: elements it would make, the flag its handlers set. */
const PARSED_OR_RUN = `({
  images: document.querySelectorAll('img').length,
  scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
  pwned: window.__pwned ?? null,
})`;

const readPage = (page: Page): Promise<Shown> => page.evaluate<Shown>(READ_PAGE);

describe('fleetq ui', () => {
  const queueName = `ui-${randomUUID().slice(0, 8)}`;
  let redis: Redis;
  let queue: RedisQueue;
  let registry: string;
  let browser: BrowserContext | undefined;
  let userDataDir: string;
  let hubRest: KubeRest;
  let ns: { name: string; remove: () => Promise<void> } | undefined;
  const procs: Proc[] = [];
  const held: Lease[] = [];
  const env = (): NodeJS.ProcessEnv => ({
    FLEETQ_REGISTRY: registry,
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: queueName,
    FLEETQ_REDIS_PREFIX: PREFIX,
    REDIS_URL,
  });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set FLEETQ_CHROMIUM to one)`);
    const c = await sandboxCluster(CLUSTER);
    const hub = await sandboxCluster(HUB);
    hubRest = new KubeRest(HUB, hub.kc, NO_RATE_LIMIT);
    await installCrds(hub.kc, [CRD_FILE]);
    ns = await testNamespace(hub.kc);
    redis = new Redis(REDIS_URL);
    // This test's leases last 5 minutes: the held keys stay held for the whole test.
    queue = new RedisQueue({ name: queueName, prefix: PREFIX, redis: REDIS_URL, leaseMs: 300_000 });
    registry = writeRegistry([
      { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'] },
      await unreachableCluster('gone'),
      { name: HUB, kubeconfig: hub.state.kubeconfig, hub: true },
    ]);
    userDataDir = mkdtempSync(join(tmpdir(), 'fleetq-ui-chromium-'));
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await queue?.close();
    if (redis) {
      await deleteQueueKeys(redis, queue.prefix);
      redis.disconnect();
    }
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await ns?.remove();
  });

  /** Creates the FleetRollout on the hub, then writes its ledger through the status subresource, as the planner does. */
  async function createRollout(raw: RawRollout): Promise<void> {
    const path = `/apis/fleetq.dev/v1alpha1/namespaces/${raw.metadata.namespace}/fleetrollouts`;
    const { status, ...object } = raw;
    await hubRest.request('POST', path, { body: object });
    await hubRest.request('PATCH', `${path}/${raw.metadata.name}/status`, {
      body: { status },
      contentType: 'application/merge-patch+json',
    });
  }

  /** The current revision's ledger entry of a fixture rollout (the last one). */
  const currentOf = (raw: RawRollout) =>
    (raw.status.revisions as Array<{ stopReason?: string; clusters: Array<{ cluster: string; reason?: string }> }>)[1];

  it('shows the figures the test made, the hostile text as text, and is read-only', async () => {
    // Held first: with nothing else ready, this process takes both keys of `gone` and keeps them.
    await queue.add(key('gone', 'held-a'));
    await queue.add(key('gone', 'held-b'));
    for (let i = 0; i < 2; i++) {
      const lease = await queue.get(5_000);
      if (!lease) throw new Error('no lease for a held key');
      held.push(lease);
    }
    await queue.add(key('gone', 'broken'));
    const broken = await queue.get(5_000);
    if (!broken) throw new Error('no lease for the key to dead-letter');
    await queue.deadLetter(broken, HOSTILE_REASON);
    await queue.parkInvalid(HOSTILE_RAW, 'not a key');
    for (const name of ['p1', 'p2', 'p3']) await queue.addAfter(key(CLUSTER, name), 600_000);
    const waitingFrom = Date.now();
    await queue.add(key('gone', 'waiting'));
    const waitingTo = Date.now();
    if (!ns) throw new Error('no test namespace on the hub');
    const createdAt = Date.now();
    const web = ledgerRollout('web', ns.name, createdAt);
    const us2 = currentOf(web)?.clusters.find((r) => r.cluster === 'us-2');
    if (us2) us2.reason = HOSTILE_CLUSTER_REASON;
    const stopped = ledgerRollout('web-stopped', ns.name, createdAt, { stopped: true });
    const stoppedEntry = currentOf(stopped);
    if (stoppedEntry) stoppedEntry.stopReason = HOSTILE_STOP_REASON;
    await createRollout(web);
    await createRollout(stopped);
    const webKey = `${ns.name}/web`;
    const stoppedKey = `${ns.name}/web-stopped`;

    const uiFrom = Date.now();
    const ui = spawnTsx('functions/cli.ts', env(), 'ui', ['ui', '--port', '0', '--refresh', '1s']);
    procs.push(ui);
    const url = /(http:\/\/\S+)/.exec(await ui.waitForLine(/^fleetq ui: http:\/\//, 120_000))?.[1] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    const requested: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('dialog', (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });

    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');

    // The page refreshes every second; wait (60 s at most) until it shows every figure, then read it once more.
    const want = {
      [CLUSTER]: { depth: '3', latency: '-', inFlight: '0', deadLetters: '0' },
      gone: { depth: '1', inFlight: '2', deadLetters: '1' },
      '(unparsed)': { deadLetters: '1' },
    };
    let shown: Shown | undefined;
    const deadline = Date.now() + 60_000;
    for (;;) {
      shown = await readPage(page);
      const rows = shown.rows;
      const matches = Object.entries(want).every(([cluster, cells]) =>
        Object.entries(cells).every(([field, value]) => rows[cluster]?.[field] === value),
      );
      const healthKnown = rows[CLUSTER]?.health?.startsWith('ok') && rows.gone?.health?.startsWith('unreachable');
      const latencyShown = /^\d+(ms|s|m|h)$/.test(rows.gone?.latency ?? '');
      const rolloutsShown = shown.rollouts[webKey] !== undefined && shown.rollouts[stoppedKey] !== undefined;
      if (matches && healthKnown && latencyShown && shown.deadLetters.length === 2 && rolloutsShown) break;
      if (Date.now() > deadline)
        throw new Error(`the page never showed the test's figures; it shows ${JSON.stringify(shown)}`);
      await page.waitForEvent('response', { predicate: (r) => r.url().endsWith('/api/status'), timeout: 10_000 });
    }

    expect(Object.keys(shown.rows).sort()).toEqual(['(unparsed)', CLUSTER, HUB, 'gone'].sort());
    expect(shown.rows[CLUSTER]).toMatchObject({
      cluster: CLUSTER,
      depth: '3',
      inFlight: '0',
      backoff: '0',
      deadLetters: '0',
    });
    expect(shown.rows[CLUSTER]?.health).toMatch(/^ok\s*v\d+\.\d+/);
    const readAt = Date.now();
    expect(shown.rows.gone).toMatchObject({ cluster: 'gone', depth: '1', inFlight: '2', deadLetters: '1' });
    // The latency cell: the waiting key's age at a snapshot taken after `fleetq ui` started and before this read,
    // within what the key's ready time allows (the page rounds to its unit: half of one either way).
    const [, digits, unit] = /^(\d+)(ms|s|m|h)$/.exec(shown.rows.gone?.latency ?? '') ?? [];
    const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
    const latencyMs = Number(digits) * unitMs;
    expect(latencyMs + unitMs / 2).toBeGreaterThanOrEqual(uiFrom - waitingTo - 5);
    expect(latencyMs - unitMs / 2).toBeLessThanOrEqual(readAt - waitingFrom + 5);
    expect(shown.rows[CLUSTER]?.latency).toBe('-');
    expect(shown.rows.gone?.health).toMatch(/^unreachable/);
    expect(shown.rows['(unparsed)']?.cluster).toContain('not in the registry');
    expect(shown.problem).toBe('');
    expect(shown.deadSummary).toBe('2 dead letters.');
    // The hostile text, shown exactly as it was parked: as text.
    const texts = shown.deadLetters.map((d) => `${d.key} | ${d.reason}`);
    expect(texts).toContainEqual(`(not a key) ${HOSTILE_RAW} | not a key`);
    expect(texts).toContainEqual(`gone/ConfigMap/default/broken | ${HOSTILE_REASON}`);
    // The hub's FleetRollouts: each with its target, revision, phase, and per wave its clusters' states.
    expect(shown.rolloutsSummary).toMatch(new RegExp(`FleetRollouts? (on|of) the hub cluster ${HUB}`));
    expect(shown.rollouts[webKey]?.facts).toEqual({
      name: webKey,
      target: 'Deployment shop/web',
      phase: 'Progressing',
      revision: `${CURRENT_REVISION} (attempt 1)`,
      wave: 'canary',
    });
    // us-2 became available 4 minutes before createdAt with a 10m soak: 6 minutes left then, less since.
    const webRows = shown.rollouts[webKey]?.rows ?? [];
    expect(webRows).toEqual([
      { wave: 'canary (current)', cluster: 'eu-1', state: 'succeeded', reason: 'AvailableAndSoaked' },
      {
        wave: '',
        cluster: 'us-2',
        state: expect.stringMatching(/^soaking, \d+(m|s) left$/),
        reason: HOSTILE_CLUSTER_REASON,
      },
      { wave: 'rest (pending, needs approval)', cluster: 'ap-3', state: 'waiting', reason: '' },
    ]);
    const soakLeft = /(\d+)(m|s) left/.exec(webRows[1]?.state ?? '');
    const soakLeftMs = Number(soakLeft?.[1]) * (soakLeft?.[2] === 'm' ? 60_000 : 1_000);
    expect(soakLeftMs).toBeLessThanOrEqual(6 * 60_000);
    expect(soakLeftMs).toBeGreaterThanOrEqual(6 * 60_000 - (Date.now() - createdAt) - 60_000);
    expect(shown.rollouts[stoppedKey]?.facts).toMatchObject({
      name: stoppedKey,
      phase: 'RolledBack',
      wave: '-',
      stopReason: HOSTILE_STOP_REASON,
    });
    expect(shown.rollouts[stoppedKey]?.rows).toEqual([
      { wave: 'canary (done)', cluster: 'eu-1', state: 'rolled back', reason: 'RolledBackByFleetRollout' },
      { wave: '', cluster: 'us-2', state: 'failed: ImagePullBackOff (shop/web:2)', reason: 'FailureSignature' },
      { wave: 'rest (stopped, needs approval)', cluster: 'ap-3', state: 'waiting', reason: '' },
    ]);

    // Nothing of it was parsed as HTML, loaded or run.
    const dom = await page.evaluate(PARSED_OR_RUN);
    expect(dom).toEqual({ images: 0, scripts: ['/page.js'], pwned: null });
    expect(requested.filter((u) => ['/x', '/y'].includes(new URL(u).pathname))).toEqual([]);
    expect(requested.every((u) => u.startsWith(url))).toBe(true);
    expect(pageErrors).toEqual([]);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // Read-only: every method but GET and HEAD is refused, naming the ones allowed.
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${url}api/status`, { method, body: method === 'DELETE' ? undefined : '{}' });
      expect({ method, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD',
      });
    }
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await (await fetch(`${url}healthz`)).text()).toBe('ok\n');
    const api = (await (await fetch(`${url}api/status`)).json()) as { queue: string; deadLetters: { total: number } };
    expect(api).toMatchObject({ queue: queueName, deadLetters: { total: 2 } });

    // SIGTERM stops it, with exit status 0.
    expect(await ui.stop('SIGTERM')).toBe(0);
  });

  it('refuses the memory driver and a bad port, naming the flag (exit 2)', async () => {
    const memory = spawnTsx('functions/cli.ts', env(), 'ui memory', ['ui', '--driver', 'memory']);
    const port = spawnTsx('functions/cli.ts', env(), 'ui port', ['ui', '--port', '80a']);
    const driver = spawnTsx('functions/cli.ts', env(), 'ui driver', ['ui', '--driver', 'rdis']);
    procs.push(memory, port, driver);
    expect(await memory.exited).toBe(2);
    expect(memory.lines.join('\n')).toMatch(/--driver memory: the memory driver keeps its queue inside the process/);
    expect(await port.exited).toBe(2);
    expect(port.lines.join('\n')).toMatch(/--port "80a": a port number/);
    expect(await driver.exited).toBe(2);
    expect(driver.lines.join('\n')).toMatch(/--driver "rdis": not a valid driver; did you mean redis\?/);
  });
});
