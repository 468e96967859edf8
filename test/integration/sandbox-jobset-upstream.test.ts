// JobSet's upstream controller as a sandbox add-on (infra/sandbox/jobset-controller.ts): one upstream-mode cluster
// of its own (its own sandbox root, so it never touches the shared sandbox), given JobSet's kind option
// explicitly (upstream's CRD from the sigs.k8s.io/jobset module, the add-on built by build-addons.sh). The
// controller creates the child Jobs `<js>-<rj>-<idx>` with its labels, its mutating webhook defaults the spec,
// and its validating webhook refuses an invalid JobSet with upstream's message.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BatchV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
  type V1Job,
  type V1OwnerReference,
} from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { JOBSET_CONTROLLER, JOBSET_CRD } from '../../infra/sandbox/jobset-controller.js';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki } from '../../infra/sandbox/pki.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';

const KINDS = sandboxKindOptions({
  crds: [{ kind: 'JobSet', file: JOBSET_CRD }],
  upstreamControllers: [{ kind: 'JobSet', name: JOBSET_CONTROLLER, runs: 'add-on' }],
});

type JobSet = KubernetesObject & {
  spec: {
    replicatedJobs: Array<{
      name: string;
      replicas: number;
      template: { spec: { completionMode?: string; template: ReturnType<typeof kwokPodTemplate> } };
    }>;
    successPolicy?: { operator?: string; targetReplicatedJobs?: string[] };
    startupPolicy?: { startupPolicyOrder?: string };
    network?: { enableDNSHostnames?: boolean; publishNotReadyAddresses?: boolean };
  };
};

function jobSet(name: string, namespace: string, successPolicy?: JobSet['spec']['successPolicy']): JobSet {
  const rj = (rjName: string, replicas: number) => ({
    name: rjName,
    replicas,
    template: { spec: { template: kwokPodTemplate({ app: name }) } },
  });
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace },
    spec: { ...(successPolicy && { successPolicy }), replicatedJobs: [rj('leader', 1), rj('workers', 2)] },
  };
}

describe('JobSet upstream controller in the sandbox', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-jobset-'));
  let cluster: ClusterState;
  let kc: KubeConfig;
  const namespace = 'jobset-test';

  beforeAll(async () => {
    ({ cluster, kc } = await upOneCluster({
      spec: { name: 'jobset-upstream', mode: SandboxMode.Upstream },
      root,
      kinds: KINDS,
      namespace,
    }));
  }, 15 * 60_000);

  afterAll(() => downAndRemove(root));

  it('runs the add-on, and its webhook configurations reach it on 127.0.0.1 with the sandbox CA', async () => {
    expect(Object.keys(cluster.addOns ?? {})).toEqual([JOBSET_CONTROLLER]);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const mutating = (await objects.read({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'jobset-mutating-webhook-configuration' },
    })) as KubernetesObject & {
      webhooks: Array<{ name: string; clientConfig: { url?: string; caBundle?: string }; objectSelector?: unknown }>;
    };
    const ca = readFileSync(ensurePki(root).caCert).toString('base64');
    expect(mutating.webhooks.map((w) => [w.name, w.clientConfig.url?.replace(/:\d+\//, ':<port>/')])).toEqual([
      ['mjobset.kb.io', 'https://127.0.0.1:<port>/mutate-jobset-x-k8s-io-v1alpha2-jobset'],
      ['mpod.kb.io', 'https://127.0.0.1:<port>/mutate--v1-pod'],
    ]);
    expect(mutating.webhooks.every((w) => w.clientConfig.caBundle === ca)).toBe(true);
    // Upstream's patch keeps the pod webhook to JobSet's pods: no other pod waits on the add-on.
    expect(mutating.webhooks[1]?.objectSelector).toEqual({
      matchExpressions: [{ key: 'jobset.sigs.k8s.io/jobset-name', operator: 'Exists' }],
    });
  });

  it('defaults a JobSet (mutating webhook) and creates its child Jobs <js>-<rj>-<idx> with its labels', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const created = (await objects.create(jobSet('js', namespace))) as JobSet;
    expect(created.spec.successPolicy?.operator).toBe('All');
    expect(created.spec.startupPolicy?.startupPolicyOrder).toBe('AnyOrder');
    expect(created.spec.network).toEqual({ enableDNSHostnames: true, publishNotReadyAddresses: true });
    expect(created.spec.replicatedJobs.map((r) => r.template.spec.completionMode)).toEqual(['Indexed', 'Indexed']);
    expect(created.spec.replicatedJobs.map((r) => r.template.spec.template.spec?.restartPolicy)).toEqual([
      'OnFailure',
      'OnFailure',
    ]);

    const batch = kc.makeApiClient(BatchV1Api);
    let jobs: V1Job[] = [];
    await waitFor(
      async () => {
        jobs = (await batch.listNamespacedJob({ namespace })).items;
        return jobs.length === 3;
      },
      60_000,
      250,
      `the JobSet's 3 child Jobs (log ${join(cluster.dir, 'logs', `${JOBSET_CONTROLLER}.log`)})`,
    );
    const byName = Object.fromEntries(jobs.map((j) => [j.metadata?.name, j.metadata]));
    expect(Object.keys(byName).sort()).toEqual(['js-leader-0', 'js-workers-0', 'js-workers-1']);
    expect(byName['js-workers-1']?.labels).toMatchObject({
      'jobset.sigs.k8s.io/jobset-name': 'js',
      'jobset.sigs.k8s.io/jobset-uid': created.metadata?.uid,
      'jobset.sigs.k8s.io/replicatedjob-name': 'workers',
      'jobset.sigs.k8s.io/replicatedjob-replicas': '2',
      'jobset.sigs.k8s.io/job-index': '1',
      'jobset.sigs.k8s.io/restart-attempt': '0',
    });
    expect(
      byName['js-leader-0']?.ownerReferences?.map((o: V1OwnerReference) => [o.kind, o.name, o.controller]),
    ).toEqual([['JobSet', 'js', true]]);
    // enableDNSHostnames: the headless Service named after the subdomain (the JobSet's name by default).
    await waitFor(
      async () =>
        kc
          .makeApiClient(CoreV1Api)
          .readNamespacedService({ name: 'js', namespace })
          .then((s) => s.spec?.clusterIP === 'None'),
      30_000,
      250,
      "the JobSet's headless Service",
    );
  });

  it('refuses an invalid JobSet with upstream validation message (validating webhook)', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const refusal = await objects
      .create(jobSet('bad', namespace, { operator: 'All', targetReplicatedJobs: ['missing'] }))
      .then(
        () => undefined,
        (err: unknown) => err as { code?: number; body?: unknown },
      );
    expect(refusal?.code).toBe(422);
    const message = (JSON.parse(String(refusal?.body)) as { message: string }).message;
    expect(message).toContain('admission webhook "vjobset.kb.io" denied the request');
    expect(message).toContain("invalid replicatedJob name 'missing' does not appear in .spec.ReplicatedJobs");
  });
});
