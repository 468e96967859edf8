// The LeaderWorkerSet group-restart backoff bench: recreations per minute of a group whose worker keeps failing,
// without and with fleetq's opt-in backoff (fleetq.dev/group-restart-backoff), side by side on one fleetq-mode
// sandbox cluster of the bench's own (cluster lws-restart-bench under a temp root: the shared sandbox is never
// touched; the cluster is stopped at the end). The setup is the integration test's (test/integration/
// leaderworkerset.test.ts): the LWS CRD, fleetq's LWS webhooks served in this process, fleetq all-in-one owning
// StatefulSet, LeaderWorkerSet and LeaderWorkerSetPod under its own ServiceAccounts.
// Two LeaderWorkerSets of one group of --size (2) kwok pods, RecreateGroupOnPodRestart: `plain` (no annotation,
// upstream's behaviour) and `backoff` (the annotation, value --limit or "true"). A crash injector polls the pods
// and, as soon as a worker of the current incarnation runs, writes a container restart into its status (what a
// kubelet reports for a container that crashed right after start), so every incarnation fails at once. Counted
// for --minutes (2) from the first failure: recreations per set (distinct leader pod uids seen running, less one),
// the RecreateGroup and GroupRestartLimitReached events recorded; then the backoff set's GroupRestartLimitReached
// condition and its state annotation. Asserts nothing.
//   npx tsx test/bench/leaderworkerset-restart-backoff.ts [--minutes 2] [--size 2] [--limit true]
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubernetesObjectApi, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startAllInOne, type AllInOne } from '../../functions/all-in-one.js';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki, issueServingCert } from '../../infra/sandbox/pki.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { ensureFleetqRbac } from '../../infra/sandbox/rbac.js';
import { startAdmissionServer, type RunningAdmissionServer } from '../../shared/admission/server.js';
import { optInKinds } from '../../shared/controllers/roles.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { ClusterRegistry, type ClusterConfig } from '../../shared/kube/registry.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    size: { type: 'string', default: '2' },
    limit: { type: 'string', default: 'true' },
  },
  strict: true,
});
const MINUTES = Number(values.minutes);
const SIZE = Number(values.size);
if (!(MINUTES > 0) || !Number.isInteger(SIZE) || SIZE < 2) throw new Error('--minutes > 0, --size an integer ≥ 2');

const CLUSTER = 'lws-restart-bench';
const NAMESPACE = 'lws-restart-bench';
const OWNS: readonly Kind[] = ['StatefulSet', 'LeaderWorkerSet', 'LeaderWorkerSetPod'] as Kind[];
const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
const WORKER_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/worker-index';
const SETS = ['plain', 'backoff'] as const;
type SetName = (typeof SETS)[number];

type Webhook = { name: string; clientConfig: { url?: string; caBundle?: string; service?: { path: string } } };
type WebhookConfiguration = KubernetesObject & { webhooks: Webhook[] };

function shippedWebhooks(port: number, caBundle: string): WebhookConfiguration[] {
  const file = new URL('../../infra/k8s/components/leaderworkerset-admission/webhooks.yaml', import.meta.url);
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    const c = d.toJS() as WebhookConfiguration;
    return {
      ...c,
      metadata: { ...c.metadata, name: `${c.metadata?.name}-bench` },
      webhooks: c.webhooks.map((w) => ({
        ...w,
        clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service?.path}`, caBundle },
      })),
    };
  });
}

function leaderWorkerSet(name: string, annotations?: Record<string, string>): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name, namespace: NAMESPACE, ...(annotations !== undefined && { annotations }) },
    spec: {
      replicas: 1,
      leaderWorkerTemplate: {
        size: SIZE,
        restartPolicy: 'RecreateGroupOnPodRestart',
        workerTemplate: kwokPodTemplate({ app: name }),
      },
    },
  };
}

const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-lws-restart-bench-'));
  let admission: RunningAdmissionServer | undefined;
  let fleetq: AllInOne | undefined;
  try {
    const { kc } = await upOneCluster({
      spec: { name: CLUSTER, mode: SandboxMode.Fleetq },
      root,
      kinds: sandboxKindOptions(),
      namespace: NAMESPACE,
    });
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const core = kc.makeApiClient(CoreV1Api);
    const pki = ensurePki(root);
    const tls = issueServingCert(pki, join(root, 'fleetq-admission-tls'), 'fleetq-admission');
    admission = await startAdmissionServer({
      port: 0,
      host: '127.0.0.1',
      cert: readFileSync(join(tls, 'tls.crt')),
      key: readFileSync(join(tls, 'tls.key')),
      serveLeaderWorkerSet: true,
    });
    for (const c of shippedWebhooks(admission.port, readFileSync(pki.caCert).toString('base64'))) {
      await objects.create(c);
    }
    await waitFor(
      async () => {
        const probe = (await objects.create(leaderWorkerSet('probe'), undefined, 'All').catch(() => undefined)) as
          { spec?: { networkConfig?: { subdomainPolicy?: string } } } | undefined;
        return probe?.spec?.networkConfig?.subdomainPolicy === 'Shared';
      },
      30_000,
      200,
      "fleetq's LeaderWorkerSet webhooks to take effect",
    );
    const optIn = optInKinds().filter((k) => (OWNS as readonly string[]).includes(k));
    const credentials = await ensureFleetqRbac(kc, { dir: join(root, 'rbac'), optIn });
    const registry = (tokenFile: string): ClusterRegistry => {
      const entry: ClusterConfig = {
        name: CLUSTER,
        owns: OWNS,
        limits: { qps: 100, burst: 200 },
        connection: {
          type: 'token',
          server: credentials.server,
          tokenFile,
          caFile: credentials.caFile,
          insecureSkipTLSVerify: false,
        },
      };
      return new ClusterRegistry([entry]);
    };
    fleetq = await startAllInOne({
      config: loadConfig({}, { FLEETQ_DRIVER: 'memory', FLEETQ_CONCURRENCY: '4', LOG_LEVEL: 'error' }),
      registry: registry(credentials.tokenFiles.handler),
      forwarderRegistry: registry(credentials.tokenFiles.forwarder),
      dataDir: join(root, 'fleetq'),
      env: {},
    });

    await objects.create(leaderWorkerSet('plain'));
    await objects.create(leaderWorkerSet('backoff', { 'fleetq.dev/group-restart-backoff': values.limit }));
    const podsOf = async (set: SetName): Promise<V1Pod[]> =>
      (await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `${NAME_LABEL}=${set}` })).items;
    const running = (p: V1Pod) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp == null;
    await waitFor(
      async () => {
        for (const set of SETS) if ((await podsOf(set)).filter(running).length < SIZE) return false;
        return true;
      },
      120_000,
      250,
      'both sets to run all their pods',
    );
    log('both groups run; injecting crashes');

    const leaderUids = new Map<SetName, Set<string>>(SETS.map((s) => [s, new Set<string>()]));
    const injected = new Map<SetName, number>(SETS.map((s) => [s, 0]));
    const start = Date.now();
    const end = start + MINUTES * 60_000;
    const sinceIso = new Date(start - 1000).toISOString();
    while (Date.now() < end) {
      for (const set of SETS) {
        const pods = await podsOf(set);
        for (const p of pods) {
          if (p.metadata?.labels?.[WORKER_INDEX_LABEL] === '0' && running(p)) leaderUids.get(set)!.add(p.metadata.uid!);
        }
        // A worker of the current incarnation runs and has not failed yet: its container "restarts".
        const worker = pods.find(
          (p) =>
            p.metadata?.labels?.[WORKER_INDEX_LABEL] === '1' &&
            running(p) &&
            (p.status?.containerStatuses ?? []).every((c) => c.restartCount === 0) &&
            (p.status?.containerStatuses ?? []).length > 0,
        );
        if (worker !== undefined) {
          const status = {
            ...worker.status,
            containerStatuses: worker.status!.containerStatuses!.map((c) => ({ ...c, restartCount: 1 })),
          };
          await core
            .replaceNamespacedPodStatus({
              name: worker.metadata!.name!,
              namespace: NAMESPACE,
              body: { ...worker, status },
            })
            .then(() => injected.set(set, injected.get(set)! + 1))
            .catch((err: unknown) => log(`inject ${set}: ${String(err).slice(0, 120)}`));
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const elapsedMin = (Date.now() - start) / 60_000;

    const events = (await core.listNamespacedEvent({ namespace: NAMESPACE })).items.filter(
      (e) => (e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? new Date(0)) >= new Date(sinceIso),
    );
    const count = (set: SetName, reason: string) =>
      events
        .filter((e) => e.involvedObject.name === set && e.reason === reason)
        .reduce((n, e) => n + (e.count ?? 1), 0);
    const backoff = (await objects.read({
      apiVersion: 'leaderworkerset.x-k8s.io/v1',
      kind: 'LeaderWorkerSet',
      metadata: { name: 'backoff', namespace: NAMESPACE },
    })) as KubernetesObject & { status?: { conditions?: Array<{ type: string; status: string; message?: string }> } };
    const sts = await objects.read({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'backoff', namespace: NAMESPACE },
    });
    // Recreations: leader incarnations seen running, less the first. The RecreateGroup events undercount a fast loop
    // (an event recorder's spam filter lets a burst through, then few), so they are shown apart.
    const rows = SETS.map((set) => {
      const recreations = Math.max(0, leaderUids.get(set)!.size - 1);
      return {
        set,
        minutes: Number(elapsedMin.toFixed(2)),
        crashesInjected: injected.get(set),
        recreations,
        recreationsPerMinute: Number((recreations / elapsedMin).toFixed(1)),
        recreateGroupEventsRecorded: count(set, 'RecreateGroup'),
        limitReachedEvents: count(set, 'GroupRestartLimitReached'),
      };
    });
    console.log(JSON.stringify({ size: SIZE, limit: values.limit, rows }, null, 2));
    console.log(
      JSON.stringify(
        {
          backoffCondition: backoff.status?.conditions?.find((c) => c.type === 'GroupRestartLimitReached') ?? null,
          backoffState: sts.metadata?.annotations?.['fleetq.dev/group-restart-backoff-state'] ?? null,
        },
        null,
        2,
      ),
    );
  } finally {
    await fleetq?.stop();
    await admission?.close();
    await downAndRemove(root);
  }
}

await main();
