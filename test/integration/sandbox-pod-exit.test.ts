// kwok ends a pod by its command (infra/sandbox/stages/pod-exit-by-command.yaml), as Kubernetes' own e2e Job and
// CronJob specs expect of a kubelet: a plain exit ends the pod with that exit code, per its restartPolicy, and any
// other command keeps running. Standalone pods, so either cluster mode would do.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, type V1Container, type V1ContainerStatus, type V1Pod } from '@kubernetes/client-node';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { waitFor } from '../../infra/sandbox/process.js';

const BUSYBOX = 'registry.k8s.io/e2e-test-images/busybox:1.37.0-1';
/** The Job e2e fixture's failOddSucceedEven script, as test/e2e/framework/job/fixtures.go writes it. */
const FAIL_ODD_SUCCEED_EVEN = `
			if [ $(expr \${JOB_COMPLETION_INDEX} % 2) -ne 0 ]; then
				exit 1
			else
				exit 0
			fi
			`;

type Case = {
  readonly name: string;
  readonly restartPolicy: 'Never' | 'OnFailure' | 'Always';
  readonly container: Omit<V1Container, 'name'>;
  readonly completionIndex?: string;
};

const CASES: readonly Case[] = [
  { name: 'succeed', restartPolicy: 'Never', container: { image: BUSYBOX, command: ['/bin/sh', '-c', 'exit 0'] } },
  { name: 'fail-3', restartPolicy: 'Never', container: { image: BUSYBOX, command: ['sh', '-c', 'exit 3'] } },
  { name: 'true-onfailure', restartPolicy: 'OnFailure', container: { image: BUSYBOX, command: ['/bin/true'] } },
  { name: 'false-onfailure', restartPolicy: 'OnFailure', container: { image: BUSYBOX, command: ['/bin/false'] } },
  { name: 'bare-busybox', restartPolicy: 'Never', container: { image: BUSYBOX } },
  {
    name: 'odd-index',
    restartPolicy: 'Never',
    container: { image: BUSYBOX, command: ['sh', '-c'], args: [FAIL_ODD_SUCCEED_EVEN] },
    completionIndex: '3',
  },
  {
    name: 'even-index',
    restartPolicy: 'Never',
    container: { image: BUSYBOX, command: ['sh', '-c'], args: [FAIL_ODD_SUCCEED_EVEN] },
    completionIndex: '2',
  },
  { name: 'sleep', restartPolicy: 'Never', container: { image: BUSYBOX, command: ['sleep', '1000000'] } },
  { name: 'exit-always', restartPolicy: 'Always', container: { image: BUSYBOX, command: ['sh', '-c', 'exit 0'] } },
  { name: 'other-image', restartPolicy: 'Never', container: { image: 'registry.example/app:1' } },
];

describe('kwok pods that end by their command', () => {
  let c: TestCluster;
  let core: CoreV1Api;
  let ns: { name: string; remove: () => Promise<void> };
  const pods = new Map<string, V1Pod>();
  const status = (name: string): V1ContainerStatus | undefined => pods.get(name)?.status?.containerStatuses?.[0];

  beforeAll(async () => {
    c = await sandboxCluster('fleetq-2');
    core = c.kc.makeApiClient(CoreV1Api);
    ns = await testNamespace(c.kc);
    const base = kwokPodTemplate({ app: 'exit' }).spec;
    for (const k of CASES) {
      await core.createNamespacedPod({
        namespace: ns.name,
        body: {
          metadata: {
            name: k.name,
            ...(k.completionIndex !== undefined && {
              annotations: { 'batch.kubernetes.io/job-completion-index': k.completionIndex },
            }),
          },
          spec: { ...base, restartPolicy: k.restartPolicy, containers: [{ name: 'c', ...k.container }] },
        },
      });
    }
    // Every pod that ends has ended, and the crash-looping one has restarted twice.
    const ending = ['succeed', 'fail-3', 'true-onfailure', 'bare-busybox', 'odd-index', 'even-index'];
    await waitFor(
      async () => {
        for (const p of (await core.listNamespacedPod({ namespace: ns.name })).items) pods.set(p.metadata!.name!, p);
        const ended = ending.every((n) => ['Succeeded', 'Failed'].includes(pods.get(n)?.status?.phase ?? ''));
        return ended && (status('false-onfailure')?.restartCount ?? 0) >= 2;
      },
      90_000,
      250,
      `pods ${ending.join(', ')} to end and false-onfailure to restart twice`,
    );
  }, 120_000);
  afterAll(async () => ns.remove());

  it.each([
    ['succeed', 'Succeeded', 0],
    ['fail-3', 'Failed', 3],
    ['true-onfailure', 'Succeeded', 0],
    ['bare-busybox', 'Succeeded', 0],
    ['odd-index', 'Failed', 1],
    ['even-index', 'Succeeded', 0],
  ])('%s ends %s with exit code %d', (name, phase, code) => {
    expect(pods.get(name)?.status?.phase).toBe(phase);
    expect(status(name)?.state?.terminated).toMatchObject({
      exitCode: code,
      reason: code === 0 ? 'Completed' : 'Error',
    });
    expect(status(name)?.ready).toBe(false);
    const ready = pods.get(name)?.status?.conditions?.find((x) => x.type === 'Ready');
    expect(ready?.status).toBe('False');
  });

  it('restarts a failing container in place under OnFailure: Running, restartCount grows, lastState holds the exit', () => {
    expect(pods.get('false-onfailure')?.status?.phase).toBe('Running');
    expect(status('false-onfailure')?.lastState?.terminated?.exitCode).toBe(1);
    expect(status('false-onfailure')?.state?.waiting?.reason).toBe('CrashLoopBackOff');
  });

  it.each(['sleep', 'exit-always', 'other-image'])('leaves %s Running and Ready', (name) => {
    expect(pods.get(name)?.status?.phase).toBe('Running');
    expect(status(name)?.state?.running).toBeDefined();
    expect(status(name)?.ready).toBe(true);
  });
});
