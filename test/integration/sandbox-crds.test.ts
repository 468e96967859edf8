// The sandbox's CRD mechanism (infra/sandbox/crds.ts, run by startCluster and `up` for the kinds' CRDs of
// kind-options.ts) on a sandbox cluster: a tiny test CRD is applied, Established and served (an object of it is
// created and read back at its own path, its status subresource too), and applying it again changes nothing.
import { afterAll, describe, expect, it } from '@jest/globals';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { installCrds, readCrds } from '../../infra/sandbox/crds.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const CRD_FILE = new URL('./fixtures/sandbox-gadget-crd.yaml', import.meta.url);
const CRD_NAME = 'gadgets.sandbox-test.fleetq.dev';
const CLUSTER = 'upstream-1';

describe('sandbox CRDs', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('installs a CRD from a file and its resource is served, idempotently', async () => {
    const { kc } = await sandboxCluster(CLUSTER);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD_NAME },
    };
    cleanups.push(async () => {
      await objects.delete(crd).catch(() => undefined);
      await waitFor(
        async () =>
          objects.read(crd).then(
            () => false,
            () => true,
          ),
        60_000,
        200,
        `CRD ${CRD_NAME} to be deleted`,
      );
    });
    const ns = await testNamespace(kc);
    cleanups.push(ns.remove);

    expect(await installCrds(kc, [CRD_FILE])).toEqual([CRD_NAME]);

    const gadget: KubernetesObject & { spec: { size: number } } = {
      apiVersion: 'sandbox-test.fleetq.dev/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: ns.name },
      spec: { size: 3 },
    };
    await objects.create(gadget);
    const read = (await objects.read({ ...gadget, metadata: { name: 'g1', namespace: ns.name } })) as typeof gadget;
    expect(read.spec).toEqual({ size: 3 });
    const listed = await objects.list('sandbox-test.fleetq.dev/v1', 'Gadget', ns.name);
    expect(listed.items.map((i) => i.metadata?.name)).toEqual(['g1']);

    // Applied again (a cluster reused by `up`): the same CRD, still served, the object still there.
    expect(await installCrds(kc, [CRD_FILE])).toEqual([CRD_NAME]);
    expect((await objects.list('sandbox-test.fleetq.dev/v1', 'Gadget', ns.name)).items).toHaveLength(1);
  }, 120_000);

  it('refuses a file holding anything but CRDs (the mechanism installs APIs only)', () => {
    expect(readCrds([CRD_FILE]).map((c) => c.metadata?.name)).toEqual([CRD_NAME]);
    expect(() => readCrds([new URL('../../infra/k8s/namespace.yaml', import.meta.url)])).toThrow(
      /holds a Namespace, not a named CustomResourceDefinition/,
    );
  });
});
