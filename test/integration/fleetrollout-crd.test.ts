// infra/k8s/fleetrollout-crd.yaml on a real kube-apiserver (sandbox cluster fleetq-1): the CRD is Established and
// served, the example is accepted and read back with the schema's defaults, and the apiserver refuses what
// only it can check: the CEL rules (unique wave names, only the last wave without clusters, int-or-percent ranges),
// and the schema's enums and patterns. The CRD stays installed (idempotent; other files on fleetq-1 use it).
import { request, type RequestOptions } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi, KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { installCrds } from '../../infra/sandbox/crds.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';
import { exampleRollout } from '../helpers/rollouts/example.js';

const CRD_FILE = new URL('../../infra/k8s/fleetrollout-crd.yaml', import.meta.url);
const CRD_NAME = 'fleetrollouts.fleetq.dev';
const CLUSTER = 'fleetq-1';

type Rollout = KubernetesObject & { spec: Record<string, unknown>; status?: Record<string, unknown> };
type ApiRefusal = { code?: number; body?: unknown };

const example = (name: string, namespace: string, spec: Record<string, unknown> = {}): Rollout =>
  exampleRollout(name, namespace, spec) as Rollout;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const ref = (name: string, namespace: string) => ({
  apiVersion: 'fleetq.dev/v1alpha1',
  kind: 'FleetRollout',
  metadata: { name, namespace },
});

type Table = { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };

/** GET `path` as a meta.k8s.io Table: what `kubectl get` prints. */
async function getTable(kc: KubeConfig, path: string): Promise<Table> {
  const url = new URL(path, kc.getCurrentCluster()?.server);
  const opts: RequestOptions = {
    method: 'GET',
    headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    timeout: 30_000,
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise<Table>((resolve, reject) => {
    const req = request(url, opts, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(JSON.parse(text) as Table) : reject(new Error(`GET ${path}: ${text}`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

describe('the FleetRollout CRD on a real apiserver', () => {
  let kc: KubeConfig;
  let objects: KubernetesObjectApi;
  let ns: { name: string; remove: () => Promise<void> };

  beforeAll(async () => {
    ({ kc } = await sandboxCluster(CLUSTER));
    objects = KubernetesObjectApi.makeApiClient(kc);
    expect(await installCrds(kc, [CRD_FILE])).toEqual([CRD_NAME]);
    ns = await testNamespace(kc);
  }, 120_000);

  // The CRD stays: other test files on fleetq-1 (the rollout commands') use it, two files run at once, and
  // installing it is idempotent.
  afterAll(async () => {
    await ns?.remove();
  }, 120_000);

  /** The apiserver's refusal of `obj`: its code and the causes' messages (field: message). */
  const refusal = (obj: Rollout): Promise<{ code?: number; causes: string[] }> =>
    objects.create(obj).then(
      () => ({ code: 201, causes: [] }),
      (err: ApiRefusal) => {
        const body = JSON.parse(String(err.body)) as {
          details?: { causes?: Array<{ field?: string; message?: string }> };
        };
        return {
          code: err.code,
          causes: (body.details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`),
        };
      },
    );

  it("accepts the issue's example and fills the defaults", async () => {
    await objects.create(example('web', ns.name));
    const read = (await objects.read(ref('web', ns.name))) as Rollout;
    expect(read.spec).toEqual({
      ...example('web', ns.name).spec,
      waves: [
        { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '10m', approval: false },
        { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, soak: '5m', approval: false },
        { name: 'rest', maxConcurrency: '25%', soak: '0', approval: false },
      ],
    });
  }, 60_000);

  it('takes a status ledger through the status subresource', async () => {
    await objects.create(example('ledger', ns.name));
    const read = (await objects.read(ref('ledger', ns.name))) as Rollout;
    const status = {
      observedGeneration: 1,
      phase: 'Progressing',
      revision: 'r2',
      wave: 'canary',
      revisions: [
        {
          revision: 'r2',
          attempt: 1,
          startedAt: '2026-01-01T00:00:00.000Z',
          phase: 'Progressing',
          wave: 'canary',
          clusters: [{ cluster: 'c0', wave: 'canary', admittedAt: '2026-01-01T00:00:00.000Z', observedGeneration: 7 }],
        },
      ],
    };
    const custom = kc.makeApiClient(CustomObjectsApi);
    const written = (await custom.replaceNamespacedCustomObjectStatus({
      group: 'fleetq.dev',
      version: 'v1alpha1',
      namespace: ns.name,
      plural: 'fleetrollouts',
      name: 'ledger',
      body: { ...read, status },
    })) as Rollout;
    expect(written.status).toEqual(status);

    // kubectl get fleetrollouts: the printer columns read the spec and the ledger.
    const table = await getTable(kc, `/apis/fleetq.dev/v1alpha1/namespaces/${ns.name}/fleetrollouts/ledger`);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Target', 'Revision', 'Wave', 'Phase', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 5)).toEqual(['ledger', 'web', 'r2', 'canary', 'Progressing']);
  }, 60_000);

  it.each([
    {
      name: 'duplicate wave names',
      spec: { waves: [{ name: 'a', clusters: {} }, { name: 'a' }] },
      cause: 'spec.waves: Invalid value: wave names must be unique',
    },
    {
      name: 'a wave without clusters before the last',
      spec: { waves: [{ name: 'a' }, { name: 'b', clusters: {} }] },
      cause:
        'spec.waves: Invalid value: only the last wave may leave out clusters (it takes every selected cluster no earlier wave took)',
    },
    {
      name: 'two waves without clusters',
      spec: { waves: [{ name: 'a' }, { name: 'b' }] },
      cause:
        'spec.waves: Invalid value: only the last wave may leave out clusters (it takes every selected cluster no earlier wave took)',
    },
    {
      name: 'a concurrency above 100%',
      spec: { waves: [{ name: 'a', maxConcurrency: '150%' }] },
      cause: 'spec.waves[0].maxConcurrency: Invalid value: "150%": must be 1 or more, or a percent from 1% to 100%',
    },
    {
      name: 'a concurrency of 0',
      spec: { waves: [{ name: 'a', maxConcurrency: 0 }] },
      cause: 'spec.waves[0].maxConcurrency: Invalid value: 0: must be 1 or more, or a percent from 1% to 100%',
    },
    {
      name: 'a negative budget',
      spec: { failureBudget: { maxFailedClusters: -1 } },
      cause: 'spec.failureBudget.maxFailedClusters: Invalid value: -1: must be 0 or more, or a percent from 0% to 100%',
    },
    {
      name: 'an unknown target kind',
      spec: { target: { kind: 'ReplicaSet', namespace: 'shop', name: 'web' } },
      cause:
        'spec.target.kind: Unsupported value: "ReplicaSet": supported values: "Deployment", "StatefulSet", "DaemonSet"',
    },
    {
      name: 'a duration that is not one',
      spec: { progressDeadline: '5 minutes' },
      cause: 'spec.progressDeadline: Invalid value: "5 minutes": spec.progressDeadline in body should match',
    },
  ])(
    'refuses $name',
    async ({ spec, cause }) => {
      const answer = await refusal(example('bad', ns.name, spec));
      expect(answer.code).toBe(422);
      // The causes name the field; a refusal by the schema also says the CEL rules were not all checked.
      expect(answer.causes.filter((c) => !c.startsWith('<nil>: '))).toEqual([
        expect.stringMatching(`^${escape(cause)}`),
      ]);
    },
    60_000,
  );
});
