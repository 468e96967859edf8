// A cluster's stable endpoint for the chaos suite: a TCP pass-through on 127.0.0.1 in front of a sandbox
// apiserver, which can be pointed at another apiserver. In a fleet, a cluster rebuilt under the same name keeps
// its address (a DNS name, a load balancer); a sandbox cluster started again listens on a new free port. The
// registry names this endpoint, so processes that keep running (workers) reach the new cluster the way they
// would in a fleet. TLS goes through untouched (the sandbox's certificates name 127.0.0.1), so the apiserver
// is the real one end to end.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export type StableEndpoint = {
  readonly port: number;
  readonly server: string;
  /** The apiserver port connections are passed to now. */
  readonly target: number;
  /** Passes new connections to `port`, and closes those open to the old target. */
  retarget(port: number): void;
  close(): Promise<void>;
};

export async function stableEndpoint(targetPort: number): Promise<StableEndpoint> {
  let target = targetPort;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    server: `https://127.0.0.1:${port}`,
    get target() {
      return target;
    },
    retarget(p) {
      target = p;
      for (const s of open) s.destroy();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type KubeconfigYaml = {
  clusters: Array<{ cluster: { server: string; 'certificate-authority'?: string } }>;
  users: Array<{ user: { token?: string } }>;
};

/** The parts of a sandbox kubeconfig that decide where and how a client connects. */
export function kubeconfigAccess(path: string): { server: string; token: string; ca: string } {
  const kc = parse(readFileSync(path, 'utf8')) as KubeconfigYaml;
  return {
    server: kc.clusters[0]?.cluster.server ?? '',
    token: kc.users[0]?.user.token ?? '',
    ca: kc.clusters[0]?.cluster['certificate-authority'] ?? '',
  };
}

/**
 * Writes `from` (a sandbox kubeconfig) to `to` with its server replaced by `server`; `to` defaults to a new
 * temp file. Returns the path written.
 */
export function kubeconfigVia(from: string, server: string, to?: string): string {
  const kc = parse(readFileSync(from, 'utf8')) as KubeconfigYaml;
  for (const c of kc.clusters) c.cluster.server = server;
  const path = to ?? join(mkdtempSync(join(tmpdir(), 'fleetq-endpoint-')), 'kubeconfig.yaml');
  writeFileSync(path, stringify(kc), { mode: 0o600 });
  return path;
}
