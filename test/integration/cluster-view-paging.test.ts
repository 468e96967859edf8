// LiveClusterView against a real kube-apiserver (fleetq-1) with a page size of 5: lists and counts follow
// `metadata.continue` over every page. (The bug this guards: the token was read as `_continue`, client-node's
// typed-model name, from raw JSON, so every list stopped after its first page.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Pod as V1Pod } from '../../shared/kube/api/objects.js';
import { LiveClusterView } from '../../shared/kube/cluster-view.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const PODS = 12;
const PAGE = 5;

describe('LiveClusterView paging on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let ownerUid: string;
  const names: string[] = [];

  beforeAll(async () => {
    c = await sandboxCluster('fleetq-1');
    ns = await testNamespace(c.kc);
    const core = c.kc.makeApiClient(CoreV1Api);
    // A real owner (the garbage collector deletes dependents of owners that do not exist).
    const owner = await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'owner' } } });
    ownerUid = owner.metadata?.uid ?? '';
    for (let i = 0; i < PODS; i++) {
      const name = `p-${String(i).padStart(2, '0')}`;
      names.push(name);
      await core.createNamespacedPod({
        namespace: ns.name,
        body: {
          metadata: {
            name,
            labels: { app: 'paged', half: i % 2 === 0 ? 'even' : 'odd' },
            // 9 pods controlled by the owner, 3 without a controller
            ...(i < 9 && {
              ownerReferences: [
                { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: ownerUid, controller: true },
              ],
            }),
          },
          // No node matches: the pods stay Pending, which is all this test needs.
          spec: {
            nodeSelector: { 'fleetq.dev/no-such-node': 'true' },
            containers: [{ name: 'app', image: 'registry.example/app:1' }],
          },
        },
      });
    }
  });

  afterAll(async () => {
    await ns?.remove();
  });

  function view(pageSize?: number) {
    const rest = new KubeRest('fleetq-1', c.kc, new TokenBucket(100, 100));
    return { rest, view: new LiveClusterView(rest, pageSize === undefined ? {} : { pageSize }) };
  }

  it(`lists all ${PODS} pods in pages of ${PAGE}: 3 requests`, async () => {
    const { rest, view: v } = view(PAGE);
    const pods = await v.list<V1Pod>('Pod', ns.name);
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual(names);
    expect(pods.every((p) => p.kind === 'Pod' && p.apiVersion === 'v1')).toBe(true);
    expect(rest.requestCount).toBe(3);
  });

  it('pages a label-selected list too (6 of 12 in pages of 5: 2 requests)', async () => {
    const { rest, view: v } = view(PAGE);
    const pods = await v.list<V1Pod>('Pod', ns.name, { labelSelector: 'half=even' });
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual(names.filter((_, i) => i % 2 === 0));
    expect(rest.requestCount).toBe(2);
  });

  it('countControlled counts the controlled pods over every page', async () => {
    const { rest, view: v } = view(PAGE);
    expect(await v.countControlled('Pod', ns.name, ownerUid)).toBe(9);
    expect(rest.requestCount).toBe(3);
    expect(await v.countControlled<V1Pod>('Pod', ns.name, ownerUid, (p) => p.metadata?.labels?.half === 'odd')).toBe(4);
  });

  it('the default page (500) lists the namespace in one request', async () => {
    const { rest, view: v } = view();
    expect(await v.list('Pod', ns.name)).toHaveLength(PODS);
    expect(rest.requestCount).toBe(1);
  });
});
