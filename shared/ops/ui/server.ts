// The HTTP server of `fleetq ui`: one port, read-only.
//   GET /             the page (page/index.html, with page/page.css and page/page.js: static files, no build step)
//   GET /api/status   the snapshot (snapshot.ts) as JSON; 503 with { error } when the stores cannot be read
//   GET /healthz      `ok` while the server runs
// HEAD works wherever GET does; every other method is 405 (Allow: GET, HEAD): nothing here changes anything.
// What the page shows came from clusters and Redis and is untrusted. The page inserts it as text only, and a
// strict Content-Security-Policy (scripts, styles and requests of this origin only, no inline script, no
// frames, no forms) keeps even a mistake there from running anything. Bound to a loopback address, requests
// naming any other host than localhost, 127.0.0.1, [::1] (any port: an ssh tunnel may forward another one) are
// refused, so a web page on another name that resolves to 127.0.0.1 (DNS rebinding) cannot read the status
// through the operator's browser.
// Snapshots are shared: requests while one is being collected wait for it, and one younger than half the refresh
// interval is served again, so several open pages cost the clusters and Redis no more than one.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { redactText } from '../../kube/redact-secrets.js';
import { displayText } from '../terminal-text.js';
import type { UiSnapshot } from './snapshot.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The page's files, read once at start (shared/ops/ui/page/). */
const ASSETS: ReadonlyArray<{ path: string; file: string; type: string }> = [
  { path: '/', file: 'index.html', type: 'text/html; charset=utf-8' },
  { path: '/page.css', file: 'page.css', type: 'text/css; charset=utf-8' },
  { path: '/page.js', file: 'page.js', type: 'text/javascript; charset=utf-8' },
];

export type UiServerOptions = {
  readonly host: string;
  /** 0: any free port (the URL says which). */
  readonly port: number;
  readonly refreshMs: number;
  readonly snapshot: () => Promise<UiSnapshot>;
};

export type UiServer = {
  /** `http://host:port/`. */
  readonly url: string;
  close(): Promise<void>;
};

type Reply = { readonly status: number; readonly type: string; readonly body: string | Buffer };

export async function startUiServer(o: UiServerOptions): Promise<UiServer> {
  const assets = new Map(ASSETS.map((a) => [a.path, { type: a.type, body: readAsset(a.file) }]));
  const snapshots = sharedSnapshots(o.snapshot, Math.max(500, o.refreshMs / 2));
  let allowedHosts: ReadonlySet<string> | undefined;

  const server: Server = createServer((req, res) => {
    void route(req).then(
      (reply) => send(req, res, reply),
      (err: unknown) => send(req, res, json(500, { error: safeMessage(err) })),
    );
  });

  async function route(req: IncomingMessage): Promise<Reply & { allow?: string }> {
    if (allowedHosts && !allowedHosts.has(hostName(req.headers.host ?? '')))
      return plain(403, 'this server answers to its own address only (the URL fleetq ui printed)\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return { ...plain(405, 'fleetq ui is read-only: GET and HEAD only\n'), allow: 'GET, HEAD' };
    const path = new URL(req.url ?? '/', 'http://ui.invalid').pathname;
    const asset = assets.get(path);
    if (asset) return { status: 200, ...asset };
    if (path === '/healthz') return plain(200, 'ok\n');
    if (path === '/api/status') {
      try {
        return json(200, await snapshots());
      } catch (err) {
        return json(503, { error: safeMessage(err) });
      }
    }
    return plain(404, 'not found\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  if (isLoopback(o.host)) allowedHosts = new Set(loopbackNames(o.host));
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A file of the page; a build that left them out is named, not reported as a bare ENOENT. */
function readAsset(file: string): Buffer {
  const url = new URL(`./page/${file}`, import.meta.url);
  try {
    return readFileSync(url);
  } catch (err) {
    throw new Error(
      `the ui's page is missing (${fileURLToPath(url)}): a build must copy shared/ops/ui/page/ beside the compiled server`,
      { cause: err },
    );
  }
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply & { allow?: string }): void {
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  res.writeHead(reply.status, {
    ...SECURITY_HEADERS,
    'content-type': reply.type,
    'content-length': String(body.length),
    ...(reply.allow !== undefined && { allow: reply.allow }),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const plain = (status: number, body: string): Reply => ({ status, type: 'text/plain; charset=utf-8', body });
const json = (status: number, value: unknown): Reply => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(value),
});

/** An error as one line for the page: credentials redacted, controls made visible. */
function safeMessage(err: unknown): string {
  return displayText(redactText(err instanceof Error ? err.message : String(err)), 1_000);
}

/** One collection at a time; its result is served again while younger than maxAgeMs. */
function sharedSnapshots(collect: () => Promise<UiSnapshot>, maxAgeMs: number): () => Promise<UiSnapshot> {
  let last: { at: number; value: UiSnapshot } | undefined;
  let pending: Promise<UiSnapshot> | undefined;
  return () => {
    if (last && Date.now() - last.at < maxAgeMs) return Promise.resolve(last.value);
    pending ??= collect()
      .then((value) => {
        last = { at: Date.now(), value };
        return value;
      })
      .finally(() => (pending = undefined));
    return pending;
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The name in a Host header, without its port (a tunnel may forward another local port to this one). */
function hostName(header: string): string {
  return header.toLowerCase().replace(/:\d*$/, '');
}

/** The Host header names a browser sends for a loopback address. */
function loopbackNames(host: string): string[] {
  return [...new Set([host.includes(':') ? `[${host}]` : host, 'localhost', '127.0.0.1', '[::1]'])];
}
