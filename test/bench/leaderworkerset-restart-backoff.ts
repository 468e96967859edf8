// The LeaderWorkerSet group-restart backoff bench: recreations per minute of a group whose worker keeps failing,
// without and with fleetq's opt-in backoff (fleetq.dev/group-restart-backoff), side by side on one fleetq-mode
// sandbox cluster of the bench's own (cluster lws-restart-bench under a temp root: the shared sandbox is never
// touched; the cluster is stopped at the end). The setup and the crash injector are the integration test's
// (test/integration/leaderworkerset.test.ts), in test/helpers/lws-crash-injector.ts: the LWS CRD, fleetq's LWS
// webhooks served in this process, fleetq all-in-one owning StatefulSet, LeaderWorkerSet and LeaderWorkerSetPod
// under its own ServiceAccounts.
// Two LeaderWorkerSets of one group of --size (2) kwok pods, RecreateGroupOnPodRestart: `plain` (no annotation,
// upstream's behaviour) and `backoff` (the annotation, value --limit or "true"). A crash injector polls the pods
// and, as soon as a worker of the current incarnation runs, writes a container restart into its status (what a
// kubelet reports for a container that crashed right after start), so every incarnation fails at once. Counted
// for --minutes (2) from the first failure: recreations per set (distinct leader pod uids seen running, less one),
// the RecreateGroup and GroupRestartLimitReached events recorded; then the backoff set's GroupRestartLimitReached
// condition and its state annotation. Asserts nothing.
//   npx tsx test/bench/leaderworkerset-restart-backoff.ts [--minutes 2] [--size 2] [--limit true]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubernetesObjectApi, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';
import {
  isRunning,
  NAME_LABEL,
  startCrashInjector,
  startLwsOnFleetq,
  type LwsOnFleetq,
} from '../helpers/lws-crash-injector.js';

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
const SETS = ['plain', 'backoff'] as const;
type SetName = (typeof SETS)[number];

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
  let lws: LwsOnFleetq | undefined;
  try {
    const { kc } = await upOneCluster({
      spec: { name: CLUSTER, mode: SandboxMode.Fleetq },
      root,
      kinds: sandboxKindOptions(),
      namespace: NAMESPACE,
    });
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const core = kc.makeApiClient(CoreV1Api);
    lws = await startLwsOnFleetq({ kc, root, cluster: CLUSTER, probeNamespace: NAMESPACE });

    await objects.create(leaderWorkerSet('plain'));
    await objects.create(leaderWorkerSet('backoff', { 'fleetq.dev/group-restart-backoff': values.limit }));
    const podsOf = async (set: SetName): Promise<V1Pod[]> =>
      (await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `${NAME_LABEL}=${set}` })).items;
    await waitFor(
      async () => {
        for (const set of SETS) if ((await podsOf(set)).filter(isRunning).length < SIZE) return false;
        return true;
      },
      120_000,
      250,
      'both sets to run all their pods',
    );
    log('both groups run; injecting crashes');

    const start = Date.now();
    const sinceIso = new Date(start - 1000).toISOString();
    const injector = startCrashInjector(kc, NAMESPACE, SETS, {
      onError: (set, err) => log(`inject ${set}: ${String(err).slice(0, 120)}`),
    });
    await new Promise((r) => setTimeout(r, MINUTES * 60_000));
    await injector.stop();
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
      const recreations = Math.max(0, injector.leaderUids(set).size - 1);
      return {
        set,
        minutes: Number(elapsedMin.toFixed(2)),
        crashesInjected: injector.injected(set),
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
    await lws?.fleetq.stop();
    await lws?.admission.stop();
    await downAndRemove(root);
  }
}

await main();
