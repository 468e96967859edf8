// A fleet on sandbox clusters for the fleet bench and its CI share: N fleetq-mode clusters, one forwarder
// process and W worker processes on the Redis driver, each process serving /metrics on a port of its own.
// Measures the fleet bench's figures (docs/benchmarks.md): time to converge a Deployment rollout per cluster, the processes' RSS
// (sampled from /proc), the Redis memory under the run's own key prefix, and the API requests per cluster
// (fleetq_kube_requests_total summed over the workers).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import type { Redis } from 'ioredis';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { waitFor } from '../../../infra/sandbox/process.js';
import { down, up } from '../../../infra/sandbox/sandbox.js';
import { writeRegistry } from './fleet.js';
import { spawnServing, type Proc } from '../processes.js';
import { kwokPodTemplate } from '../sandbox/clusters.js';

export const FLEET_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Starts (or reuses) fleetq-mode clusters `${prefix}-1..n` with `nodes` kwok nodes each. */
/**
 * Starts `<prefix>-1..n`, `batch` at a time: apiservers started all at once on 2 cores can miss their 90 s
 * readiness deadline. If a batch fails, every cluster of the prefix is stopped
 * (up() records none of a failed batch) and the error is thrown.
 */
export async function startFleetClusters(prefix: string, n: number, nodes: number, batch = 2): Promise<ClusterState[]> {
  const clusters = Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i + 1}`, mode: SandboxMode.Fleetq }));
  const started: ClusterState[] = [];
  try {
    for (let i = 0; i < clusters.length; i += batch) {
      started.push(...(await up({ clusters: clusters.slice(i, i + batch), nodes })));
    }
    return started;
  } catch (err) {
    await down(clusters.map((c) => c.name)).catch(() => undefined);
    throw err;
  }
}

export async function stopFleetClusters(clusters: readonly ClusterState[]): Promise<void> {
  await down(clusters.map((c) => c.name));
}

export function kubeConfigOf(c: ClusterState): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  return kc;
}

/** VmRSS of a process in bytes (0 once it is gone). */
export function rssOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the RSS of some processes every intervalMs; peak and last per name. */
export class RssSampler {
  readonly peak = new Map<string, number>();
  readonly last = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  constructor(
    private readonly pids: () => ReadonlyMap<string, number | undefined>,
    intervalMs = 500,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }
  sample(): void {
    for (const [name, pid] of this.pids()) {
      const rss = rssOf(pid);
      if (rss === 0) continue;
      this.last.set(name, rss);
      this.peak.set(name, Math.max(rss, this.peak.get(name) ?? 0));
    }
  }
  reset(): void {
    this.peak.clear();
    this.sample();
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** Prometheus text → samples of one metric: labels and value. */
export function parseMetric(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = l[2] as string;
    out.push({ labels, value: Number(m[4]) });
  }
  return out;
}

export type FleetPipelineOptions = {
  readonly clusters: readonly ClusterState[];
  /** Default FLEET_REDIS_URL (the shared one; the run's keys are under its own prefix). */
  readonly redisUrl?: string;
  readonly workers: number;
  /** Reconciles in flight per worker process (FLEETQ_CONCURRENCY). */
  readonly concurrency?: number;
  /** API budget per cluster, all workers together. */
  readonly qps?: number;
  readonly burst?: number;
  /** Per-cluster cap on reconciles at once (registry limits.concurrency), for some clusters. */
  readonly clusterConcurrency?: Readonly<Record<string, number>>;
  readonly logLevel?: string;
};

export class FleetPipeline {
  /** Queue name and Redis key prefix of this run: every key it writes starts with `${prefix}:`. */
  readonly queue = `fl-${randomUUID().slice(0, 8)}`;
  readonly prefix = this.queue;
  readonly registry: string;
  readonly procs = new Map<string, Proc>();
  readonly metricsPorts = new Map<string, number>();

  constructor(readonly o: FleetPipelineOptions) {
    this.registry = writeRegistry(
      o.clusters.map((c) => ({
        name: c.name,
        kubeconfig: c.kubeconfig,
        owns: ['Deployment', 'ReplicaSet'],
        limits: {
          qps: o.qps ?? 100,
          burst: o.burst ?? 200,
          ...(o.clusterConcurrency?.[c.name] !== undefined && { concurrency: o.clusterConcurrency[c.name] }),
        },
      })),
    );
  }

  private env(metricsPort: number): NodeJS.ProcessEnv {
    return {
      FLEETQ_REGISTRY: this.registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: this.queue,
      FLEETQ_REDIS_PREFIX: this.prefix,
      REDIS_URL: this.o.redisUrl ?? FLEET_REDIS_URL,
      FLEETQ_CONCURRENCY: String(this.o.concurrency ?? 8),
      FLEETQ_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: this.o.logLevel ?? 'warn',
    };
  }

  async start(): Promise<void> {
    const start = async (name: string, script: string, extra: NodeJS.ProcessEnv = {}) => {
      // Registered as soon as spawned, so that stop() ends it even when it never serves.
      await spawnServing(
        name,
        script,
        (port) => ({ ...this.env(port), ...extra }),
        (p, port) => {
          this.procs.set(name, p);
          this.metricsPorts.set(name, port);
        },
      );
    };
    await Promise.all([
      start('forwarder', 'functions/forwarder.ts', { FLEETQ_CHECKPOINTS: 'redis' }),
      ...Array.from({ length: this.o.workers }, (_, i) => start(`worker-${i + 1}`, 'functions/worker.ts')),
    ]);
  }

  pids(): Map<string, number | undefined> {
    return new Map([...this.procs].map(([n, p]) => [n, p.child.pid]));
  }

  async scrape(name: string): Promise<string> {
    const port = this.metricsPorts.get(name);
    if (port === undefined) throw new Error(`no process ${name}`);
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  }

  /** A counter summed over the workers by one label (e.g. cluster). */
  async workerSum(metric: string, by: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const name of this.procs.keys()) {
      if (!name.startsWith('worker-')) continue;
      for (const s of parseMetric(await this.scrape(name), metric)) {
        const k = s.labels[by] ?? '';
        out.set(k, (out.get(k) ?? 0) + s.value);
      }
    }
    return out;
  }

  /** A metric summed over every label set, for one process. */
  async total(name: string, metric: string): Promise<number> {
    return parseMetric(await this.scrape(name), metric).reduce((a, s) => a + s.value, 0);
  }

  /**
   * workqueue_queue_duration_seconds over the workers: how many keys waited, and how many waited longer
   * than `boundS` (the histogram's buckets are decades, so boundS should be a power of ten).
   */
  async queueWaits(boundS: number): Promise<{ count: number; over: number; maxBucketS: number }> {
    let count = 0;
    let within = 0;
    const byLe = new Map<number, number>();
    for (const name of this.procs.keys()) {
      if (!name.startsWith('worker-')) continue;
      const text = await this.scrape(name);
      for (const s of parseMetric(text, 'workqueue_queue_duration_seconds_count')) count += s.value;
      for (const s of parseMetric(text, 'workqueue_queue_duration_seconds_bucket')) {
        const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
        byLe.set(le, (byLe.get(le) ?? 0) + s.value);
        if (Math.abs(le - boundS) / boundS < 1e-6) within += s.value;
      }
    }
    // The smallest bucket that holds every wait.
    const maxBucketS = [...byLe].filter(([, n]) => n >= count).reduce((m, [le]) => Math.min(m, le), Infinity);
    return { count, over: count - within, maxBucketS };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.stop('SIGTERM')));
  }
}

/** Bytes held by every Redis key under `${prefix}:` (MEMORY USAGE), and the key count, by key kind. */
export async function redisFootprint(
  redis: Redis,
  prefix: string,
): Promise<{ bytes: number; keys: number; byKind: Record<string, { bytes: number; keys: number; items: number }> }> {
  const byKind: Record<string, { bytes: number; keys: number; items: number }> = {};
  let bytes = 0;
  let keys = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const k of batch) {
      const [usage, type] = await Promise.all([redis.memory('USAGE', k, 'SAMPLES', '0'), redis.type(k)]);
      const items =
        type === 'hash'
          ? await redis.hlen(k)
          : type === 'set'
            ? await redis.scard(k)
            : type === 'zset'
              ? await redis.zcard(k)
              : type === 'list'
                ? await redis.llen(k)
                : type === 'stream'
                  ? await redis.xlen(k)
                  : 1;
      const kind = keyKind(k, prefix);
      const e = (byKind[kind] ??= { bytes: 0, keys: 0, items: 0 });
      e.bytes += Number(usage ?? 0);
      e.keys += 1;
      e.items += items;
      bytes += Number(usage ?? 0);
      keys += 1;
    }
  } while (cursor !== '0');
  return { bytes, keys, byKind };
}

/** A key's kind with the cluster name taken out: `{cache:fl-3}:e` → `cache:e`. */
function keyKind(key: string, prefix: string): string {
  const rest = key.slice(prefix.length + 1);
  return rest
    .replace(/^\{cache:[^}]*\}:/, 'cache:')
    .replace(/^\{[^}]*\}:/, 'queue:')
    .replace(/(apibucket|ready|i:[^:]+|w):.*$/, '$1')
    .replace(/:(fl|fc)[-\w]*$/, '');
}

/** INFO commandstats: calls per command (resettable with CONFIG RESETSTAT). */
export async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (batch.length > 0) deleted += await redis.del(...batch);
  } while (cursor !== '0');
  return deleted;
}

export function benchDeployment(name: string, replicas: number, image = 'registry.example/app:1'): V1Deployment {
  const labels = { app: name };
  const template = kwokPodTemplate(labels);
  const container = template.spec?.containers[0];
  if (container) container.image = image;
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    },
  };
}

export function isComplete(d: V1Deployment | undefined): boolean {
  const want = d?.spec?.replicas ?? 1;
  const s = d?.status;
  return (
    d !== undefined &&
    (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
    s?.updatedReplicas === want &&
    s?.replicas === want &&
    s?.availableReplicas === want
  );
}

export async function createNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name } } })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
}

export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name })
    .catch(() => undefined);
}

/** Polls until the Deployment is complete; the ms it took from `since`, or null at the deadline. */
export async function waitComplete(
  kc: KubeConfig,
  namespace: string,
  name: string,
  since: number,
  timeoutMs: number,
): Promise<number | null> {
  const apps = kc.makeApiClient(AppsV1Api);
  try {
    await waitFor(
      async () => isComplete(await apps.readNamespacedDeployment({ namespace, name })),
      timeoutMs,
      200,
      `${namespace}/${name} complete`,
    );
    return Date.now() - since;
  } catch {
    return null;
  }
}

/** Read-modify-write with the resourceVersion as precondition, again on a conflict. */
export async function updateDeployment(
  kc: KubeConfig,
  namespace: string,
  name: string,
  change: (d: V1Deployment) => void,
): Promise<V1Deployment> {
  const apps = kc.makeApiClient(AppsV1Api);
  for (let attempt = 0; ; attempt++) {
    const d = await apps.readNamespacedDeployment({ namespace, name });
    change(d);
    try {
      return await apps.replaceNamespacedDeployment({ namespace, name, body: d });
    } catch (err) {
      if ((err as { code?: number }).code !== 409 || attempt >= 10) throw err;
    }
  }
}

export type RolloutTimes = { cluster: string; createMs: number | null; updateMs: number | null };

/** Creates a Deployment and waits for it, then rolls it to a new image and waits again. */
export async function rollout(
  c: ClusterState,
  namespace: string,
  replicas: number,
  timeoutMs: number,
): Promise<RolloutTimes> {
  const kc = kubeConfigOf(c);
  await createNamespace(kc, namespace);
  const apps = kc.makeApiClient(AppsV1Api);
  const t0 = Date.now();
  await apps.createNamespacedDeployment({ namespace, body: benchDeployment('web', replicas) });
  const createMs = await waitComplete(kc, namespace, 'web', t0, timeoutMs);
  if (createMs === null) return { cluster: c.name, createMs, updateMs: null };
  const t1 = Date.now();
  await updateDeployment(kc, namespace, 'web', (d) => {
    const container = d.spec?.template.spec?.containers[0];
    if (container) container.image = 'registry.example/app:2';
  });
  const updateMs = await waitComplete(kc, namespace, 'web', t1, timeoutMs);
  return { cluster: c.name, createMs, updateMs };
}
