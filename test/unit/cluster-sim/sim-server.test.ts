// The cluster simulator (test/cluster-sim) over HTTP: what fleetq's forwarder, writer and recorder rely on.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Watch } from '@kubernetes/client-node';
import { ClusterRegistry, loadRegistry } from '../../../shared/kube/registry.js';
import { KubeRest } from '../../../shared/kube/rest.js';
import { ApiError } from '../../../shared/kube/errors.js';
import { SimServer } from '../../cluster-sim/sim-server.js';
import { strategicMergePatch } from '../../cluster-sim/patch.js';

type Obj = {
  metadata: Record<string, unknown> & { name: string; resourceVersion: string; uid: string };
  [k: string]: unknown;
};

let server: SimServer;
let dir: string;
let rest: KubeRest;
let restB: KubeRest;
let registry: ClusterRegistry;

const deployment = (name: string, replicas = 2, image = 'app:1') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
  },
});

async function until<T>(f: () => T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
}

beforeAll(async () => {
  server = await SimServer.start(['a', 'b'], { podScheduleMs: 5, podReadyMs: 10, podDeleteMs: 5, bookmarkMs: 50 });
  dir = mkdtempSync(join(tmpdir(), 'sim-test-'));
  const path = server.writeRegistry(dir, () => ({ owns: ['Deployment', 'ReplicaSet'] }));
  registry = new ClusterRegistry(loadRegistry(path), () => undefined);
  rest = new KubeRest('a', registry.kubeConfig('a'), { take: async () => undefined });
  restB = new KubeRest('b', registry.kubeConfig('b'), { take: async () => undefined });
  await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns' } } });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it('answers the forwarder start: kube-system has a uid, /version, and an unknown token is refused', async () => {
  const ks = await rest.request<Obj>('GET', '/api/v1/namespaces/kube-system');
  expect(ks.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  const v = await rest.request<{ gitVersion: string }>('GET', '/version');
  expect(v.gitVersion).toContain('sim');
  const res = await fetch(`${server.url('a')}/api/v1/pods`, {
    headers: { authorization: `Bearer ${server.token('b')}` },
  });
  expect(res.status).toBe(401);
});

it('serves batch/v1 Jobs (the conformance harness lists them in every sample of a side)', async () => {
  const list = await rest.request<{ items: Obj[] }>('GET', '/apis/batch/v1/namespaces/ns/jobs');
  expect(list.items).toEqual([]);
});

it('leaves a pod whose nodeSelector no node satisfies Pending and unscheduled, as kube-scheduler', async () => {
  type Pod = Obj & { spec: { nodeName?: string }; status: { phase?: string; conditions?: Obj[] } };
  const create = (name: string, nodeSelector: Record<string, string>) =>
    rest.request('POST', '/api/v1/namespaces/ns/pods', {
      body: { metadata: { name }, spec: { nodeSelector, containers: [{ name: 'c', image: 'x:1' }] } },
    });
  await create('p-nowhere', { type: 'kwok', 'fleetq.dev/conformance': 'no-such-node' });
  await create('p-kwok', { type: 'kwok' });
  const get = (name: string) => rest.request<Pod>('GET', `/api/v1/namespaces/ns/pods/${name}`);
  let nowhere: Pod | undefined;
  const deadline = Date.now() + 5_000;
  while (!nowhere?.status.conditions?.length && Date.now() < deadline) nowhere = await get('p-nowhere');
  expect(nowhere?.status).toMatchObject({
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
  });
  expect(nowhere?.spec.nodeName).toBeUndefined();
  let kwok: Pod | undefined;
  while (kwok?.status.phase !== 'Running' && Date.now() < deadline) kwok = await get('p-kwok');
  expect(kwok?.spec.nodeName).toMatch(/^sim-node-/);
  expect((await get('p-nowhere')).status.phase).toBe('Pending');
});

it('drops a 0 of an omitempty integer from what it stores, as the apiserver does (pointer fields keep 0)', async () => {
  type Rs = Obj & { spec: Obj; status?: Obj };
  const rs = await rest.request<Rs>('POST', '/apis/apps/v1/namespaces/ns/replicasets', {
    body: {
      metadata: { name: 'zeros-rs' },
      spec: {
        replicas: 0,
        minReadySeconds: 0,
        selector: { matchLabels: { app: 'zeros' } },
        template: { metadata: { labels: { app: 'zeros' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } },
      },
    },
  });
  expect(rs.spec.replicas).toBe(0);
  expect(rs.spec).not.toHaveProperty('minReadySeconds');
  const written = await rest.request<Rs>('PUT', '/apis/apps/v1/namespaces/ns/replicasets/zeros-rs/status', {
    body: { ...rs, status: { replicas: 0, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 } },
  });
  expect(written.status).toEqual({ replicas: 0, observedGeneration: 1 });
});

it('keeps one resourceVersion counter per cluster', async () => {
  const before = Number(server.cluster('b').resourceVersion);
  await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'only-a' } } });
  expect(Number(server.cluster('b').resourceVersion)).toBe(before);
  const list = await restB.request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces');
  expect(list.metadata.resourceVersion).toBe(String(before));
});

it('creates with uid, creationTimestamp, generation and defaults; 409 on a second create and a stale update', async () => {
  const d = await rest.request<Obj>('POST', '/apis/apps/v1/namespaces/ns/deployments', { body: deployment('web') });
  expect(d.metadata).toMatchObject({ generation: 1, namespace: 'ns' });
  expect(d.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(d.spec).toMatchObject({
    strategy: { type: 'RollingUpdate' },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  });
  expect(await code(rest.request('POST', '/apis/apps/v1/namespaces/ns/deployments', { body: deployment('web') }))).toBe(
    409,
  );
  const changed = structuredClone(d) as Obj & { spec: { replicas: number } };
  changed.spec.replicas = 3;
  const updated = await rest.request<Obj>('PUT', '/apis/apps/v1/namespaces/ns/deployments/web', { body: changed });
  expect(updated.metadata.generation).toBe(2);
  expect(await code(rest.request('PUT', '/apis/apps/v1/namespaces/ns/deployments/web', { body: changed }))).toBe(409);
  // A status write changes status only, and not the generation; a PUT of the object keeps the status.
  const withStatus = {
    ...updated,
    status: { observedGeneration: 2, replicas: 0 },
    spec: { ...(updated.spec as object), replicas: 9 },
  };
  const s = await rest.request<Obj>('PUT', '/apis/apps/v1/namespaces/ns/deployments/web/status', { body: withStatus });
  expect(s).toMatchObject({ metadata: { generation: 2 }, spec: { replicas: 3 }, status: { observedGeneration: 2 } });
  // An unchanged write is a no-op: no new resourceVersion.
  const again = await rest.request<Obj>('PUT', '/apis/apps/v1/namespaces/ns/deployments/web/status', { body: s });
  expect(again.metadata.resourceVersion).toBe(s.metadata.resourceVersion);
  const scale = await rest.request<{ spec: { replicas: number } }>(
    'GET',
    '/apis/apps/v1/namespaces/ns/deployments/web/scale',
  );
  expect(scale.spec.replicas).toBe(3);
});

it('patches: strategic merge by merge key with a uid precondition, merge patch, JSON patch', async () => {
  const rs = await rest.request<Obj>('POST', '/apis/apps/v1/namespaces/ns/replicasets', {
    body: { ...deployment('orphan-rs', 0), kind: 'ReplicaSet' },
  });
  const owner = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: 'x',
    uid: 'u-1',
    controller: true,
    blockOwnerDeletion: true,
  };
  const adopted = await rest.request<Obj>('PATCH', '/apis/apps/v1/namespaces/ns/replicasets/orphan-rs', {
    body: { metadata: { ownerReferences: [owner], uid: rs.metadata.uid } },
    contentType: 'application/strategic-merge-patch+json',
  });
  expect(adopted.metadata.ownerReferences).toEqual([owner]);
  const stale = rest.request('PATCH', '/apis/apps/v1/namespaces/ns/replicasets/orphan-rs', {
    body: { metadata: { uid: 'not-it', labels: { x: 'y' } } },
    contentType: 'application/strategic-merge-patch+json',
  });
  expect(await code(stale)).toBe(409);
  const released = await rest.request<Obj>('PATCH', '/apis/apps/v1/namespaces/ns/replicasets/orphan-rs', {
    body: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u-1' }], uid: rs.metadata.uid } },
    contentType: 'application/strategic-merge-patch+json',
  });
  expect(released.metadata.ownerReferences).toEqual([]);
  const merged = await rest.request<Obj>('PATCH', '/apis/apps/v1/namespaces/ns/replicasets/orphan-rs', {
    body: { metadata: { annotations: { a: '1' } } },
    contentType: 'application/merge-patch+json',
  });
  expect(merged.metadata.annotations).toEqual({ a: '1' });
  const jp = await rest.request<Obj>('PATCH', '/apis/apps/v1/namespaces/ns/replicasets/orphan-rs', {
    body: [{ op: 'replace', path: '/metadata/annotations/a', value: '2' }],
    contentType: 'application/json-patch+json',
  });
  expect(jp.metadata.annotations).toEqual({ a: '2' });
  expect(strategicMergePatch({ a: { b: 1, c: 2 } }, { a: { $patch: 'replace', d: 3 } })).toEqual({ a: { d: 3 } });
});

it('lists in pages with continue tokens, and a token older than the kept history is 410', async () => {
  for (let i = 0; i < 5; i++)
    await rest.request('POST', '/api/v1/namespaces/ns/configmaps', {
      body: { metadata: { name: `cm-${i}`, labels: { i: String(i % 2) } } },
    });
  const names: string[] = [];
  let cont: string | undefined;
  let pages = 0;
  do {
    const page: { items: Obj[]; metadata: { continue?: string } } = await rest.request(
      'GET',
      '/api/v1/namespaces/ns/configmaps',
      {
        query: { limit: 2, continue: cont },
      },
    );
    names.push(...page.items.map((o) => o.metadata.name));
    cont = page.metadata.continue;
    pages++;
  } while (cont);
  expect(names).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  expect(pages).toBe(3);
  const odd = await rest.request<{ items: Obj[] }>('GET', '/api/v1/configmaps', {
    query: { labelSelector: 'i in (1)' },
  });
  expect(odd.items.map((o) => o.metadata.name)).toEqual(['cm-1', 'cm-3']);
  const first = await rest.request<{ metadata: { continue: string } }>('GET', '/api/v1/configmaps', {
    query: { limit: 1 },
  });
  await rest.request('POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'cm-late' } } });
  server.cluster('a').compact();
  await rest.request('POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'cm-later' } } });
  expect(
    await code(rest.request('GET', '/api/v1/configmaps', { query: { limit: 1, continue: first.metadata.continue } })),
  ).toBe(410);
});

it('watches from a resourceVersion with bookmarks, and answers 410 Gone for one that was compacted', async () => {
  const kc = registry.kubeConfig('a');
  const start = (await rest.request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces/ns/pods'))
    .metadata.resourceVersion;
  const seen: Array<{ type: string; rv: string; phase?: string }> = [];
  const watch = await new Watch(kc).watch(
    '/api/v1/pods',
    { resourceVersion: start, allowWatchBookmarks: true },
    (type, o: { metadata: { resourceVersion: string }; status?: { phase?: string } }) =>
      seen.push({ type, rv: o.metadata.resourceVersion, ...(o.status?.phase && { phase: o.status.phase }) }),
    () => undefined,
  );
  await rest.request('POST', '/api/v1/namespaces/ns/pods', {
    body: { metadata: { generateName: 'p-' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } },
  });
  // kwok-like: bound, then Running and Ready; a bookmark arrives meanwhile.
  await until(() =>
    seen.some((e) => e.phase === 'Running') && seen.some((e) => e.type === 'BOOKMARK') ? true : undefined,
  );
  expect(seen[0]).toMatchObject({ type: 'ADDED', phase: 'Pending' });
  watch.abort();
  server.cluster('a').compact();
  await rest.request('POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'cm-after' } } });
  const errors: unknown[] = [];
  await new Promise<void>((resolve) => {
    void new Watch(kc).watch(
      '/api/v1/pods',
      { resourceVersion: start },
      (type, o) => type === 'ERROR' && errors.push(o),
      () => resolve(),
    );
  });
  expect(errors).toEqual([expect.objectContaining({ code: 410, reason: 'Expired' })]);
});

it('deletes with a uid precondition, gracefully for bound pods, and collects dependents of a deleted owner', async () => {
  const rs = await rest.request<Obj>('POST', '/apis/apps/v1/namespaces/ns/replicasets', {
    body: { ...deployment('gc-rs', 1), kind: 'ReplicaSet' },
  });
  const pod = await rest.request<Obj>('POST', '/api/v1/namespaces/ns/pods', {
    body: {
      metadata: {
        name: 'gc-pod',
        labels: { app: 'gc-rs' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gc-rs', uid: rs.metadata.uid, controller: true },
        ],
      },
      spec: { containers: [{ name: 'c', image: 'x:1' }] },
    },
  });
  const c = server.cluster('a');
  const pods = c.resource('', 'pods');
  await until(() =>
    (c.get(pods, 'ns', 'gc-pod').status as { phase?: string }).phase === 'Running' ? true : undefined,
  );
  const del = (uid: string) =>
    rest.request('DELETE', '/apis/apps/v1/namespaces/ns/replicasets/gc-rs', {
      body: { preconditions: { uid }, propagationPolicy: 'Background' },
    });
  expect(await code(del('wrong'))).toBe(409);
  await del(rs.metadata.uid);
  expect(await code(rest.request('GET', '/apis/apps/v1/namespaces/ns/replicasets/gc-rs'))).toBe(404);
  // The pod is marked (deletionTimestamp), then gone.
  await until(() => (c.list(pods, 'ns').items.some((p) => p.metadata.uid === pod.metadata.uid) ? undefined : true));
  // Foreground: the owner stays (deletionTimestamp, finalizer) until its dependents are gone.
  const owner = await rest.request<Obj>('POST', '/apis/apps/v1/namespaces/ns/deployments', { body: deployment('fg') });
  await rest.request('POST', '/apis/apps/v1/namespaces/ns/replicasets', {
    body: {
      ...deployment('fg-rs', 0),
      kind: 'ReplicaSet',
      metadata: {
        name: 'fg-rs',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'fg', uid: owner.metadata.uid, controller: true },
        ],
      },
    },
  });
  const marked = await rest.request<Obj>('DELETE', '/apis/apps/v1/namespaces/ns/deployments/fg', {
    body: { propagationPolicy: 'Foreground' },
  });
  expect(marked.metadata.finalizers).toContain('foregroundDeletion');
  const rsRes = c.resource('apps', 'replicasets');
  const depRes = c.resource('apps', 'deployments');
  await until(() => (c.list(rsRes, 'ns').items.some((o) => o.metadata.name === 'fg-rs') ? undefined : true));
  await until(() => (c.list(depRes, 'ns').items.some((o) => o.metadata.name === 'fg') ? undefined : true));
});

it('serves the same clusters over HTTPS when started with a certificate (kubectl sends no token over HTTP)', async () => {
  const key = join(dir, 'tls.key');
  const cert = join(dir, 'tls.crt');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  const tlsServer = await SimServer.start(['t'], {
    tls: { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') },
  });
  try {
    expect(tlsServer.kubeconfig('t', { tls: true })).toContain(`server: ${tlsServer.tlsUrl('t')}`);
    const get = (token?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpsRequest(
          `${tlsServer.tlsUrl('t')}/api/v1/namespaces/kube-system`,
          { rejectUnauthorized: false, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', reject);
        req.end();
      });
    expect(await get(tlsServer.token('t'))).toBe(200);
    expect(await get()).toBe(401);
  } finally {
    await tlsServer.close();
  }
});
