// Records the event logs in events/logs/ from sandbox runs under the upstream controllers, so that they can be
// recorded again (a new Kubernetes version, a new field). A real forwarder (shared/forwarder/forwarder.ts),
// watching every workload kind, writes JSON-lines segments into a temporary directory while a scenario runs in a
// namespace of its own; the scenario's records (its namespace, and the nodes where the scenario is about them)
// are then written to events/logs/<scenario>.jsonl. Each scenario waits for conditions with deadlines.
//
//   npx tsx test/helpers/pipeline/record-log.ts job-storm|daemonset-node-notready|relist-410 [--cluster rp-a] [--keep]
//
// The cluster (default rp-a, upstream mode, 2 nodes) is started when not running; --keep leaves it up.
//   job-storm               40 Jobs whose pods end by command (infra/sandbox/stages/pod-exit-by-command.yaml):
//                           24 succeed, 8 fail past backoffLimit 1, 8 fail at once by a podFailurePolicy FailJob
//                           rule (exit code 42).
//   daemonset-node-notready a DaemonSet on both nodes; one node loses kwok (its annotation removed) and reports
//                           Ready False (a status patch, as its kubelet would), the lifecycle controller taints
//                           it not-ready; the DaemonSet's template changes meanwhile; the annotation comes back,
//                           kwok sets the node Ready again, and the rollout ends.
//   relist-410              a Deployment rolled and scaled while the forwarder is stopped, then more pod changes
//                           than the apiserver's watch cache holds, after its 75 s fresh window; the restarted
//                           forwarder's pod watch (from its checkpoint) gets 410 Gone and it relists: LISTED
//                           records; then a scale to 2 is seen live. (Compacting etcd does not do it: the watch
//                           cache serves a window of its own.) Best on a fresh cluster (--cluster rp-b): a busy
//                           one's watch cache may have grown past the changes made.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  type V1DaemonSet,
  type V1Deployment,
  type V1Job,
} from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { KWOK_NODE, type ClusterState } from '../../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { waitFor } from '../../../infra/sandbox/process.js';
import { down, readState, up } from '../../../infra/sandbox/sandbox.js';
import { Forwarder } from '../../../shared/forwarder/forwarder.js';
import { WORKLOAD_KINDS } from '../../../shared/kube/kinds.js';
import { MemoryCheckpointStore } from '../../../shared/queue/history/checkpoint-store.js';
import { JsonlEventLog } from '../../../shared/queue/history/jsonl-event-log.js';
import type { LogRecord } from '../../../shared/queue/history/log-record.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { writeLogFile } from '../../../shared/replay/log-file.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { kubectl, kwokPodTemplate } from '../sandbox/clusters.js';

type Ctx = {
  readonly c: ClusterState;
  readonly kc: KubeConfig;
  readonly ns: string;
  readonly log: JsonlEventLog;
  /** A forwarder writing to `log`; the same checkpoints each time, so a second one resumes where the first stopped. */
  readonly forwarder: () => Forwarder;
};

const say = (m: string): void => console.error(`record-log: ${m}`);

function makeForwarder(c: ClusterState, kc: KubeConfig, log: JsonlEventLog, checkpoints: MemoryCheckpointStore) {
  return (): Forwarder =>
    new Forwarder({
      cluster: c.name,
      kubeConfig: kc,
      owns: WORKLOAD_KINDS,
      queue: new MemoryQueue(),
      checkpoints,
      eventLog: log,
      logger: new Logger('record-log', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
}

async function jobStorm(x: Ctx): Promise<void> {
  const batch = x.kc.makeApiClient(BatchV1Api);
  const f = x.forwarder();
  await f.start();
  await f.synced();
  const job = (i: number, exit: number, extra: Partial<NonNullable<V1Job['spec']>>): V1Job => {
    const template = kwokPodTemplate({ app: 'storm' });
    template.spec!.restartPolicy = 'Never';
    template.spec!.containers = [{ name: 'main', image: 'busybox', command: ['sh', '-c', `exit ${exit}`] }];
    return { metadata: { name: `job-${i}`, namespace: x.ns }, spec: { template, ...extra } };
  };
  const jobs: V1Job[] = [];
  for (let i = 0; i < 24; i++) jobs.push(job(i, 0, {}));
  for (let i = 24; i < 32; i++) jobs.push(job(i, 1, { backoffLimit: 1 }));
  for (let i = 32; i < 40; i++)
    jobs.push(
      job(i, 42, {
        backoffLimit: 6,
        podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
      }),
    );
  for (const body of jobs) await batch.createNamespacedJob({ namespace: x.ns, body });
  const finished = (j: V1Job): boolean =>
    (j.status?.conditions ?? []).some((c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True');
  let counts = '';
  await waitFor(
    async () => {
      const list = (await batch.listNamespacedJob({ namespace: x.ns })).items;
      const done = list.filter(finished);
      counts = `${done.length}/${list.length} finished`;
      return done.length === jobs.length;
    },
    300_000,
    1_000,
    `all ${jobs.length} Jobs Complete or Failed`,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)} (${counts})`);
  });
  say(`job-storm: ${counts}`);
  await f.stop();
}

async function daemonSetNodeNotReady(x: Ctx): Promise<void> {
  const apps = x.kc.makeApiClient(AppsV1Api);
  const core = x.kc.makeApiClient(CoreV1Api);
  const nodes = (await core.listNode({ labelSelector: `${KWOK_NODE.label.key}=${KWOK_NODE.label.value}` })).items;
  const bad = nodes.map((n) => n.metadata?.name ?? '').sort()[1];
  if (!bad) throw new Error('daemonset-node-notready needs two kwok nodes');
  const f = x.forwarder();
  await f.start();
  await f.synced();
  const template = kwokPodTemplate({ app: 'agent' });
  const body: V1DaemonSet = {
    metadata: { name: 'agent', namespace: x.ns },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    },
  };
  await apps.createNamespacedDaemonSet({ namespace: x.ns, body });
  const ds = async (): Promise<V1DaemonSet> => apps.readNamespacedDaemonSet({ name: 'agent', namespace: x.ns });
  await waitFor(async () => (await ds()).status?.numberReady === nodes.length, 120_000, 500, 'daemon pods Ready');
  const ready = async (): Promise<boolean> =>
    ((await core.readNode({ name: bad })).status?.conditions ?? []).some(
      (c) => c.type === 'Ready' && c.status === 'True',
    );
  const annotation = `${KWOK_NODE.annotation.key}=${KWOK_NODE.annotation.value}`;
  try {
    // kwok stops managing the node (no more heartbeats from it) and the node reports Ready False, as a kubelet
    // that lost its runtime does; the node lifecycle controller then taints it not-ready.
    await kubectl(x.c, ['annotate', 'node', bad, `${KWOK_NODE.annotation.key}-`]);
    const now = new Date().toISOString();
    const notReady = {
      type: 'Ready',
      status: 'False',
      reason: 'KubeletNotReady',
      message: 'container runtime is down',
    };
    const condition = { ...notReady, lastHeartbeatTime: now, lastTransitionTime: now };
    await kubectl(x.c, [
      'patch',
      'node',
      bad,
      '--subresource=status',
      '--type=strategic',
      '-p',
      JSON.stringify({ status: { conditions: [condition] } }),
    ]);
    say(`daemonset-node-notready: ${bad} reported NotReady; waiting for the lifecycle controller's taint`);
    await waitFor(
      async () =>
        ((await core.readNode({ name: bad })).spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready'),
      120_000,
      1_000,
      `node ${bad} tainted not-ready`,
    );
    await apps.patchNamespacedDaemonSet({
      name: 'agent',
      namespace: x.ns,
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'registry.example/app:2' }],
    });
    // The healthy node's pod is replaced; the bad node's old pod is deleted and stays Terminating (no kubelet).
    await waitFor(
      async () => ((await ds()).status?.updatedNumberScheduled ?? 0) >= 1,
      120_000,
      500,
      'the rollout to reach the healthy node',
    );
  } finally {
    await kubectl(x.c, ['annotate', '--overwrite', 'node', bad, annotation]);
  }
  await waitFor(ready, 180_000, 1_000, `node ${bad} Ready again`);
  await waitFor(
    async () => {
      const s = (await ds()).status;
      return s?.updatedNumberScheduled === nodes.length && s.numberReady === nodes.length;
    },
    180_000,
    1_000,
    'the rollout to finish on both nodes',
  );
  await f.stop();
}

async function relist410(x: Ctx): Promise<void> {
  const apps = x.kc.makeApiClient(AppsV1Api);
  const body: V1Deployment = {
    metadata: { name: 'web', namespace: x.ns },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: kwokPodTemplate({ app: 'web' }) },
  };
  const dep = async (): Promise<V1Deployment> => apps.readNamespacedDeployment({ name: 'web', namespace: x.ns });
  const settled = async (replicas: number): Promise<boolean> => {
    const d = await dep();
    const s = d.status;
    return (
      s?.observedGeneration === d.metadata?.generation &&
      s?.updatedReplicas === replicas &&
      s.availableReplicas === replicas &&
      s.replicas === replicas
    );
  };
  const first = x.forwarder();
  await first.start();
  await first.synced();
  await apps.createNamespacedDeployment({ namespace: x.ns, body });
  await waitFor(() => settled(3), 120_000, 500, 'web 3/3');
  await first.stop();
  say('relist-410: forwarder stopped; rolling and scaling web unseen');
  const patch = (ops: object[]) => apps.patchNamespacedDeployment({ name: 'web', namespace: x.ns, body: ops });
  await patch([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'registry.example/app:2' }]);
  await patch([{ op: 'replace', path: '/spec/replicas', value: 5 }]);
  await waitFor(() => settled(5), 180_000, 500, 'web rolled out at 5');
  // The apiserver serves a watch from its watch cache, a window of recent events per resource: an event older
  // than its fresh window (75 s) is dropped once the window is full. So: wait out the fresh window, then make more
  // pod events than the window holds (label changes on web's pods); the checkpoint's resourceVersion is then older
  // than anything the cache holds, and a watch from it gets 410 Gone ("too old resource version").
  const core = x.kc.makeApiClient(CoreV1Api);
  const stoppedAt = Date.now();
  await waitFor(async () => Date.now() - stoppedAt > 80_000, 90_000, 1_000, 'the watch cache fresh window to pass');
  const pods = (await core.listNamespacedPod({ namespace: x.ns })).items.map((p) => p.metadata?.name ?? '');
  for (let i = 0; i < 100; i++) {
    for (const name of pods) {
      const body = [{ op: 'add', path: '/metadata/labels/churn', value: String(i) }];
      await core.patchNamespacedPod({ name, namespace: x.ns, body });
    }
  }
  say(`relist-410: ${100 * pods.length} pod changes made while the forwarder was stopped`);
  // And etcd compacted at its current revision, as the apiserver's compactor does (compact.go: the revision under
  // compact_rev_key, which every apiserver watches, then the compaction), so no fallback can serve the old one.
  const etcd = `http://127.0.0.1:${x.c.ports.etcd}`;
  const b64 = (t: string): string => Buffer.from(t).toString('base64');
  const post = async (path: string, payload: object): Promise<{ header?: { revision?: string } }> => {
    const res = await fetch(`${etcd}${path}`, { method: 'POST', body: JSON.stringify(payload) });
    if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { header?: { revision?: string } };
  };
  const revision = Number((await post('/v3/kv/range', { key: b64('compact_rev_key') })).header?.revision);
  await post('/v3/kv/put', { key: b64('compact_rev_key'), value: b64(String(revision)) });
  await post('/v3/kv/compaction', { revision, physical: true });
  const second = x.forwarder();
  await second.start();
  await waitFor(
    async () => second.stats.relists.expired > 0,
    90_000,
    500,
    'a watch to expire (410 Gone) and the forwarder to relist',
  );
  say(`relist-410: ${second.stats.relists.expired} resource(s) relisted after 410`);
  await patch([{ op: 'replace', path: '/spec/replicas', value: 2 }]);
  await waitFor(() => settled(2), 120_000, 500, 'web scaled to 2');
  await second.stop();
}

const SCENARIOS: Record<string, (x: Ctx) => Promise<void>> = {
  'job-storm': jobStorm,
  'daemonset-node-notready': daemonSetNodeNotReady,
  'relist-410': relist410,
};

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { cluster: { type: 'string', default: 'rp-a' }, keep: { type: 'boolean', default: false } },
  });
  const scenario = positionals[0] ?? '';
  const run = SCENARIOS[scenario];
  if (!run) throw new Error(`usage: record-log.ts ${Object.keys(SCENARIOS).join('|')} [--cluster rp-a] [--keep]`);
  const wasUp = readState().clusters.some((c) => c.name === values.cluster);
  const [c] = await up({ clusters: [{ name: values.cluster, mode: SandboxMode.Upstream }], nodes: 2 });
  if (!c) throw new Error(`cluster ${values.cluster} did not start`);
  const kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const ns = `${scenario}-${randomUUID().slice(0, 8)}`;
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-record-'));
  const log = new JsonlEventLog({ dir, maxEntryBytes: 0 });
  const started = Date.now();
  try {
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await run({ c, kc, ns, log, forwarder: makeForwarder(c, kc, log, new MemoryCheckpointStore()) });
    const keep = (r: LogRecord): boolean => {
      const m = (r.object as { metadata?: { namespace?: string } } | null)?.metadata;
      return m?.namespace === ns || (scenario === 'daemonset-node-notready' && r.resource === 'nodes');
    };
    async function* ours(): AsyncIterable<LogRecord> {
      for await (const r of log.read(c!.name, started, Date.now())) if (keep(r)) yield r;
    }
    const out = join('events', 'logs', `${scenario}.jsonl`);
    say(`${scenario}: wrote ${await writeLogFile(out, ours())} records to ${out}`);
  } finally {
    await core.deleteNamespace({ name: ns }).catch(() => undefined);
    await log.close();
    await rm(dir, { recursive: true, force: true });
    if (!wasUp && !values.keep) await down([c.name]);
  }
}

await main();
