// Token rotation on a real apiserver (fleetq-1): a registry entry with server + tokenFile, one KubeRest built
// once. The file first holds a bad token (401); a valid one written over it is used without a restart; then a
// ServiceAccount token (TokenRequest API) replaces it, and the apiserver says that identity is the caller.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { ApiError } from '../../shared/kube/errors.js';
import { ClusterRegistry, parseRegistry } from '../../shared/kube/registry.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

type SelfSubjectReview = { status?: { userInfo?: { username?: string } } };

describe('a rotated tokenFile is used without a restart', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let dir: string;
  let tokenFile: string;
  let rest: KubeRest;

  /** Replaces the file the way rotations do (write aside, rename over). */
  function writeToken(token: string): void {
    const next = `${tokenFile}.next`;
    writeFileSync(next, `${token}\n`);
    renameSync(next, tokenFile);
  }

  const whoAmI = async (): Promise<string | undefined> =>
    (
      await rest.request<SelfSubjectReview>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      })
    ).status?.userInfo?.username;

  beforeAll(async () => {
    c = await sandboxCluster('fleetq-1');
    ns = await testNamespace(c.kc);
    dir = mkdtempSync(join(tmpdir(), 'fleetq-token-rotation-'));
    tokenFile = join(dir, 'token');
    writeToken('not-a-valid-token');
    const cluster = c.kc.getCurrentCluster();
    const registry = new ClusterRegistry(
      parseRegistry(
        [
          'clusters:',
          `  - name: rotating`,
          `    server: ${cluster?.server}`,
          `    caFile: ${cluster?.caFile}`,
          `    tokenFile: ${tokenFile}`,
        ].join('\n'),
        'fleet.yaml',
      ),
    );
    rest = new KubeRest('rotating', registry.kubeConfig('rotating'), new TokenBucket(100, 100));
  });

  afterAll(async () => {
    await ns?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('401 with the bad token; the valid one written over it works, same client', async () => {
    const err = await rest.request('GET', '/api/v1/namespaces/default').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(401);

    const admin = c.kc.getCurrentUser()?.token;
    if (!admin) throw new Error('the sandbox kubeconfig has no token');
    writeToken(admin);
    await waitFor(
      async () =>
        rest.request('GET', '/api/v1/namespaces/default').then(
          () => true,
          () => false,
        ),
      10_000,
      100,
      'requests to succeed with the rotated token',
    );
    expect(await whoAmI()).not.toMatch(/^system:serviceaccount:/);
  });

  it('a ServiceAccount token written next is the identity of the following requests', async () => {
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: 'rotated' } } });
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: ns.name,
      name: 'rotated',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = tr.status?.token;
    if (!token) throw new Error('TokenRequest returned no token');
    writeToken(token);
    const want = `system:serviceaccount:${ns.name}:rotated`;
    await waitFor(async () => (await whoAmI()) === want, 10_000, 100, `requests made as ${want}`);
  });
});
