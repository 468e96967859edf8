// What the LeaderWorkerSet integration test (test/integration/leaderworkerset.test.ts) and the group-restart backoff
// bench (test/bench/leaderworkerset-restart-backoff.ts) share on a fleetq-mode sandbox cluster of their own:
//   - startLwsOnFleetq: fleetq's LWS webhooks as infra/k8s/components/leaderworkerset-admission ships them, served
//     by this process (test/helpers/sandbox/lws-admission.ts), and fleetq all-in-one owning StatefulSet, LeaderWorkerSet and
//     LeaderWorkerSetPod under its ServiceAccounts fleetq-forwarder and fleetq-handler;
//   - startCrashInjector: polls the pods of some LeaderWorkerSets of one group and, as soon as a worker of the
//     current incarnation runs, writes a container restart into its status (what a kubelet reports for a container
//     that crashed right after start), so every incarnation fails at once; it records the leader pod uids it saw
//     running (recreations = uids − 1).
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { startAllInOne, type AllInOne } from '../../functions/all-in-one.js';
import { ensureFleetqRbac } from '../../infra/sandbox/rbac.js';
import { optInKinds } from '../../shared/controllers/roles.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { ClusterRegistry, type ClusterConfig } from '../../shared/kube/registry.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { startLwsAdmission, type RunningLwsAdmission } from './sandbox/lws-admission.js';

export const LWS_OWNS: readonly Kind[] = ['StatefulSet', 'LeaderWorkerSet', 'LeaderWorkerSetPod'] as Kind[];
export const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
export const GROUP_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/group-index';
export const WORKER_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/worker-index';

export type LwsOnFleetq = {
  /** fleetq's LWS admission and its registered configurations: stop() deletes them, then closes the server. */
  readonly admission: RunningLwsAdmission;
  readonly fleetq: AllInOne;
};

/**
 * The shipped webhooks (test/helpers/sandbox/lws-admission.ts: in effect once a dry-run LWS in `probeNamespace`
 * is refused at size 0 and defaulted at size 2) and fleetq all-in-one, on the cluster `cluster` (kubeconfig `kc`)
 * whose sandbox root is `root`. On a failure part-way, what was started is stopped before the error goes on.
 */
export async function startLwsOnFleetq(opts: {
  kc: KubeConfig;
  root: string;
  cluster: string;
  probeNamespace: string;
}): Promise<LwsOnFleetq> {
  const { kc, root, cluster } = opts;
  const admission = await startLwsAdmission({ root, kc, probeNamespace: opts.probeNamespace });
  try {
    const optIn = optInKinds().filter((k) => (LWS_OWNS as readonly string[]).includes(k));
    if (optIn.length !== LWS_OWNS.length)
      throw new Error(`opt-in kinds ${optIn.join(', ')}: want ${LWS_OWNS.join(', ')}`);
    const credentials = await ensureFleetqRbac(kc, { dir: join(root, 'rbac'), optIn });
    const registry = (tokenFile: string): ClusterRegistry => {
      const entry: ClusterConfig = {
        name: cluster,
        owns: LWS_OWNS,
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
    const fleetq = await startAllInOne({
      config: loadConfig({}, { FLEETQ_DRIVER: 'memory', FLEETQ_CONCURRENCY: '4', LOG_LEVEL: 'error' }),
      registry: registry(credentials.tokenFiles.handler),
      forwarderRegistry: registry(credentials.tokenFiles.forwarder),
      dataDir: join(root, 'fleetq'),
      env: {},
    });
    return { admission, fleetq };
  } catch (err) {
    await admission.stop();
    throw err;
  }
}

export const isRunning = (p: V1Pod): boolean => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp == null;

export type CrashInjector = {
  /** The uids of the leader pods (worker index 0) of `set` seen running. */
  leaderUids(set: string): ReadonlySet<string>;
  /** The container restarts written into workers of `set`. */
  injected(set: string): number;
  /** Stops polling (after the round under way). */
  stop(): Promise<void>;
};

/**
 * Polls (every `intervalMs`) the pods of the LeaderWorkerSets `sets` (one group each) in `namespace`: records the
 * running leaders' uids, and gives the running worker 1 of the current incarnation (no restart yet) a restart.
 */
export function startCrashInjector(
  kc: KubeConfig,
  namespace: string,
  sets: readonly string[],
  opts: { intervalMs?: number; onError?: (set: string, err: unknown) => void } = {},
): CrashInjector {
  const core = kc.makeApiClient(CoreV1Api);
  const uids = new Map(sets.map((s) => [s, new Set<string>()]));
  const counts = new Map(sets.map((s) => [s, 0]));
  let stopped = false;
  const round = async (set: string): Promise<void> => {
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: `${NAME_LABEL}=${set}` })).items;
    for (const p of pods) {
      if (p.metadata?.labels?.[WORKER_INDEX_LABEL] === '0' && isRunning(p)) uids.get(set)!.add(p.metadata.uid!);
    }
    const worker = pods.find(
      (p) =>
        p.metadata?.labels?.[WORKER_INDEX_LABEL] === '1' &&
        isRunning(p) &&
        (p.status?.containerStatuses ?? []).length > 0 &&
        (p.status?.containerStatuses ?? []).every((c) => c.restartCount === 0),
    );
    if (worker === undefined) return;
    const status = {
      ...worker.status,
      containerStatuses: worker.status!.containerStatuses!.map((c) => ({ ...c, restartCount: 1 })),
    };
    await core.replaceNamespacedPodStatus({ name: worker.metadata!.name!, namespace, body: { ...worker, status } });
    counts.set(set, counts.get(set)! + 1);
  };
  const loop = (async () => {
    while (!stopped) {
      for (const set of sets) await round(set).catch((err: unknown) => opts.onError?.(set, err));
      if (!stopped) await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
    }
  })();
  return {
    leaderUids: (set) => uids.get(set)!,
    injected: (set) => counts.get(set)!,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
