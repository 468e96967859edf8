// fleetq's JobSet admission function (shared/admission/) serving a fleetq-mode sandbox cluster: one cluster of its
// own (its own sandbox root, so nothing collides with the shared sandbox) with JobSet's CRD (resolved from the
// sigs.k8s.io/jobset module), the admission server run in-process with a serving certificate of the sandbox CA,
// and Mutating/ValidatingWebhookConfigurations whose clientConfig.url points at it. A JobSet created without
// defaults comes back defaulted as upstream's webhook defaults it; invalid ones are refused with upstream's
// messages; exclusive placement is refused as not supported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { JOBSET_CONTROLLER, JOBSET_CRD } from '../../infra/sandbox/jobset-controller.js';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { down } from '../../infra/sandbox/sandbox.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import {
  startJobSetAdmission,
  withoutEmpty,
  type RunningJobSetAdmission,
} from '../helpers/sandbox/jobset-admission.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';

const KINDS = sandboxKindOptions({ crds: [{ kind: 'JobSet', file: JOBSET_CRD }], upstreamControllers: [] });
const UPSTREAM_KINDS = sandboxKindOptions({
  crds: [{ kind: 'JobSet', file: JOBSET_CRD }],
  upstreamControllers: [{ kind: 'JobSet', name: JOBSET_CONTROLLER, runs: 'add-on' }],
});
const NAMESPACE = 'jobset-admission';

type JobSet = KubernetesObject & { spec: Record<string, unknown> };
type ApiRefusal = { code?: number; body?: unknown };

/** One JobSet with room for every default: a failure policy rule without a name, a volume claim policy. */
const COMPARED_SPEC = {
  failurePolicy: {
    maxRestarts: 1,
    rules: [{ action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] }, { action: 'RestartJobSet' }],
  },
  network: { subdomain: 'compared' },
};

function jobSet(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): JobSet {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: NAMESPACE, ...(annotations && { annotations }) },
    spec: {
      replicatedJobs: [
        { name: 'leader', replicas: 1, template: { spec: { template: kwokPodTemplate({ app: name }) } } },
        { name: 'workers', replicas: 2, template: { spec: { template: kwokPodTemplate({ app: name }) } } },
      ],
      ...spec,
    },
  };
}

describe('fleetq JobSet admission on a fleetq-mode cluster', () => {
  // Made when the tests run (a filtered run that skips them leaves nothing behind).
  let root = '';
  let kc: KubeConfig;
  let admission: RunningJobSetAdmission | undefined;
  const answered: Record<string, unknown>[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-jobset-admission-'));
    ({ kc } = await upOneCluster({
      spec: { name: 'jobset-admission', mode: SandboxMode.Fleetq },
      root,
      kinds: KINDS,
      namespace: NAMESPACE,
    }));

    admission = await startJobSetAdmission({
      root,
      kc,
      log: (_m, fields) => answered.push(fields),
      probeNamespace: NAMESPACE,
    });
  }, 15 * 60_000);

  afterAll(async () => {
    await admission?.stop();
    if (root === '') return;
    await downAndRemove(root);
  });

  const refusal = (obj: JobSet): Promise<{ code?: number; message: string }> =>
    KubernetesObjectApi.makeApiClient(kc)
      .create(obj)
      .then(
        () => ({ message: 'created' }),
        (err: ApiRefusal) => ({
          code: err.code,
          message: (JSON.parse(String(err.body)) as { message: string }).message,
        }),
      );

  it('defaults a JobSet created without defaults as upstream Default() does', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const created = (await objects.create(
      jobSet('js', { failurePolicy: { maxRestarts: 2, rules: [{ action: 'FailJobSet' }] } }),
    )) as JobSet;
    const template = (app: string) => ({
      spec: {
        template: {
          ...kwokPodTemplate({ app }),
          spec: { ...kwokPodTemplate({ app }).spec, restartPolicy: 'OnFailure' },
        },
        completionMode: 'Indexed',
      },
    });
    expect(created.spec).toEqual({
      replicatedJobs: [
        { name: 'leader', groupName: 'default', replicas: 1, template: template('js') },
        { name: 'workers', groupName: 'default', replicas: 2, template: template('js') },
      ],
      // CRD schema defaults: groupName, restartStrategy. The webhook's: the rest.
      failurePolicy: {
        maxRestarts: 2,
        restartStrategy: 'Recreate',
        rules: [{ name: 'failurePolicyRule0', action: 'FailJobSet' }],
      },
      successPolicy: { operator: 'All' },
      startupPolicy: { startupPolicyOrder: 'AnyOrder' },
      network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
    });
    expect(answered).toContainEqual(expect.objectContaining({ webhook: 'mutate', name: 'js', outcome: 'patched' }));
  });

  it("refuses invalid JobSets with upstream's messages", async () => {
    const denied = (text: string) => `admission webhook "vjobset.kb.io" denied the request: ${text}`;
    expect(
      await refusal(jobSet('bad-target', { successPolicy: { operator: 'All', targetReplicatedJobs: ['missing'] } })),
    ).toEqual({
      code: 422,
      message: denied(
        `JobSet.jobset.x-k8s.io "bad-target" is invalid: <nil>: Internal error: invalid replicatedJob name 'missing' does not appear in .spec.ReplicatedJobs`,
      ),
    });
    const long = 'a'.repeat(54); // `<long>-leader-0` is 63 characters, `<long>-workers-1` 64
    expect(await refusal(jobSet(long))).toEqual({
      code: 422,
      message: denied(
        `JobSet.jobset.x-k8s.io "${long}" is invalid: spec.replicatedJobs[1].name: Invalid value: "${long}-workers-1": JobSet name is too long, job names generated for this JobSet will exceed 63 characters`,
      ),
    });
    expect(
      await refusal(
        jobSet('bad-rules', {
          failurePolicy: {
            rules: [
              { name: 'same', action: 'FailJobSet' },
              { name: 'same', action: 'RestartJobSet' },
            ],
          },
        }),
      ),
    ).toEqual({
      code: 422,
      message: denied(
        `JobSet.jobset.x-k8s.io "bad-rules" is invalid: <nil>: Internal error: rule names are not unique, rules with indices [0 1] all have the same name 'same'`,
      ),
    });
  });

  it('refuses an update of the immutable replicatedJobs', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const current = (await objects.read({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name: 'js', namespace: NAMESPACE },
    })) as JobSet;
    const rJobs = current.spec.replicatedJobs as Array<{ replicas: number }>;
    rJobs[1]!.replicas = 3;
    const err = await objects.replace(current).then(
      () => undefined,
      (e: ApiRefusal) => e,
    );
    expect(err?.code).toBe(422);
    const message = (JSON.parse(String(err?.body)) as { message: string }).message;
    expect(message).toMatch(
      /^admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs: Invalid value: \[.*\]: field is immutable$/,
    );
  });

  it('refuses exclusive placement as not supported, pointing at the upstream controller', async () => {
    const answer = await refusal(
      jobSet('exclusive', {}, { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'topology.kubernetes.io/zone' }),
    );
    expect(answer).toEqual({
      code: 403,
      message:
        'admission webhook "vjobset.kb.io" denied the request: exclusive placement (annotation "alpha.jobset.sigs.k8s.io/exclusive-topology" in metadata.annotations) is not supported by fleetq\'s admission function: it needs the pod webhooks of the upstream JobSet controller, which supports it',
    });
  });
});

// The same JobSet created on an upstream-mode cluster, where upstream's own webhooks (the jobset-controller add-on)
// default it: the stored spec is the same as fleetq's, apart from the empty values upstream's re-encoding adds.
describe('fleetq JobSet admission compared with upstream webhook', () => {
  let fleetqRoot = '';
  let upstreamRoot = '';
  let admission: RunningJobSetAdmission | undefined;

  beforeAll(() => {
    fleetqRoot = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-jobset-admission-f-'));
    upstreamRoot = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-jobset-admission-u-'));
  });

  afterAll(async () => {
    await admission?.stop();
    if (fleetqRoot === '') return;
    await down(undefined, fleetqRoot);
    await down(undefined, upstreamRoot);
    rmSync(fleetqRoot, { recursive: true, force: true });
    rmSync(upstreamRoot, { recursive: true, force: true });
  });

  it(
    'defaults the same JobSet to the same spec',
    async () => {
      const [{ kc: fkc }, { kc: ukc }] = await Promise.all([
        upOneCluster({
          spec: { name: 'jobset-admission-f', mode: SandboxMode.Fleetq },
          root: fleetqRoot,
          kinds: KINDS,
          namespace: NAMESPACE,
        }),
        upOneCluster({
          spec: { name: 'jobset-admission-u', mode: SandboxMode.Upstream },
          root: upstreamRoot,
          kinds: UPSTREAM_KINDS,
          namespace: NAMESPACE,
        }),
      ]);

      admission = await startJobSetAdmission({ root: fleetqRoot, kc: fkc, webhooks: ['mutate'] });
      const created = async (kc: KubeConfig, name: string) =>
        (await KubernetesObjectApi.makeApiClient(kc).create(jobSet(name, COMPARED_SPEC), undefined, 'All')) as JobSet;
      let ours: JobSet | undefined;
      await waitFor(
        async () => {
          ours = await created(fkc, 'compared');
          return ours.spec.successPolicy !== undefined;
        },
        30_000,
        200,
        "fleetq's webhook configuration to take effect",
      );
      let theirs: JobSet | undefined;
      await waitFor(
        async () => {
          theirs = await created(ukc, 'compared').catch(() => undefined);
          return theirs?.spec.successPolicy !== undefined;
        },
        60_000,
        250,
        "upstream's webhook to answer",
      );
      expect(withoutEmpty(ours!.spec)).toEqual(withoutEmpty(theirs!.spec));
      expect(ours!.spec).toMatchObject({
        failurePolicy: { rules: [{ name: 'failurePolicyRule0' }, { name: 'failurePolicyRule1' }] },
        network: { subdomain: 'compared', enableDNSHostnames: true, publishNotReadyAddresses: true },
      });
    },
    15 * 60_000,
  );
});
