// One sandbox cluster: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, all on
// 127.0.0.1, each a detached process with its own log, the cluster's data under <root>/clusters/<name>. The
// registered kinds' CRDs are applied once the apiserver is ready, and on an upstream-mode cluster each add-on
// upstream controller (kind-options.ts) runs next to kube-controller-manager: the cluster is ready once each
// answers its readiness URL and the apiserver admits through its webhooks (configurations applied here).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { serverSideApply } from './apply.js';
import { auditFiles, auditFlags } from './audit.js';
import { installCrds } from './crds.js';
import { addOnsFor, type AddOnCommand, type SandboxKindOption } from './kind-options.js';
import { controllersFlag, type SandboxMode } from './modes.js';
import type { Pki } from './pki.js';
import { freePort, spawnDetached, startListening, stopProcess, waitFor } from './process.js';
import { httpsGet } from './probe.js';

export type ClusterState = {
  readonly name: string;
  readonly mode: SandboxMode;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly server: string;
  readonly nodes: number;
  readonly ports: { readonly etcd: number; readonly etcdPeer: number; readonly apiserver: number };
  readonly pids: Readonly<Record<Component, number>>;
  readonly startedAt: string;
  /** The apiserver's audit log (JSON lines), when the cluster was started with `audit` (audit.ts). */
  readonly auditLog?: string;
  /** Add-on upstream controllers running next to kube-controller-manager (upstream mode), pid by name. */
  readonly addOns?: Readonly<Record<string, number>>;
};

export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type Component = (typeof COMPONENTS)[number];

export type StartOptions = {
  readonly name: string;
  readonly mode: SandboxMode;
  readonly nodes: number;
  readonly root: string;
  readonly binDir: string;
  readonly stageFiles: readonly string[];
  readonly pki: Pki;
  readonly log: (msg: string) => void;
  /** Start kube-apiserver with an audit log of every request (audit.ts); default off. */
  readonly audit?: boolean;
  /** The registered kinds' sandbox options (kind-options.ts): CRDs to apply, add-on controllers to run. */
  readonly kinds?: readonly SandboxKindOption[];
  /** The add-on controllers' binaries by name (build-addons.sh); needed on an upstream cluster with add-ons. */
  readonly addOnBinaries?: Readonly<Record<string, string>>;
  /** Add-ons on request this cluster runs too (kind-options.ts ADD_ONS_ON_REQUEST; upstream mode only). */
  readonly addOns?: readonly string[];
};

/** Label, annotation and taint every sandbox node carries; workloads target them with this toleration. */
export const KWOK_NODE = {
  label: { key: 'type', value: 'kwok' },
  annotation: { key: 'kwok.x-k8s.io/node', value: 'fake' },
  taint: { key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' },
} as const;

export function kubeconfigYaml(name: string, server: string, caFile: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${name}`,
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority: ${caFile}`,
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}-admin`,
    '',
  ].join('\n');
}

export async function startCluster(o: StartOptions): Promise<ClusterState> {
  const started = Date.now();
  const dir = join(o.root, 'clusters', o.name);
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const ports = { etcd: 0, etcdPeer: 0, apiserver: 0 };
  const bin = (c: string): string => join(o.binDir, c);
  const logOf = (c: Component): string => join(logs, `${c}.log`);
  const pids: Partial<Record<Component, number>> = {};
  const addOns: Record<string, number> = {};
  let server = '';
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  // The Go runtime of every component keeps its heap small; the sandbox runs several clusters on 2 cores.
  const env = { ...process.env, GOMAXPROCS: '2', GOGC: '50' };

  try {
    let etcdUrl = '';
    await startListening({
      what: `etcd of ${o.name}`,
      log: logOf('etcd'),
      timeoutMs: 30_000,
      pickPorts: async () => {
        ports.etcd = await freePort();
        ports.etcdPeer = await freePort();
        etcdUrl = `http://127.0.0.1:${ports.etcd}`;
        rmSync(join(dir, 'etcd'), { recursive: true, force: true }); // nothing of a try that could not listen
      },
      spawn: () => {
        const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
        pids.etcd = spawnDetached(
          bin('etcd'),
          [
            '--name=sandbox',
            `--data-dir=${join(dir, 'etcd')}`,
            `--listen-client-urls=${etcdUrl}`,
            `--advertise-client-urls=${etcdUrl}`,
            `--listen-peer-urls=${peerUrl}`,
            `--initial-advertise-peer-urls=${peerUrl}`,
            `--initial-cluster=sandbox=${peerUrl}`,
            '--unsafe-no-fsync=true',
            '--quota-backend-bytes=4294967296',
            '--log-level=warn',
          ],
          logOf('etcd'),
          env,
        );
        return pids.etcd;
      },
      ready: async () => (await fetch(`${etcdUrl}/health`)).ok,
    });

    await startListening({
      what: `kube-apiserver of ${o.name} to be ready`,
      log: logOf('kube-apiserver'),
      timeoutMs: 90_000,
      pickPorts: async () => {
        ports.apiserver = await freePort();
        server = `https://127.0.0.1:${ports.apiserver}`;
      },
      spawn: () => {
        pids['kube-apiserver'] = spawnDetached(
          bin('kube-apiserver'),
          [
            `--etcd-servers=${etcdUrl}`,
            `--etcd-prefix=/registry`,
            '--bind-address=127.0.0.1',
            '--advertise-address=127.0.0.1',
            `--secure-port=${ports.apiserver}`,
            `--cert-dir=${join(dir, 'apiserver-certs')}`,
            `--tls-cert-file=${o.pki.serverCert}`,
            `--tls-private-key-file=${o.pki.serverKey}`,
            `--client-ca-file=${o.pki.caCert}`,
            `--token-auth-file=${o.pki.tokenFile}`,
            '--authorization-mode=RBAC',
            '--service-account-issuer=https://kubernetes.default.svc',
            `--service-account-key-file=${o.pki.saPub}`,
            `--service-account-signing-key-file=${o.pki.saKey}`,
            '--service-cluster-ip-range=10.0.0.0/24',
            '--allow-privileged=true',
            '--enable-priority-and-fairness=false',
            '--max-requests-inflight=0',
            '--max-mutating-requests-inflight=0',
            '--endpoint-reconciler-type=none',
            '--profiling=false',
            '--v=0',
            ...(o.audit ? auditFlags(dir) : []),
          ],
          logOf('kube-apiserver'),
          env,
        );
        return pids['kube-apiserver'];
      },
      ready: async () => (await httpsGet(`${server}/readyz`, o.pki)).status === 200,
    });
    writeFileSync(kubeconfig, kubeconfigYaml(o.name, server, o.pki.caCert, o.pki.adminToken), { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    // Before any controller starts: a kind's API is there when its controller (either side's) first lists it.
    const crds = (o.kinds ?? []).flatMap((k) => k.crds);
    if (crds.length > 0) o.log(`${o.name}: CRDs ${(await installCrds(kc, crds)).join(', ')}`);

    pids['kube-controller-manager'] = spawnDetached(
      bin('kube-controller-manager'),
      [
        `--kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        `--controllers=${controllersFlag(o.mode)}`,
        `--service-account-private-key-file=${o.pki.saKey}`,
        `--root-ca-file=${o.pki.caCert}`,
        '--node-monitor-period=5s',
        '--node-monitor-grace-period=40s',
        '--v=1',
      ],
      logOf('kube-controller-manager'),
      env,
    );
    const addOnCommands: Array<{ name: string; cmd: AddOnCommand }> = [];
    for (const c of addOnsFor(o.kinds ?? [], o)) {
      const binary = o.addOnBinaries?.[c.name];
      if (binary === undefined) throw new Error(`no binary of the add-on ${c.name} (infra/sandbox/build-addons.sh)`);
      const cmd = await c.start({ cluster: o.name, kubeconfig, dir, binDir: o.binDir, binary, pki: o.pki, freePort });
      if (cmd.crds !== undefined && cmd.crds.length > 0)
        o.log(`${o.name}: CRDs of ${c.name} ${(await installCrds(kc, cmd.crds)).join(', ')}`);
      addOns[c.name] = spawnDetached(cmd.command, [...cmd.args], join(logs, `${c.name}.log`), env);
      addOnCommands.push({ name: c.name, cmd });
    }
    pids['kube-scheduler'] = spawnDetached(
      bin('kube-scheduler'),
      [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--bind-address=127.0.0.1', '--secure-port=0', '--v=1'],
      logOf('kube-scheduler'),
      env,
    );
    pids.kwok = spawnDetached(
      bin('kwok'),
      [
        `--kubeconfig=${kubeconfig}`,
        `--manage-nodes-with-annotation-selector=${KWOK_NODE.annotation.key}=${KWOK_NODE.annotation.value}`,
        '--node-lease-duration-seconds=40',
        '--server-address=',
        ...o.stageFiles.flatMap((f) => ['-c', f]),
      ],
      logOf('kwok'),
      env,
    );

    const core = kc.makeApiClient(CoreV1Api);
    for (let i = 0; i < o.nodes; i++) await core.createNode({ body: fakeNode(`kwok-node-${i}`) });
    await waitFor(
      async () => {
        const list = await core.listNode();
        return list.items.filter(isNodeReady).length === o.nodes;
      },
      60_000,
      250,
      `${o.nodes} kwok nodes of ${o.name} to be Ready (log ${logOf('kwok')})`,
    );
    // The service-account controller (kube-controller-manager) creates `default` in every namespace;
    // pods cannot be admitted before it exists.
    await waitFor(
      async () =>
        (await core.listNamespacedServiceAccount({ namespace: 'default' })).items.some(
          (s) => s.metadata?.name === 'default',
        ),
      60_000,
      250,
      `kube-controller-manager of ${o.name} to create the default service account (log ${logOf('kube-controller-manager')})`,
    );
    for (const { name, cmd } of addOnCommands) await addOnReady(kc, o.name, name, cmd, join(logs, `${name}.log`));
  } catch (err) {
    await Promise.all([...Object.values(addOns), ...Object.values(pids)].map((pid) => stopProcess(pid)));
    throw err;
  }
  o.log(`cluster ${o.name} (${o.mode}) ready in ${((Date.now() - started) / 1000).toFixed(1)}s at ${server}`);
  return {
    name: o.name,
    mode: o.mode,
    dir,
    kubeconfig,
    server,
    nodes: o.nodes,
    ports,
    pids: pids as Record<Component, number>,
    startedAt: new Date().toISOString(),
    ...(o.audit && { auditLog: auditFiles(dir).log }),
    ...(Object.keys(addOns).length > 0 && { addOns }),
  };
}

/** Waits for an add-on to be up, applies its webhook configurations, and waits until the apiserver admits by them. */
async function addOnReady(kc: KubeConfig, cluster: string, name: string, cmd: AddOnCommand, log: string) {
  const { readyUrl, webhooks = [], admits } = cmd;
  if (readyUrl !== undefined)
    await waitFor(
      async () => (await fetch(readyUrl)).ok,
      120_000,
      250,
      `${name} of ${cluster} to be ready (log ${log})`,
    );
  for (const w of webhooks) {
    const plural = `${(w.kind ?? '').toLowerCase()}s`; // mutating-, validatingwebhookconfigurations
    await serverSideApply(
      kc,
      `/apis/admissionregistration.k8s.io/v1/${plural}/${w.metadata?.name}`,
      w,
      'fleetq-sandbox',
    );
  }
  if (admits !== undefined)
    await waitFor(
      () => admits(kc),
      60_000,
      250,
      `the apiserver of ${cluster} to admit through ${name}'s webhooks (log ${log})`,
    );
}

export async function stopCluster(c: ClusterState): Promise<void> {
  // Stop the clients before the apiserver and the apiserver before etcd, so nothing logs a storm of errors.
  const order: Component[] = ['kwok', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'];
  for (const pid of Object.values(c.addOns ?? {})) await stopProcess(pid);
  for (const component of order) await stopProcess(c.pids[component]);
}

function isNodeReady(n: V1Node): boolean {
  return (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function fakeNode(name: string): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [KWOK_NODE.label.key]: KWOK_NODE.label.value,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node-role.kubernetes.io/agent': '',
      },
      annotations: { [KWOK_NODE.annotation.key]: KWOK_NODE.annotation.value, 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { taints: [{ ...KWOK_NODE.taint }] },
    status: {
      allocatable: { cpu: '64', memory: '512Gi', pods: '1000' },
      capacity: { cpu: '64', memory: '512Gi', pods: '1000' },
    },
  };
}

/** Stage files given to kwok: its stock ones from the build cache plus fleetq's own. */
export function stageFiles(binDir: string, ownStagesDir: string): string[] {
  const stock = join(binDir, '..', 'stages');
  const files = (d: string): string[] =>
    readdirSync(d)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(d, f));
  return [...files(stock), ...files(ownStagesDir)];
}
