// fleetq on simulated clusters (test/cluster-sim): the simulator runs in this process, fleetq's forwarder pool
// members and workers run as processes of their own on the Redis driver (their own queue name and key prefix),
// each serving /metrics on a port of its own. The driver side (create a Deployment, roll it, wait for it) calls
// the simulated clusters directly, not over HTTP, so the process under test pays for fleetq's requests only.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServing, type Proc } from '../processes.js';
import { SimServer, type SimServerOptions } from '../../cluster-sim/sim-server.js';
import type { Obj, SimCluster } from '../../cluster-sim/sim-cluster.js';

export type SimFleetOptions = {
  readonly clusters: number;
  /** Cluster names are `<prefix>-1..n`. */
  readonly prefix?: string;
  readonly forwarders: number;
  readonly workers: number;
  readonly redisUrl: string;
  /** Reconciles in flight per worker process (FLEETQ_CONCURRENCY); default 16. */
  readonly concurrency?: number;
  /** API budget per cluster (registry limits); default 100/200. */
  readonly qps?: number;
  readonly burst?: number;
  readonly leaseMs?: number;
  readonly logLevel?: string;
  /** The forwarder's event log: 'none' (default) or 'redis'. */
  readonly eventLog?: 'none' | 'redis';
  readonly sim?: SimServerOptions;
  /** Extra environment for every fleetq process. */
  readonly env?: NodeJS.ProcessEnv;
};

export type FleetProc = { readonly name: string; readonly proc: Proc; readonly metricsPort: number };

export class SimFleet {
  readonly queue = `sim-${randomUUID().slice(0, 8)}`;
  readonly prefix = this.queue;
  readonly procs = new Map<string, FleetProc>();
  private constructor(
    readonly o: SimFleetOptions,
    readonly server: SimServer,
    readonly registry: string,
    private readonly dir: string,
  ) {}

  static async start(o: SimFleetOptions): Promise<SimFleet> {
    const names = Array.from({ length: o.clusters }, (_, i) => `${o.prefix ?? 'sim'}-${i + 1}`);
    const server = await SimServer.start(names, o.sim ?? {});
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-sim-fleet-'));
    const registry = server.writeRegistry(dir, () => ({
      owns: ['Deployment', 'ReplicaSet'],
      limits: { qps: o.qps ?? 100, burst: o.burst ?? 200 },
    }));
    const fleet = new SimFleet(o, server, registry, dir);
    try {
      await Promise.all([
        ...Array.from({ length: o.forwarders }, (_, i) => fleet.startForwarder(`forwarder-${i + 1}`)),
        ...Array.from({ length: o.workers }, (_, i) => fleet.startProcess(`worker-${i + 1}`, 'functions/worker.ts')),
      ]);
    } catch (err) {
      await fleet.stop();
      throw err;
    }
    return fleet;
  }

  get clusters(): SimCluster[] {
    return [...this.server.clusters.values()];
  }

  private env(metricsPort: number): NodeJS.ProcessEnv {
    return {
      FLEETQ_REGISTRY: this.registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: this.queue,
      FLEETQ_REDIS_PREFIX: this.prefix,
      REDIS_URL: this.o.redisUrl,
      FLEETQ_CONCURRENCY: String(this.o.concurrency ?? 16),
      FLEETQ_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: this.o.logLevel ?? 'warn',
      ...this.o.env,
    };
  }

  startForwarder(name: string): Promise<FleetProc> {
    return this.startProcess(name, 'functions/forwarder.ts', {
      FLEETQ_FORWARDER_POOL: 'true',
      FLEETQ_CHECKPOINTS: 'redis',
      FLEETQ_EVENT_LOG: this.o.eventLog ?? 'none',
      ...(this.o.leaseMs !== undefined && { FLEETQ_FORWARDER_LEASE_MS: String(this.o.leaseMs) }),
    });
  }

  async startProcess(name: string, script: string, extra: NodeJS.ProcessEnv = {}): Promise<FleetProc> {
    let p: FleetProc | undefined;
    await spawnServing(
      name,
      script,
      (port) => ({ ...this.env(port), ...extra }),
      (proc, metricsPort) => this.procs.set(name, (p = { name, proc, metricsPort })),
    );
    return p as FleetProc;
  }

  async scrape(name: string): Promise<string> {
    const p = this.procs.get(name);
    if (!p) throw new Error(`no process ${name}`);
    return (await fetch(`http://127.0.0.1:${p.metricsPort}/metrics`)).text();
  }

  pids(): Map<string, number | undefined> {
    return new Map([...this.procs].map(([n, p]) => [n, p.proc.child.pid]));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.proc.stop('SIGTERM')));
    await this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function kwokDeployment(name: string, replicas: number, image: string): Record<string, unknown> {
  const labels = { app: name };
  return {
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'app', image }],
          tolerations: [{ key: 'kwok.x-k8s.io/node', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    },
  };
}

/** The Deployment has rolled out its current template completely (observed, updated, available, no surplus). */
export function isRolledOut(d: Obj | undefined): boolean {
  if (!d) return false;
  const want = (d.spec as { replicas?: number }).replicas ?? 1;
  const s = (d.status ?? {}) as {
    observedGeneration?: number;
    updatedReplicas?: number;
    replicas?: number;
    availableReplicas?: number;
  };
  return (
    (s.observedGeneration ?? 0) >= Number(d.metadata.generation ?? 1) &&
    s.updatedReplicas === want &&
    s.replicas === want &&
    s.availableReplicas === want
  );
}

export function ensureNamespace(c: SimCluster, namespace: string): void {
  const ns = c.resource('', 'namespaces');
  try {
    c.get(ns, undefined, namespace);
  } catch {
    c.create(ns, undefined, { metadata: { name: namespace } });
  }
}

/** Sets the image of a Deployment's first container (read-modify-write; retried on a conflict). */
export function setImage(c: SimCluster, namespace: string, name: string, image: string): Obj {
  const res = c.resource('apps', 'deployments');
  for (let i = 0; ; i++) {
    const d = structuredClone(c.get(res, namespace, name));
    const containers = (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
      .containers;
    (containers[0] as { image: string }).image = image;
    try {
      return c.update(res, namespace, name, d);
    } catch (err) {
      if (i >= 10 || (err as { code?: number }).code !== 409) throw err;
    }
  }
}
