// The `fleetq ui` server (shared/ops/ui/server.ts) on a loopback port, fed snapshots by the test: routes, the
// security headers, read-only methods, the Host check, errors as JSON without credentials, and one collection
// shared by requests that arrive together. The page itself runs in a browser in test/integration/ui.test.ts.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CONTENT_SECURITY_POLICY, startUiServer, type UiServer } from '../../../shared/ops/ui/server.js';
import type { UiSnapshot } from '../../../shared/ops/ui/snapshot.js';

const SNAPSHOT: UiSnapshot = {
  at: '2025-01-01T00:00:00.000Z',
  refreshMs: 5_000,
  queue: 'q',
  driver: 'redis',
  rateWindowMs: null,
  clusters: [],
  deadLetters: { total: 0, shown: [] },
  rollouts: { hub: null, shown: [], more: false, error: 'no hub cluster in the registry (hub: true)' },
  notes: [],
};

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One request with any method and Host header (fetch may not set Host). */
function ask(url: string, method: string, host?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: host === undefined ? {} : { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('fleetq ui server', () => {
  let server: UiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (snapshot: () => Promise<UiSnapshot>): Promise<string> => {
    server = await startUiServer({ host: '127.0.0.1', port: 0, refreshMs: 5_000, snapshot });
    return server.url;
  };

  it('serves the page, its files, the status and healthz, each with the security headers', async () => {
    const url = await start(async () => SNAPSHOT);
    const answers = await Promise.all(
      ['', 'page.js', 'page.css', 'api/status', 'healthz', 'nothing'].map((p) => ask(`${url}${p}`, 'GET')),
    );
    expect(answers.map((a) => [a.status, String(a.headers['content-type']).split(';')[0]])).toEqual([
      [200, 'text/html'],
      [200, 'text/javascript'],
      [200, 'text/css'],
      [200, 'application/json'],
      [200, 'text/plain'],
      [404, 'text/plain'],
    ]);
    for (const a of answers)
      expect(a.headers).toMatchObject({
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
      });
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|\*/);
    expect(answers[0]?.body).toContain('<script src="/page.js" defer></script>');
    expect(JSON.parse(answers[3]?.body ?? '')).toEqual(SNAPSHOT);
    expect(answers[4]?.body).toBe('ok\n');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    'refuses %s with 405, allowing GET and HEAD',
    async (method) => {
      const url = await start(async () => SNAPSHOT);
      for (const path of ['', 'api/status', 'healthz']) {
        const a = await ask(`${url}${path}`, method);
        expect({ path, status: a.status, allow: a.headers.allow }).toEqual({ path, status: 405, allow: 'GET, HEAD' });
      }
    },
  );

  it('answers HEAD with the headers of GET and no body', async () => {
    const url = await start(async () => SNAPSHOT);
    const [get, head] = await Promise.all([ask(url, 'GET'), ask(url, 'HEAD')]);
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('refuses a Host other than its own loopback names (DNS rebinding)', async () => {
    const url = await start(async () => SNAPSHOT);
    const port = new URL(url).port;
    const status = async (host: string): Promise<number> => (await ask(`${url}api/status`, 'GET', host)).status;
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status('evil.example')).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
    expect(await status('[::1]:9000')).toBe(200); // an ssh tunnel from another local port
  });

  it('says a collection that failed as 503 JSON, its credentials redacted', async () => {
    const url = await start(async () => {
      throw new Error('Redis at redis://:hunter2@10.0.0.9:6379 not reachable');
    });
    const a = await ask(`${url}api/status`, 'GET');
    expect(a.status).toBe(503);
    const body = JSON.parse(a.body) as { error: string };
    expect(body.error).toMatch(/not reachable/);
    expect(body.error).not.toContain('hunter2');
  });

  it('collects once for requests that arrive together or soon after', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const url = await start(async () => {
      calls++;
      await gate;
      return SNAPSHOT;
    });
    const together = Promise.all([1, 2, 3].map(() => ask(`${url}api/status`, 'GET')));
    // Whichever arrive while the first collection runs wait for it; later ones get its result again.
    const deadline = Date.now() + 10_000;
    while (calls === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    release();
    expect((await together).map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await ask(`${url}api/status`, 'GET')).status).toBe(200);
    expect(calls).toBe(1);
  });
});
