// Many simulated clusters behind one HTTP server, each under its own path prefix
// (`http://127.0.0.1:<port>/clusters/<name>`, the `server` of its registry entry), each with its own bearer token.
// Serves what fleetq's forwarder, handlers and event recorder call, and what a test's client-node client calls:
// discovery (/version, /api, /apis, resource lists), list (limit/continue, selectors), watch (bookmarks, 410),
// get/create/update/patch/delete, the status and scale subresources.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { badRequest, SimApiError } from './api-error.js';
import { apiVersionOf, findResource, SIM_RESOURCES, type SimResource } from './resources.js';
import { SimCluster, type DeleteOptions, type SimClusterOptions } from './sim-cluster.js';

export type SimServerOptions = SimClusterOptions & {
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  readonly host?: string;
  /**
   * Also serve the same clusters over HTTPS with this key and certificate, on a port of its own (`tlsUrl`):
   * kubectl sends no bearer token over plain HTTP, so a kubectl step needs it.
   */
  readonly tls?: { readonly key: string; readonly cert: string };
};

const KUBE_VERSION = {
  major: '1',
  minor: '35',
  gitVersion: 'v1.35.0-fleetq-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'none',
  compiler: 'none',
  platform: 'linux/amd64',
};

type Route =
  | { type: 'discovery'; body: unknown }
  | { type: 'resource'; res: SimResource; namespace?: string; name?: string; sub?: string };

export class SimServer {
  readonly clusters = new Map<string, SimCluster>();
  private readonly tokens = new Map<string, string>();
  private server!: Server;
  private tlsServer: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  tlsPort = 0;

  private constructor(private readonly o: SimServerOptions) {}

  static async start(names: readonly string[], o: SimServerOptions = {}): Promise<SimServer> {
    const s = new SimServer(o);
    for (const n of names) s.add(n);
    s.server = await s.listen(
      createServer((req, res) => s.handle(req, res)),
      o.port ?? 0,
    );
    s.port = (s.server.address() as AddressInfo).port;
    if (o.tls) {
      s.tlsServer = await s.listen(
        createHttpsServer(o.tls, (req, res) => s.handle(req, res)),
        0,
      );
      s.tlsPort = (s.tlsServer.address() as AddressInfo).port;
    }
    return s;
  }

  private async listen(server: Server, port: number): Promise<Server> {
    server.keepAliveTimeout = 120_000;
    server.headersTimeout = 130_000;
    server.requestTimeout = 0;
    server.on(server instanceof HttpsServer ? 'secureConnection' : 'connection', (sock: Socket) => {
      this.sockets.add(sock);
      sock.once('close', () => this.sockets.delete(sock));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.o.host ?? '127.0.0.1', () => resolve());
    });
    return server;
  }

  /** Adds a cluster (a fresh one: new uids, resourceVersion from 0). */
  add(name: string, options: SimClusterOptions = this.o): SimCluster {
    if (this.clusters.has(name)) throw new Error(`cluster ${name} exists`);
    const c = new SimCluster(name, options);
    this.clusters.set(name, c);
    this.tokens.set(name, randomBytes(24).toString('base64url'));
    return c;
  }

  cluster(name: string): SimCluster {
    const c = this.clusters.get(name);
    if (!c) throw new Error(`no simulated cluster ${name}`);
    return c;
  }

  /** The HTTPS address of a cluster (the server started with `tls`). */
  tlsUrl(name: string): string {
    if (!this.tlsServer) throw new Error('the simulator serves no HTTPS (start it with tls)');
    return `https://127.0.0.1:${this.tlsPort}/clusters/${name}`;
  }

  url(name: string): string {
    return `http://127.0.0.1:${this.port}/clusters/${name}`;
  }

  token(name: string): string {
    return this.tokens.get(name) ?? '';
  }

  /**
   * Writes a token file per cluster and a fleetq cluster registry (server + tokenFile + allowInsecure: plain http
   * on loopback) into `dir`; returns the registry's path. `entry` adds fields to each entry (owns, limits, …).
   */
  writeRegistry(dir: string, entry: (name: string) => Record<string, unknown> = () => ({})): string {
    mkdirSync(join(dir, 'tokens'), { recursive: true });
    const clusters = [...this.clusters.keys()].map((name) => {
      const tokenFile = join(dir, 'tokens', name);
      writeFileSync(tokenFile, this.token(name), { mode: 0o600 });
      return { name, server: this.url(name), tokenFile, allowInsecure: true, ...entry(name) };
    });
    const path = join(dir, 'registry.yaml');
    writeFileSync(path, stringify({ clusters }));
    return path;
  }

  /** A kubeconfig (YAML text) for one cluster, for kubectl and client-node clients. */
  /** A kubeconfig for the cluster: its HTTP address, or with `tls` its HTTPS one (for kubectl). */
  kubeconfig(name: string, o: { tls?: boolean } = {}): string {
    const server = o.tls === true ? this.tlsUrl(name) : this.url(name);
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name, user: { token: this.token(name) } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      'current-context': name,
    });
  }

  async close(): Promise<void> {
    for (const c of this.clusters.values()) c.close();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    const tls = this.tlsServer;
    if (tls) await new Promise<void>((resolve) => tls.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://sim');
    const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const cluster = m ? this.clusters.get(m[1] as string) : undefined;
    if (!m || !cluster)
      return send(res, new SimApiError(404, 'NotFound', `no simulated cluster at ${url.pathname}`).toStatus(), 404);
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${this.token(cluster.name)}`)
      return send(res, new SimApiError(401, 'Unauthorized', 'Unauthorized').toStatus(), 401);
    const path = m[2] ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        if (text !== '') {
          try {
            body = JSON.parse(text);
          } catch {
            throw badRequest('the request body is not valid JSON');
          }
        }
        this.serve(cluster, req, res, path, url.searchParams, body);
      } catch (err) {
        sendError(res, err);
      }
    });
  }

  private serve(
    c: SimCluster,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    q: URLSearchParams,
    body: unknown,
  ): void {
    const route = routeOf(path);
    const method = req.method ?? 'GET';
    if (!route) throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (route.type === 'discovery') {
      count(c, 'DISCOVERY');
      return send(res, route.body);
    }
    const { res: r, namespace, name, sub } = route;
    if (sub !== undefined && !(sub === 'status' && r.status) && !(sub === 'scale' && r.scale))
      throw new SimApiError(404, 'NotFound', 'the server could not find the requested resource');
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (name === undefined) {
      if (method === 'GET' && (q.get('watch') === 'true' || q.get('watch') === '1')) {
        count(c, 'WATCH');
        return this.watch(c, r, namespace, q, res);
      }
      if (method === 'GET') {
        count(c, 'LIST');
        const limit = q.get('limit');
        const list = c.list(r, namespace, {
          labelSelector: q.get('labelSelector'),
          fieldSelector: q.get('fieldSelector'),
          ...(limit !== null && { limit: Number(limit) }),
          continueToken: q.get('continue'),
        });
        return send(res, {
          kind: `${r.kind}List`,
          apiVersion: apiVersionOf(r),
          metadata: {
            resourceVersion: list.resourceVersion,
            ...(list.continueToken && { continue: list.continueToken }),
          },
          items: list.items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest),
        });
      }
      if (method === 'POST') {
        count(c, 'POST');
        const dryRun = q.get('dryRun') === 'All';
        return send(res, c.create(r, namespace, body, dryRun), 201);
      }
      throw new SimApiError(405, 'MethodNotAllowed', `${method} is not supported on a collection`);
    }
    count(c, method);
    if (sub === 'scale') {
      if (method === 'GET') return send(res, c.getScale(r, namespace, name));
      if (method === 'PUT') return send(res, c.setScale(r, namespace, name, body));
      if (method === 'PATCH') return send(res, c.setScale(r, namespace, name, body, contentType));
      throw new SimApiError(405, 'MethodNotAllowed', `${method} is not supported on scale`);
    }
    const status = sub === 'status' ? 'status' : undefined;
    switch (method) {
      case 'GET':
        return send(res, c.get(r, namespace, name));
      case 'PUT':
        return send(res, c.update(r, namespace, name, body, status));
      case 'PATCH':
        return send(res, c.patch(r, namespace, name, contentType, body, status));
      case 'DELETE': {
        const opts = (body ?? {}) as DeleteOptions;
        const policy = q.get('propagationPolicy');
        const grace = q.get('gracePeriodSeconds');
        const deleted = c.delete(r, namespace, name, {
          ...opts,
          ...(policy !== null && { propagationPolicy: policy }),
          ...(grace !== null && { gracePeriodSeconds: Number(grace) }),
        });
        return send(res, deleted);
      }
      default:
        throw new SimApiError(405, 'MethodNotAllowed', `${method} is not supported`);
    }
  }

  private watch(
    c: SimCluster,
    r: SimResource,
    namespace: string | undefined,
    q: URLSearchParams,
    res: ServerResponse,
  ): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      res.end();
    };
    const timeout = q.get('timeoutSeconds');
    const close = c.watch(
      r,
      namespace,
      {
        resourceVersion: q.get('resourceVersion'),
        labelSelector: q.get('labelSelector'),
        fieldSelector: q.get('fieldSelector'),
        allowWatchBookmarks: q.get('allowWatchBookmarks') === 'true',
        ...(timeout !== null && { timeoutSeconds: Number(timeout) }),
      },
      {
        send: (e) => {
          if (!ended) res.write(`${JSON.stringify(e)}\n`);
        },
        end,
      },
    );
    const onClose = (): void => {
      close();
      ended = true;
    };
    // Not req's 'close': it fires once the request body is read, not when the client goes.
    res.once('close', onClose);
  }
}

function count(c: SimCluster, verb: string): void {
  c.requests[verb] = (c.requests[verb] ?? 0) + 1;
}

function send(res: ServerResponse, body: unknown, code = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof SimApiError) return send(res, err.toStatus(), err.code);
  const e = new SimApiError(500, 'InternalError', `simulator: ${err instanceof Error ? err.message : String(err)}`);
  send(res, e.toStatus(), 500);
}

function groupVersions(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of SIM_RESOURCES) {
    const set = out.get(r.group) ?? new Set<string>();
    set.add(r.version);
    out.set(r.group, set);
  }
  return out;
}

function resourceList(group: string, version: string): unknown {
  const resources = SIM_RESOURCES.filter((r) => r.group === group && r.version === version).flatMap((r) => [
    {
      name: r.plural,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
    ...(r.status
      ? [
          {
            name: `${r.plural}/status`,
            singularName: '',
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: ['get', 'patch', 'update'],
          },
        ]
      : []),
    ...(r.scale
      ? [
          {
            name: `${r.plural}/scale`,
            singularName: '',
            namespaced: r.namespaced,
            group: 'autoscaling',
            version: 'v1',
            kind: 'Scale',
            verbs: ['get', 'patch', 'update'],
          },
        ]
      : []),
  ]);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources,
  };
}

/** What a path (after the cluster prefix) asks for; undefined: nothing here. */
export function routeOf(path: string): Route | undefined {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/version') return { type: 'discovery', body: KUBE_VERSION };
  if (p === '/healthz' || p === '/readyz' || p === '/livez') return { type: 'discovery', body: 'ok' };
  if (p === '/api')
    return { type: 'discovery', body: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] } };
  if (p === '/apis') {
    const groups = [...groupVersions()]
      .filter(([g]) => g !== '')
      .map(([name, versions]) => ({
        name,
        versions: [...versions].map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
        preferredVersion: { groupVersion: `${name}/${[...versions][0]}`, version: [...versions][0] },
      }));
    return { type: 'discovery', body: { kind: 'APIGroupList', apiVersion: 'v1', groups } };
  }
  const seg = p.split('/').slice(1).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (seg[0] === 'api' && seg.length >= 2) {
    group = '';
    version = seg[1] as string;
    rest = seg.slice(2);
  } else if (seg[0] === 'apis' && seg.length >= 3) {
    group = seg[1] as string;
    version = seg[2] as string;
    rest = seg.slice(3);
  } else {
    return undefined;
  }
  if (rest.length === 0) return { type: 'discovery', body: resourceList(group, version) };
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const res = findResource(group, version, rest[2] as string);
    if (res?.namespaced) {
      if (rest.length > 5) return undefined;
      return {
        type: 'resource',
        res,
        namespace: rest[1],
        ...(rest[3] !== undefined && { name: rest[3] }),
        ...(rest[4] !== undefined && { sub: rest[4] }),
      };
    }
  }
  const res = findResource(group, version, rest[0] as string);
  if (!res || rest.length > 3) return undefined;
  return {
    type: 'resource',
    res,
    ...(rest[1] !== undefined && { name: rest[1] }),
    ...(rest[2] !== undefined && { sub: rest[2] }),
  };
}
