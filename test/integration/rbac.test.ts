// The roles of infra/k8s/ are tight, not only sufficient (the conformance suite shows sufficient): on sandbox
// fleetq-2, with tokens of the ServiceAccounts bound to them (infra/sandbox/rbac.ts), the forwarder reads what it
// watches and its cluster identity but can write nothing; the handler writes pods but cannot touch what its
// role leaves out (delete a Deployment, read Secrets, watch, a namespace). Each refusal is a 403 from RBAC.
// fleetq-system, where a home cluster keeps fleetq's Redis and token Secrets, is out of a stolen handler token's
// reach: no Secret read there (RBAC grants the handler no Secret anywhere), and no write there although the
// handler's pod create is cluster-wide (the ValidatingAdmissionPolicy fleetq-system-protected refuses it).
// Not on fleetq-1: the conformance suite counts every RBAC refusal there as one of fleetq's.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { readClusterIdentity } from '../../shared/forwarder/cluster-identity.js';
import { makeLister } from '../../shared/forwarder/resources.js';
import { ApiError } from '../../shared/kube/errors.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { ensureFleetqRbac } from '../../infra/sandbox/rbac.js';
import { NAMESPACE } from '../../infra/k8s/manifests.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { serviceAccountRegistries, type ServiceAccountRegistries } from '../helpers/sandbox/rbac.js';

const CLUSTER = 'fleetq-2';

/** The HTTP status a request got: 2xx as 200, else the apiserver's code. */
async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    const code = (err as { code?: unknown }).code; // client-node's ApiException
    if (typeof code === 'number') return code;
    throw err;
  }
}

describe('fleetq ServiceAccounts on a sandbox cluster', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let registries: ServiceAccountRegistries;
  let forwarder: KubeRest;
  let handler: KubeRest;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    registries = await serviceAccountRegistries(CLUSTER, {
      name: CLUSTER,
      owns: ['Deployment', 'ReplicaSet'],
      limits: { qps: 100, burst: 100 },
    });
    forwarder = new KubeRest(CLUSTER, registries.forwarder.kubeConfig(CLUSTER), new TokenBucket(100, 100));
    handler = new KubeRest(CLUSTER, registries.handler.kubeConfig(CLUSTER), new TokenBucket(100, 100));
  });

  afterAll(async () => {
    await ns?.remove();
  });

  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: kwokPodTemplate({ app: name }).spec,
  });
  const pods = () => `/api/v1/namespaces/${ns.name}/pods`;

  it('setting it up again on a live cluster changes nothing and writes fresh tokens', async () => {
    const again = await ensureFleetqRbac(c.kc, { dir: dirname(registries.credentials.tokenFiles.forwarder) });
    expect(again.tokenFiles).toEqual(registries.credentials.tokenFiles);
  });

  it("the forwarder reads its cluster's identity and lists what it watches, as the forwarder's own code does", async () => {
    const kc = registries.forwarder.kubeConfig(CLUSTER);
    expect(await readClusterIdentity(kc)).toMatch(/^[0-9a-f-]{36}$/);
    const lister = makeLister(kc);
    for (const resource of ['deployments', 'replicasets', 'pods']) {
      await expect(lister(resource, { limit: 1 })).resolves.toHaveProperty('items');
    }
    expect(await statusOf(forwarder.request('GET', pods(), { query: { watch: 'true', timeoutSeconds: 1 } }))).toBe(200);
  });

  it.each([
    { what: 'create a pod', method: 'POST', path: () => pods(), body: () => pod('forwarder-write') },
    {
      what: 'create a ConfigMap',
      method: 'POST',
      path: () => `/api/v1/namespaces/${ns.name}/configmaps`,
      body: () => ({ metadata: { name: 'x' } }),
    },
    {
      what: 'create an Event',
      method: 'POST',
      path: () => `/api/v1/namespaces/${ns.name}/events`,
      body: () => ({ metadata: { name: 'x' }, involvedObject: {} }),
    },
    {
      what: 'delete a namespace',
      method: 'DELETE',
      path: () => `/api/v1/namespaces/${ns.name}`,
      body: () => undefined,
    },
    {
      what: 'get a namespace other than kube-system',
      method: 'GET',
      path: () => `/api/v1/namespaces/${ns.name}`,
      body: () => undefined,
    },
    { what: 'list Secrets', method: 'GET', path: () => '/api/v1/secrets', body: () => undefined },
  ])('the forwarder cannot $what (403)', async ({ method, path, body }) => {
    expect(await statusOf(forwarder.request(method, path(), { body: body() }))).toBe(403);
  });

  it('the handler creates, patches and deletes a pod, and records an Event', async () => {
    const created = await handler.request<{ metadata: { uid: string } }>('POST', pods(), {
      body: pod('handler-write'),
    });
    const patch = { metadata: { uid: created.metadata.uid, labels: { patched: 'yes' } } };
    expect(
      await statusOf(
        handler.request('PATCH', `${pods()}/handler-write`, {
          body: patch,
          contentType: 'application/strategic-merge-patch+json',
        }),
      ),
    ).toBe(200);
    const event = {
      metadata: { name: 'handler-write.1' },
      involvedObject: { kind: 'Pod', namespace: ns.name, name: 'handler-write', uid: created.metadata.uid },
      reason: 'Test',
      message: 'm',
      type: 'Normal',
    };
    expect(await statusOf(handler.request('POST', `/api/v1/namespaces/${ns.name}/events`, { body: event }))).toBe(200);
    const preconditions = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: created.metadata.uid } };
    expect(await statusOf(handler.request('DELETE', `${pods()}/handler-write`, { body: preconditions }))).toBe(200);
  });

  it("a stolen handler token cannot read fleetq's own Secrets nor create a pod in fleetq-system; a tenant namespace still takes one", async () => {
    const system = `/api/v1/namespaces/${NAMESPACE}`;
    for (const path of [`${system}/secrets`, `${system}/secrets/fleetq-redis`, '/api/v1/secrets']) {
      expect({ path, status: await statusOf(handler.request('GET', path)) }).toEqual({ path, status: 403 });
    }
    // Admission, not RBAC: the policy reaches the apiserver's admission a moment after it was applied. A dry run
    // creates nothing, and is admitted (or refused) exactly as the create is.
    const create = (path: string, name: string, dryRun: boolean) =>
      statusOf(handler.request('POST', path, { body: pod(name), ...(dryRun && { query: { dryRun: 'All' } }) }));
    await waitFor(async () => (await create(`${system}/pods`, 'stolen', true)) === 403, 15_000, 250).catch(
      () => undefined,
    );
    try {
      const refused = await handler.request('POST', `${system}/pods`, { body: pod('stolen') }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ApiError);
      // Refused by the policy, with its message (RBAC alone would have allowed it).
      expect(refused).toMatchObject({ code: 403, body: expect.stringMatching(/fleetq-system-protected/) });
    } finally {
      await c.kc
        .makeApiClient(CoreV1Api)
        .deleteNamespacedPod({ name: 'stolen', namespace: NAMESPACE })
        .catch(() => undefined);
    }
    expect(await create(pods(), 'tenant', true)).toBe(200);
  });

  it.each([
    {
      what: 'delete a Deployment',
      method: 'DELETE',
      path: () => `/apis/apps/v1/namespaces/${ns.name}/deployments/web`,
    },
    { what: 'create a Deployment', method: 'POST', path: () => `/apis/apps/v1/namespaces/${ns.name}/deployments` },
    {
      what: 'scale a Deployment (deployments/scale)',
      method: 'PUT',
      path: () => `/apis/apps/v1/namespaces/${ns.name}/deployments/web/scale`,
    },
    { what: 'list Secrets', method: 'GET', path: () => `/api/v1/namespaces/${ns.name}/secrets` },
    { what: 'read a Secret', method: 'GET', path: () => `/api/v1/namespaces/${ns.name}/secrets/any` },
    { what: 'create a ConfigMap', method: 'POST', path: () => `/api/v1/namespaces/${ns.name}/configmaps` },
    { what: 'watch pods', method: 'GET', path: () => `${pods()}?watch=true` },
    { what: 'get a pod (it only lists them)', method: 'GET', path: () => `${pods()}/any` },
    { what: 'write pods/status', method: 'PUT', path: () => `${pods()}/any/status` },
    { what: 'delete a namespace', method: 'DELETE', path: () => `/api/v1/namespaces/${ns.name}` },
    { what: 'get a namespace', method: 'GET', path: () => '/api/v1/namespaces/kube-system' },
  ])('the handler cannot $what (403)', async ({ method, path }) => {
    const [p, query] = path().split('?');
    const body = method === 'GET' || method === 'DELETE' ? undefined : { metadata: { name: 'web' } };
    const q = query === undefined ? undefined : Object.fromEntries(new URLSearchParams(query));
    expect(await statusOf(handler.request(method, p ?? '', { body, ...(q && { query: q }) }))).toBe(403);
  });
});
