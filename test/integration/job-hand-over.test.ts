// Job hand-over one object at a time (KEP-4368 spec.managedBy) on a cluster whose kube-controller-manager keeps
// its job-controller (sandbox upstream-1): fleetq runs whole (forwarder, queue, workers, in this process) with a
// registry entry that owns nothing and hands Jobs over (`handOver: [Job]`). A Job naming fleetq in
// spec.managedBy is run by fleetq and skipped by the built-in controller; a Job without it is the built-in
// controller's alone, and fleetq never writes to it or its pods. Who wrote what is read from managedFields:
// kube-controller-manager's writes carry its name as field manager.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api, type V1Job, type V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { FLEETQ_MANAGER } from '../../shared/controllers/job/types.js';
import { ClusterRegistry } from '../../shared/kube/registry.js';
import { startAllInOne, type AllInOne } from '../../functions/all-in-one.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'upstream-1';
const KCM = 'kube-controller-manager';

describe('Job hand-over by spec.managedBy on a cluster that keeps its job-controller', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let app: AllInOne | undefined;
  let dataDir: string;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    expect(c.state.mode).toBe('upstream');
    ns = await testNamespace(c.kc);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    dataDir = mkdtempSync(join(tmpdir(), 'fleetq-hand-over-'));
    const registry = new ClusterRegistry([
      {
        name: CLUSTER,
        owns: [],
        handOver: ['Job'],
        limits: { qps: 50, burst: 100 },
        connection: { type: 'kubeconfig', path: c.state.kubeconfig },
      },
    ]);
    const config = loadConfig(
      {},
      { FLEETQ_DRIVER: 'memory', FLEETQ_CONCURRENCY: '4', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
    );
    app = await startAllInOne({ config, registry, dataDir });
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await ns?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A Job of `completions` pods that each succeed once Running (the sandbox's kwok outcome stage). */
  const job = (name: string, managedBy?: string): V1Job => {
    const template = kwokPodTemplate({ app: name });
    template.metadata = { ...template.metadata, annotations: { 'fleetq.dev/sandbox-outcome': 'Succeeded' } };
    template.spec = { ...template.spec!, restartPolicy: 'Never' };
    return {
      metadata: { name },
      spec: { completions: 2, parallelism: 2, template, ...(managedBy !== undefined && { managedBy }) },
    };
  };
  const managers = (fields: V1ManagedFieldsEntry[] | undefined, keep = (_: V1ManagedFieldsEntry) => true) =>
    [...new Set((fields ?? []).filter(keep).map((f) => f.manager ?? ''))].sort();
  /** Who wrote the status subresource. */
  const statusWriters = (fields: V1ManagedFieldsEntry[] | undefined) =>
    managers(fields, (f) => f.subresource === 'status');
  /** Who created the object (and wrote its main fields since): spec and metadata entries, not status. */
  const creators = (fields: V1ManagedFieldsEntry[] | undefined) =>
    managers(fields, (f) => f.subresource === undefined || f.subresource === '');
  const complete = (name: string) => async () => {
    const j = await batch.readNamespacedJob({ namespace: ns.name, name });
    return j.status?.conditions?.some((x) => x.type === 'Complete' && x.status === 'True') ?? false;
  };
  const podsOf = async (name: string) =>
    (await core.listNamespacedPod({ namespace: ns.name, labelSelector: `job-name=${name}` })).items;

  it('runs the Job that names fleetq, and leaves the others to kube-controller-manager', async () => {
    await batch.createNamespacedJob({ namespace: ns.name, body: job('handed', FLEETQ_MANAGER) });
    await batch.createNamespacedJob({ namespace: ns.name, body: job('kept') });
    await waitFor(complete('handed'), 120_000, 250, 'the handed-over Job to complete under fleetq');
    await waitFor(complete('kept'), 120_000, 250, 'the other Job to complete under kube-controller-manager');

    // fleetq wrote the handed-over Job's status and made its pods; kube-controller-manager wrote nothing of it.
    const handed = await batch.readNamespacedJob({ namespace: ns.name, name: 'handed' });
    expect(handed.status?.succeeded).toBe(2);
    const fleetq = statusWriters(handed.metadata?.managedFields);
    expect(fleetq).toHaveLength(1);
    expect(fleetq).not.toContain(KCM);
    expect(managers(handed.metadata?.managedFields)).not.toContain(KCM);
    const handedPods = await podsOf('handed');
    expect(handedPods).toHaveLength(2);
    for (const p of handedPods) {
      expect(creators(p.metadata?.managedFields)).toEqual(fleetq);
      expect(managers(p.metadata?.managedFields)).not.toContain(KCM);
    }

    // The other Job is kube-controller-manager's alone: its status and its pods are written by it, not fleetq.
    const kept = await batch.readNamespacedJob({ namespace: ns.name, name: 'kept' });
    expect(kept.status?.succeeded).toBe(2);
    expect(statusWriters(kept.metadata?.managedFields)).toEqual([KCM]);
    const keptPods = await podsOf('kept');
    expect(keptPods).toHaveLength(2);
    for (const p of keptPods) expect(creators(p.metadata?.managedFields)).toEqual([KCM]);
  }, 300_000);
});
