// fleetq in-process for the conformance suites and benches: the all-in-one runtime (forwarder + worker loop)
// on the redis driver with a queue of its own, owning in one sandbox cluster the kinds the conformance plug-ins'
// scenarios need (conformance/plugins.ts).
// Two fleetq instances owning the same cluster would both act on every object, so a lock file makes the
// suites of one machine take turns (a stale lock of a dead process is taken over).
//
// fleetq authenticates as the ServiceAccounts of infra/k8s/ (test/helpers/sandbox/rbac.ts), the forwarder as
// fleetq-forwarder and the handlers as fleetq-handler, so the suite checks those roles are enough;
// CONFORMANCE_CREDENTIALS=admin runs it with the sandbox admin's kubeconfig instead (to tell an RBAC gap from a
// controller bug).
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitFor } from '../../../infra/sandbox/process.js';
import { CONTROLLERS } from '../../../shared/controllers/index.js';
import { isKind, type Kind } from '../../../shared/kube/kinds.js';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import { startAllInOne, type AllInOne } from '../../../functions/all-in-one.js';
import { loadConfig, readsMode } from '../../../shared/runtime/config.js';
import { ownedKinds, PLUGINS } from './plugins.js';
import { deleteQueueKeys } from '../queue/redis.js';
import { sandboxCluster } from '../sandbox/clusters.js';
import { sandboxRoot } from '../../../infra/sandbox/sandbox.js';
import { injectFinalizerGapFault, type FinalizerGapFault } from './faults.js';
import { authorizationDenials, serviceAccountRegistries, type ClusterEntry } from '../sandbox/rbac.js';

/**
 * What every conformance plug-in's scenarios need (conformance/plugins.ts). The kinds beyond the default owned ones
 * (DEFAULT_OWNED_KINDS, shared/kube/kinds.ts) are opt-in: owning them here also binds their role pairs
 * (infra/k8s/<kind>-rbac.yaml). fleetq-1's controller-manager runs none of the owned kinds' controllers.
 */
export const OWNED_KINDS: readonly Kind[] = ownedKinds().filter(isKind);

/** The kinds among `kinds` that fleetq has no registered controller for. */
export function missingControllers(kinds: readonly string[]): string[] {
  return kinds.filter((k) => !CONTROLLERS.has(k));
}

export type Credentials = 'serviceaccounts' | 'admin';

export type RunningFleetq = {
  readonly app: AllInOne;
  readonly queue: string;
  readonly credentials: Credentials;
  /** The handler fault a Job can ask for by annotation (conformance/faults.ts), and the runs it killed. */
  readonly faults: FinalizerGapFault;
  /**
   * Requests the cluster's RBAC refused (403) since fleetq started, counted by the apiserver; fleetq's error log
   * names each (forwarder: 'List failed' / 'Watch failed'; handler: 'Reconcile forbidden (403)').
   */
  denials(): Promise<number>;
  stop(): Promise<void>;
};

export function credentialsFrom(env: NodeJS.ProcessEnv = process.env): Credentials {
  const value = env.CONFORMANCE_CREDENTIALS ?? 'serviceaccounts';
  if (value !== 'serviceaccounts' && value !== 'admin')
    throw new Error(`CONFORMANCE_CREDENTIALS must be serviceaccounts or admin, got ${JSON.stringify(value)}`);
  return value;
}

function lockPath(cluster: string): string {
  return join(tmpdir(), `fleetq-conformance-${cluster}.lock`);
}

async function acquireLock(cluster: string, timeoutMs: number): Promise<() => void> {
  const path = lockPath(cluster);
  const tryTake = (): boolean => {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch {
      const holder = Number(readFileSync(path, 'utf8').trim() || '0');
      if (holder > 0 && !isAlive(holder)) rmSync(path, { force: true });
      return false;
    }
  };
  await waitFor(async () => tryTake(), timeoutMs, 500, `the fleetq lock of ${cluster} (${path})`);
  return () => rmSync(path, { force: true });
}

export async function startFleetq(
  cluster: string,
  o: { qps?: number; burst?: number; concurrency?: number; logLevel?: string } = {},
): Promise<RunningFleetq> {
  const release = await acquireLock(cluster, 30 * 60_000);
  const sides: Array<{ stop(): Promise<void> }> = [];
  const stopSides = () => Promise.all(sides.map((side) => side.stop().catch(() => undefined)));
  try {
    const { state, kc } = await sandboxCluster(cluster);
    // What the plug-ins' kinds need on fleetq's side besides fleetq (its admission webhooks, say).
    for (const plugin of PLUGINS) {
      if (plugin.fleetqSide !== undefined) sides.push(await plugin.fleetqSide({ kc, root: sandboxRoot() }));
    }
    const queue = `conformance-${randomUUID().slice(0, 8)}`;
    const config = loadConfig(process.env, {
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      FLEETQ_CONCURRENCY: String(o.concurrency ?? 8),
      // Reconcile retries are expected here (e.g. creates into namespaces the suite is deleting): errors only.
      LOG_LEVEL: o.logLevel ?? process.env.CONFORMANCE_LOG_LEVEL ?? 'error',
    });
    const entry: ClusterEntry = {
      name: cluster,
      owns: OWNED_KINDS,
      limits: { qps: o.qps ?? 50, burst: o.burst ?? 100 },
    };
    const credentials = credentialsFrom();
    const registries =
      credentials === 'admin'
        ? { handler: new ClusterRegistry([{ ...entry, connection: { type: 'kubeconfig', path: state.kubeconfig } }]) }
        : await serviceAccountRegistries(cluster, entry);
    const deniedBefore = await authorizationDenials(cluster);
    const dataDir = mkdtempSync(join(tmpdir(), 'fleetq-conformance-'));
    const app = await startAllInOne({
      config,
      registry: registries.handler,
      ...('forwarder' in registries && { forwarderRegistry: registries.forwarder }),
      dataDir,
    });
    const faults = injectFinalizerGapFault(app.deps.clients(cluster).rest);
    console.log(
      credentials === 'admin'
        ? `fleetq on ${cluster} as the sandbox admin (CONFORMANCE_CREDENTIALS=admin)`
        : `fleetq on ${cluster} as ServiceAccounts fleetq-system/fleetq-forwarder and fleetq-handler (infra/k8s/)`,
    );
    return {
      app,
      queue,
      credentials,
      faults,
      denials: async () => (await authorizationDenials(cluster)) - deniedBefore,
      stop: async () => {
        try {
          // Where the handlers' reads came from (FLEETQ_READS=cache: the cache, else live), as evidence.
          const reads = await app.deps.metrics.registry.getSingleMetric('fleetq_cache_reads_total')?.get();
          const bySource = new Map<string, number>();
          for (const v of reads?.values ?? []) {
            const source = `${v.labels.source}${v.labels.reason ? `:${v.labels.reason}` : ''}`;
            bySource.set(source, (bySource.get(source) ?? 0) + v.value);
          }
          console.log(`fleetq reads (${readsMode(config)}): ${JSON.stringify(Object.fromEntries(bySource))}`);
          if (faults.kills.size > 0)
            console.log(`handler runs killed by injected faults: ${JSON.stringify(Object.fromEntries(faults.kills))}`);
          await app.stop();
          await stopSides();
          await deleteQueueKeys(config.REDIS_URL, queue);
          rmSync(dataDir, { recursive: true, force: true });
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    await stopSides();
    release();
    throw err;
  }
}
