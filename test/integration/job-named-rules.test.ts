// Named pod-failure-policy rules (KEP-4443 ahead of upstream, through the fleetq.dev/pod-failure-policy-rule-names
// annotation) against a real kube-apiserver: sandbox fleetq-2, whose controller-manager runs no job controller.
// Reconciles go through the real runtime in-process (reconcileOne, MemoryQueue, live cluster view, writer,
// event recorder); kwok runs the pods and a test ends one by annotating it with an outcome and an exit code
// (infra/sandbox/stages/pod-outcome.yaml). No upstream counterpart exists yet, so this is not differential.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api, type CoreV1Event, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { jobController } from '../../shared/controllers/job/index.js';
import { RULE_NAMES_ANNOTATION } from '../../shared/controllers/job/rule-names.js';
import { EventRecorders } from '../../shared/kube/events/recorders.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const OUTCOME = 'fleetq.dev/sandbox-outcome';
const EXIT_CODE = 'fleetq.dev/sandbox-exit-code';

describe('Job controller: named pod-failure-policy rules on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps & { events: EventRecorders };

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    queue = new MemoryQueue();
    const base = inProcessDeps(c, {
      owns: ['Job'],
      controllers: [['Job', jobController]],
      queue,
      service: 'job-names-it',
    });
    deps = { ...base, events: new EventRecorders() };
  });

  afterAll(async () => {
    await deps?.events.close();
    await queue?.close();
    await ns?.remove();
  });

  const key = (name: string) => ({ cluster: CLUSTER, kind: 'Job', namespace: ns.name, name });
  const readJob = (name: string) => batch.readNamespacedJob({ namespace: ns.name, name });
  const podsOf = async (name: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: ns.name, labelSelector: `batch.kubernetes.io/job-name=${name}` })).items;

  /** A one-pod Job with two FailJob rules: exit code 42 (rule 0) and exit code 7 (rule 1). */
  async function createJob(name: string, ruleNames?: string): Promise<V1Job> {
    const template = kwokPodTemplate({ app: name });
    return batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, ...(ruleNames !== undefined && { annotations: { [RULE_NAMES_ANNOTATION]: ruleNames } }) },
        spec: {
          completions: 1,
          parallelism: 1,
          podFailurePolicy: {
            rules: [
              { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
              { action: 'FailJob', onExitCodes: { operator: 'In', values: [7] } },
            ],
          },
          template: { ...template, spec: { ...template.spec!, restartPolicy: 'Never' } },
        },
      },
    });
  }

  async function reconcile(name: string): Promise<void> {
    await queue.add(key(name));
    const lease = await queue.get(5_000);
    if (!lease) throw new Error('the queue handed out no lease');
    const outcome = await reconcileOne(deps, lease);
    if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`reconcile ended ${outcome}`);
  }

  /** Reconciles until the pod runs, then fails it with `exitCode`, then reconciles until the Job is Failed. */
  async function failWith(name: string, exitCode: number): Promise<V1Job> {
    let pod: V1Pod | undefined;
    await waitFor(
      async () => {
        await reconcile(name);
        pod = (await podsOf(name)).find((p) => p.status?.phase === 'Running');
        return pod !== undefined;
      },
      60_000,
      300,
      `a running pod of ${name}`,
    );
    await core.patchNamespacedPod({
      namespace: ns.name,
      name: pod!.metadata!.name!,
      body: [
        {
          op: 'add',
          path: '/metadata/annotations',
          value: { ...pod!.metadata?.annotations, [OUTCOME]: 'Failed', [EXIT_CODE]: String(exitCode) },
        },
      ],
    });
    let job: V1Job | undefined;
    await waitFor(
      async () => {
        await reconcile(name);
        job = await readJob(name);
        return (job.status?.conditions ?? []).some((x) => x.type === 'Failed' && x.status === 'True');
      },
      90_000,
      300,
      `${name} to fail`,
    );
    return job!;
  }

  const reasons = (j: V1Job) =>
    (j.status?.conditions ?? []).filter((x) => x.status === 'True').map((x) => `${x.type}/${x.reason}`);
  const eventsOf = async (name: string): Promise<CoreV1Event[]> =>
    (await core.listNamespacedEvent({ namespace: ns.name })).items.filter(
      (e) => e.involvedObject.kind === 'Job' && e.involvedObject.name === name,
    );

  it('a named FailJob rule fails the Job with reason PodFailurePolicy_<name> and upstream message', async () => {
    await createJob('named', '["ExitCode42", null]');
    const job = await failWith('named', 42);
    expect(reasons(job)).toEqual(['FailureTarget/PodFailurePolicy_ExitCode42', 'Failed/PodFailurePolicy_ExitCode42']);
    const failed = job.status?.conditions?.find((x) => x.type === 'Failed');
    expect(failed?.message).toMatch(
      new RegExp(
        `^Container app for pod ${ns.name}/named-[a-z0-9]+ failed with exit code 42 matching FailJob rule at index 0$`,
      ),
    );
    await waitFor(
      async () =>
        (await eventsOf('named')).some((e) => e.type === 'Warning' && e.reason === 'PodFailurePolicy_ExitCode42'),
      30_000,
      300,
      'the Warning event of the Failed condition',
    );
  }, 180_000);

  it('an unnamed rule under a valid annotation fails the Job with reason PodFailurePolicy_<index>', async () => {
    await createJob('unnamed', '["ExitCode42", null]');
    const job = await failWith('unnamed', 7);
    expect(reasons(job)).toEqual(['FailureTarget/PodFailurePolicy_1', 'Failed/PodFailurePolicy_1']);
  }, 180_000);

  it('a malformed annotation: a Warning Event, and the Job fails with upstream reason PodFailurePolicy', async () => {
    await createJob('malformed', '["Same", "Same"]');
    const job = await failWith('malformed', 42);
    expect(reasons(job)).toEqual(['FailureTarget/PodFailurePolicy', 'Failed/PodFailurePolicy']);
    let warning: CoreV1Event | undefined;
    await waitFor(
      async () => {
        warning = (await eventsOf('malformed')).find((e) => e.reason === 'InvalidPodFailurePolicyRuleNames');
        return warning !== undefined;
      },
      30_000,
      300,
      'the InvalidPodFailurePolicyRuleNames Warning',
    );
    expect(warning).toMatchObject({
      type: 'Warning',
      message: `Ignored annotation ${RULE_NAMES_ANNOTATION}: rules 0 and 1 are both named Same; the failure reason stays PodFailurePolicy`,
      source: { component: 'job-controller' },
    });
  }, 180_000);
});
