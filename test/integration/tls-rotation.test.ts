// A rotated CA and client certificate are used by a running KubeRest without a restart: as files the kubeconfig
// names (caFile, certFile, keyFile), or as inline data of a registry entry's kubeconfig file that is rewritten.
// A real TLS server (node https, client certificates required) with certificates made by openssl; a rotation
// replaces the files (written aside, renamed over) and the server's certificates (a new CA), and drops the
// server's open connections as a restarted apiserver would.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { ClusterRegistry, parseRegistry } from '../../shared/kube/registry.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { clusterClients } from '../../shared/runtime/clients.js';
import { makeTestPki } from '../helpers/sandbox/test-pki.js';

type Pki = { ca: Buffer; serverCert: Buffer; serverKey: Buffer; clientCert: Buffer; clientKey: Buffer };

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN `client`), all signed by the CA. */
function makePki(dir: string, client: string): Pki {
  const pki = makeTestPki(dir, { caName: `${client}-ca`, clientCn: client });
  return {
    ca: readFileSync(pki.caFile),
    serverCert: readFileSync(pki.serverCertFile),
    serverKey: readFileSync(pki.serverKeyFile),
    clientCert: readFileSync(pki.clientCertFile ?? ''),
    clientKey: readFileSync(pki.clientKeyFile ?? ''),
  };
}

describe('KubeRest with rotated TLS files', () => {
  let dir: string;
  let server: Server;
  let connections = 0;
  let gen1: Pki;
  let gen2: Pki;
  const files = () => ({ ca: join(dir, 'ca.pem'), cert: join(dir, 'client.pem'), key: join(dir, 'client-key.pem') });

  /** Replaces a file the way rotations do (write aside, rename over). */
  function replace(path: string, data: Buffer): void {
    writeFileSync(`${path}.next`, data);
    renameSync(`${path}.next`, path);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetq-tls-rotation-'));
    for (const g of ['gen1', 'gen2']) mkdirSync(join(dir, g));
    gen1 = makePki(join(dir, 'gen1'), 'client-gen1');
    gen2 = makePki(join(dir, 'gen2'), 'client-gen2');
    const f = files();
    replace(f.ca, gen1.ca);
    replace(f.cert, gen1.clientCert);
    replace(f.key, gen1.clientKey);
    server = createServer(
      { key: gen1.serverKey, cert: gen1.serverCert, ca: gen1.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ client: peer.subject?.CN }));
      },
    );
    server.on('secureConnection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  beforeEach(() => {
    server.setSecureContext({ key: gen1.serverKey, cert: gen1.serverCert, ca: gen1.ca });
    server.closeAllConnections();
  });

  /** The cluster's CA is rotated: the server presents a certificate of the new CA and accepts only its clients. */
  function rotateServer(): void {
    server.setSecureContext({ key: gen2.serverKey, cert: gen2.serverCert, ca: gen2.ca });
    server.closeAllConnections();
  }

  /** Asks until the server says `client` presented its certificate (5 s deadline). */
  async function until(whoAmI: () => Promise<string>, client: string): Promise<void> {
    let last: unknown;
    await waitFor(
      async () => {
        try {
          last = await whoAmI();
        } catch (err) {
          last = err;
        }
        return last === client;
      },
      5_000,
      50,
      'a request with the rotated certificates',
    ).catch((err: unknown) => {
      const cause = last instanceof Error && last.cause instanceof Error ? ` (${last.cause.message})` : '';
      throw new Error(`${String(err)}; last outcome: ${String(last)}${cause}`);
    });
  }

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('the next requests after a rotation use the new CA and client certificate, without a restart', async () => {
    const { port } = server.address() as AddressInfo;
    const f = files();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'tls', server: `https://127.0.0.1:${port}`, caFile: f.ca, skipTLSVerify: false }],
      users: [{ name: 'worker', certFile: f.cert, keyFile: f.key }],
      contexts: [{ name: 'tls', cluster: 'tls', user: 'worker' }],
      currentContext: 'tls',
    });
    const rest = new KubeRest('tls', kc, { take: async () => undefined });
    const whoAmI = async () => (await rest.request<{ client: string }>('GET', '/api')).client;

    for (let i = 0; i < 4; i++) expect(await whoAmI()).toBe('client-gen1');
    // One pool while nothing changes: its connections are kept (undici may open a second one while the first
    // is being returned), not one per request.
    expect(connections).toBeLessThanOrEqual(2);
    const before = connections;

    // The worker's files are replaced by the new ones.
    replace(f.ca, gen2.ca);
    replace(f.cert, gen2.clientCert);
    replace(f.key, gen2.clientKey);
    rotateServer();
    await until(whoAmI, 'client-gen2');
    expect(await whoAmI()).toBe('client-gen2');
    expect(connections).toBeGreaterThan(before);
  });

  it("a registry entry's kubeconfig file rewritten with new inline certificates is loaded again", async () => {
    const { port } = server.address() as AddressInfo;
    const path = join(dir, 'inline-kubeconfig.yaml');
    const b64 = (b: Buffer) => b.toString('base64');
    const kubeconfig = (g: Pki) =>
      Buffer.from(
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: tls`,
          `  cluster: { server: "https://127.0.0.1:${port}", certificate-authority-data: "${b64(g.ca)}" }`,
          'users:',
          `- name: worker`,
          `  user: { client-certificate-data: "${b64(g.clientCert)}", client-key-data: "${b64(g.clientKey)}" }`,
          'contexts: [{ name: tls, context: { cluster: tls, user: worker } }]',
          'current-context: tls',
        ].join('\n'),
      );
    replace(path, kubeconfig(gen1));
    const registry = new ClusterRegistry(parseRegistry(`clusters:\n  - name: inline\n    kubeconfig: ${path}\n`, path));
    const { rest } = clusterClients(registry)('inline');
    const whoAmI = async () => (await rest.request<{ client: string }>('GET', '/api')).client;
    expect(await whoAmI()).toBe('client-gen1');

    replace(path, kubeconfig(gen2));
    rotateServer();
    await until(whoAmI, 'client-gen2');
  });
});
