// Tests get sandbox clusters through here: the standard set is started once per test run (or reused when
// already running) and stays up for the next run; `npm run sandbox:down` stops it.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig, type V1PodTemplateSpec, type V1Toleration } from '@kubernetes/client-node';
import { KWOK_NODE, type ClusterState } from '../../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { readState, up, type ClusterSpec } from '../../../infra/sandbox/sandbox.js';

export const STANDARD_CLUSTERS: readonly ClusterSpec[] = [
  { name: 'fleetq-1', mode: SandboxMode.Fleetq },
  { name: 'fleetq-2', mode: SandboxMode.Fleetq },
  { name: 'upstream-1', mode: SandboxMode.Upstream },
];
export const STANDARD_NODES = 2;

export async function ensureSandbox(): Promise<ClusterState[]> {
  return up({ clusters: STANDARD_CLUSTERS, nodes: STANDARD_NODES });
}

export type TestCluster = { readonly state: ClusterState; readonly kc: KubeConfig };

/** A running standard cluster (global setup started it). */
export async function sandboxCluster(name: string): Promise<TestCluster> {
  let state = readState().clusters.find((c) => c.name === name);
  if (!state) state = (await ensureSandbox()).find((c) => c.name === name);
  if (!state) throw new Error(`no sandbox cluster named ${name}`);
  const kc = new KubeConfig();
  kc.loadFromFile(state.kubeconfig);
  return { state, kc };
}

/** Creates `test-<uuid>` in the cluster; call the returned function in afterEach/afterAll to remove it. */
export async function testNamespace(kc: KubeConfig): Promise<{ name: string; remove: () => Promise<void> }> {
  const core = kc.makeApiClient(CoreV1Api);
  const name = `test-${randomUUID()}`;
  await core.createNamespace({ body: { metadata: { name } } });
  return {
    name,
    remove: async () => {
      await core.deleteNamespace({ name }).catch(() => undefined);
    },
  };
}

export const KWOK_TOLERATION: V1Toleration = {
  key: KWOK_NODE.taint.key,
  operator: 'Equal',
  value: KWOK_NODE.taint.value,
  effect: KWOK_NODE.taint.effect,
};

/** A pod template that kube-scheduler places on a kwok node, where kwok makes it Running and Ready. */
export function kwokPodTemplate(labels: Record<string, string>): V1PodTemplateSpec {
  return {
    metadata: { labels },
    spec: {
      containers: [{ name: 'app', image: 'registry.example/app:1' }],
      nodeSelector: { [KWOK_NODE.label.key]: KWOK_NODE.label.value },
      tolerations: [KWOK_TOLERATION],
    },
  };
}

const execFileP = promisify(execFile);

/** Runs the kubectl the sandbox built against a cluster. */
export async function kubectl(c: ClusterState, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileP(kubectlPath(), ['--kubeconfig', c.kubeconfig, ...args], { timeout: 60_000 });
  return stdout;
}

export function kubectlPath(): string {
  const bin = readState().binDir;
  if (!bin) throw new Error('the sandbox state names no binary folder; run npm run sandbox:up');
  return join(bin, 'kubectl');
}
