// The chaos suite's harness: the real pipeline as processes (forwarder + N workers, LOG_LEVEL=debug), a run
// log built from the workers' 'Reconcile started' / 'Reconcile finished' lines, an independent watcher of the
// test namespace, and the four assertions every chaos test makes:
//   (a) two runs of one key never overlap;
//   (b) every event is followed by a successful run of its keys that started after it, within a bound;
//   (c) workload invariants hold throughout (active pods of a Deployment ≤ replicas + maxSurge);
//   (d) no key is dead-lettered without having run.
// The harness uses only what the pipeline had at the contract commit (processes, logs, Redis keys), so the
// same tests run on the code before and after the fixes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { checkpointField, readAllCheckpoints } from '../../../shared/queue/history/checkpoint-store.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { freePort, waitFor } from '../../../infra/sandbox/process.js';
import { readState, up } from '../../../infra/sandbox/sandbox.js';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { fenceposts } from '../conformance/model.js';
import type { Deployment } from '../conformance/types.js';
import { eventStreamKey } from '../../../shared/queue/history/redis-stream-event-log.js';
import { writeRegistry } from '../pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../processes.js';
import { percentile as nearestRankPercentile } from '../stats.js';

/** Where Pipeline.stop() keeps the processes' logs of each run. */
export const CHAOS_LOG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'chaos', '.logs');

export const CHAOS_CLUSTERS = ['chaos-1', 'chaos-2', 'chaos-3'] as const;

/**
 * 'Reconcile finished' takes endedAt just before the run calls the queue (done, retry, dead letter), and
 * startedAt after get() returned, on one machine's clock: a run's end is before its release reaches the queue,
 * which is before the next holder's get() is answered. So no tolerance is needed: any overlap is a key held
 * twice. (endedAt once came after done() returned, and on a loaded machine the next holder started up to
 * 165 ms before it, a measured overlap that was not one.)
 */
export const RELEASE_SKEW_MS = 0;

/** Tolerance between the forwarder's and the test's watch seeing the same event (two watches of one apiserver). */
export const WATCH_SKEW_MS = 300;

export type ChaosCluster = { readonly state: ClusterState; readonly kc: KubeConfig };

/**
 * The sandbox cluster behind a chaos cluster's name: the name itself, or another that FLEETQ_CHAOS_CLUSTER_MAP gives
 * it (`chaos-1=chaos-4`, comma-separated). test/run-all.sh runs the tests that bring their own Redis beside the
 * others, with chaos-1 and chaos-2 served by chaos-4 and chaos-5: a pipeline reconciles every namespace of the
 * clusters it registers, so two tests at once must not share an apiserver. The tests keep the name (in their
 * registries and keys).
 */
export function chaosSandboxName(name: string, map = process.env.FLEETQ_CHAOS_CLUSTER_MAP ?? ''): string {
  for (const pair of map.split(',').filter((p) => p.trim() !== '')) {
    const [from, to] = pair.split('=').map((s) => s.trim());
    if (!from || !to || !/^chaos-[0-9]+$/.test(from) || !/^chaos-[0-9]+$/.test(to))
      throw new Error(`FLEETQ_CHAOS_CLUSTER_MAP: ${JSON.stringify(pair)} is not chaos-N=chaos-M`);
    if (from === name) return to;
  }
  return name;
}

/** The suite's own clusters (fleetq mode), started if they are not running; never the shared fleetq-1/2. */
export async function chaosCluster(name: (typeof CHAOS_CLUSTERS)[number]): Promise<ChaosCluster> {
  const sandboxName = chaosSandboxName(name);
  let state = readState().clusters.find((c) => c.name === sandboxName);
  if (!state) {
    [state] = await up({ clusters: [{ name: sandboxName, mode: SandboxMode.Fleetq }], nodes: 2 });
  }
  if (!state) throw new Error(`no chaos cluster ${sandboxName}`);
  const kc = new KubeConfig();
  kc.loadFromFile(state.kubeconfig);
  return { state, kc };
}

export async function chaosNamespace(kc: KubeConfig, name = `test-${randomUUID()}`): Promise<string> {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

export async function removeNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name })
    .catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------------------
// Redis of the test's own (faults that stop, flush or restart Redis never touch the shared one).

export type OwnRedis = {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL: nothing saved, like a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
};

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], {
      stdio: 'ignore',
    });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    // One connect: a first attempt made before the server listens is retried by ioredis itself (a second
    // connect() would only be refused as "already connecting", and the wait never saw PONG on a loaded machine).
    probe.connect().catch(() => undefined);
    await waitFor(
      async () => (await probe.ping().catch(() => '')) === 'PONG',
      10_000,
      50,
      `redis-server on ${port}`,
    ).finally(() => probe.disconnect());
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop: async () => {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The pipeline as processes.

export type PipelineOptions = {
  readonly clusters: ReadonlyArray<{ name: string; kubeconfig: string; qps?: number; burst?: number }>;
  readonly driver: 'redis' | 'sqs';
  readonly redisUrl: string;
  readonly workers: number;
  readonly leaseMs: number;
  readonly concurrency?: number;
  /** Extra environment for every process (e.g. SQS_ENDPOINT, checkpoints). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Extra environment for the forwarder. It runs without the periodic resync (FLEETQ_RESYNC_MS=0) unless this
   * says otherwise: a chaos test passes on recovery by detection, never by a resync that happened to come.
   */
  readonly forwarderEnv?: NodeJS.ProcessEnv;
  readonly queue?: string;
  /**
   * The forwarder keeps its event log in Redis (FLEETQ_EVENT_LOG=redis, under this pipeline's queue): the
   * follow check then also knows when the forwarder itself saw each event (forwarderSightings).
   */
  readonly eventLog?: boolean;
};

export type Run = {
  readonly proc: string;
  /** cluster/kind/namespace/name */
  readonly id: string;
  readonly token: string;
  readonly start: number;
  /** From 'Reconcile finished'; undefined when the process died (or is still running it). */
  readonly end?: number;
  readonly outcome?: string;
};

export class Pipeline {
  readonly queue: string;
  readonly registry: string;
  readonly procs = new Map<string, Proc>();
  /** Process name → time it was killed (SIGKILL). */
  readonly kills = new Map<string, number>();
  /** Process name → [SIGSTOP time, SIGCONT time]. */
  readonly stops = new Map<string, [number, number | undefined]>();
  private seq = 0;

  constructor(readonly o: PipelineOptions) {
    this.queue = o.queue ?? `chaos-${randomUUID().slice(0, 8)}`;
    this.registry = writeRegistry(
      o.clusters.map((c) => ({
        name: c.name,
        kubeconfig: c.kubeconfig,
        owns: ['Deployment', 'ReplicaSet', 'ConfigMap'],
        limits: { qps: c.qps ?? 100, burst: c.burst ?? 200 },
      })),
    );
  }

  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      FLEETQ_REGISTRY: this.registry,
      FLEETQ_DRIVER: this.o.driver,
      FLEETQ_QUEUE: this.queue,
      REDIS_URL: this.o.redisUrl,
      FLEETQ_LEASE_MS: String(this.o.leaseMs),
      FLEETQ_CONCURRENCY: String(this.o.concurrency ?? 4),
      LOG_LEVEL: 'debug',
      ...this.o.env,
      ...extra,
    };
  }

  async start(): Promise<void> {
    const ws = Array.from({ length: this.o.workers }, () => this.startWorker());
    await Promise.all([this.startForwarder(), ...ws]);
  }

  async startForwarder(extra: NodeJS.ProcessEnv = {}): Promise<Proc> {
    const name = `forwarder-${++this.seq}`;
    const p = spawnTsx(
      'functions/forwarder.ts',
      this.env({
        FLEETQ_CHECKPOINTS: 'memory',
        FLEETQ_EVENT_LOG: this.o.eventLog ? 'redis' : 'none',
        LOG_LEVEL: 'info',
        FLEETQ_RESYNC_MS: '0',
        ...this.o.forwarderEnv,
        ...extra,
      }),
      name,
    );
    this.procs.set(name, p);
    await p.waitForLine(/"Forwarder running"/, 120_000);
    return p;
  }

  async startWorker(extra: NodeJS.ProcessEnv = {}): Promise<Proc> {
    const name = `worker-${++this.seq}`;
    const p = spawnTsx('functions/worker.ts', this.env(extra), name);
    this.procs.set(name, p);
    await p.waitForLine(/"Worker started"/, 120_000);
    return p;
  }

  get workers(): Array<[string, Proc]> {
    return [...this.procs].filter(([n]) => n.startsWith('worker-'));
  }

  kill(name: string): Promise<number | null> {
    const p = this.procs.get(name);
    if (!p) throw new Error(`no process ${name}`);
    this.kills.set(name, Date.now());
    return p.stop('SIGKILL');
  }

  pause(name: string): void {
    this.procs.get(name)?.child.kill('SIGSTOP');
    this.stops.set(name, [Date.now(), undefined]);
  }

  resume(name: string): void {
    const s = this.stops.get(name);
    this.procs.get(name)?.child.kill('SIGCONT');
    if (s) s[1] = Date.now();
  }

  /** Whether the process can still log: not killed, not exited, not paused now. */
  logging(name: string): boolean {
    const c = this.procs.get(name)?.child;
    const stop = this.stops.get(name);
    return (
      !!c && c.exitCode === null && c.signalCode === null && !this.kills.has(name) && (!stop || stop[1] !== undefined)
    );
  }

  /**
   * Waits (up to timeoutMs) until every run that started before now on a process that can still log has its
   * 'Reconcile finished' line, and returns that moment's cut-off. A report taken while runs are in flight would
   * otherwise end those runs at "now": the finish line of a run released 100 ms ago may not have crossed the
   * pipe yet while the next holder's start line has, and the two read as an overlap that was not one (CI, stop
   * 20: two runs "no end", both ending at the report's instant). Runs still open after the wait keep "now" as
   * their end, so a run that really hangs while another holds its key is still reported.
   */
  async settleRuns(timeoutMs = 30_000): Promise<number> {
    const cutoff = Date.now();
    await waitFor(
      async () => !this.runs().some((r) => r.start < cutoff && r.end === undefined && this.logging(r.proc)),
      timeoutMs,
      100,
      'runs in flight to log their end',
    ).catch(() => undefined);
    return cutoff;
  }

  /** Every run of every worker so far, by fencing token. */
  runs(): Run[] {
    const out: Run[] = [];
    for (const [proc, p] of this.workers) {
      const started = new Map<string, { id: string; start: number }>();
      const finished = new Map<string, { start: number; end: number; outcome: string }>();
      for (const l of jsonLines(p)) {
        if (l.message === 'Reconcile started' && typeof l.token === 'string') {
          const id = [l.cluster, l.kind, l.namespace, l.name].join('/');
          started.set(l.token, { id, start: Date.parse(String(l.time)) });
        } else if (l.message === 'Reconcile finished' && typeof l.token === 'string') {
          finished.set(l.token, {
            start: Number(l.startedAt),
            end: Number(l.endedAt),
            outcome: String(l.outcome),
          });
        }
      }
      for (const [token, s] of started) {
        const f = finished.get(token);
        out.push({
          proc,
          id: s.id,
          token,
          start: f ? Math.min(f.start, s.start) : s.start,
          ...(f && { end: f.end, outcome: f.outcome }),
        });
      }
    }
    return out.sort((a, b) => a.start - b.start);
  }

  /** Log lines of all processes, for a failure message. */
  tail(n = 15): string {
    return [...this.procs].map(([name, p]) => `--- ${name} ---\n${p.lines.slice(-n).join('\n')}`).join('\n');
  }

  /**
   * When the forwarder saw each event of `namespace` on `cluster`, from its event log (eventLog pipelines only;
   * an empty map otherwise): `<resource>/<name>@<resourceVersion>` → observedAt (ms, this machine's clock, as the
   * workers' run times). The forwarder logs an event before it enqueues its keys, so a run that started after
   * that moment read the event or was marked to run again.
   */
  async forwarderSightings(cluster: string, namespace: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!this.o.eventLog) return out;
    const r = new Redis(this.o.redisUrl, { maxRetriesPerRequest: 3 });
    try {
      let from = '-';
      for (;;) {
        const batch = await r.xrange(eventStreamKey(`fleetq:${this.queue}`, cluster), from, '+', 'COUNT', 2000);
        for (const [, fields] of batch) {
          const rec = JSON.parse(fields[1] ?? '{}') as {
            resource?: string;
            observedAt?: number;
            object?: { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
          };
          const m = rec.object?.metadata;
          if (m?.namespace !== namespace || typeof rec.observedAt !== 'number') continue;
          const id = `${rec.resource}/${m.name}@${m.resourceVersion}`;
          out.set(id, Math.min(out.get(id) ?? Infinity, rec.observedAt));
        }
        if (batch.length < 2000) return out;
        from = `(${batch[batch.length - 1]?.[0]}`;
      }
    } finally {
      r.disconnect();
    }
  }

  async stop(): Promise<void> {
    for (const [name] of this.stops) this.procs.get(name)?.child.kill('SIGCONT');
    await Promise.all([...this.procs.values()].map((p) => p.stop('SIGKILL')));
    this.saveLogs();
    if (this.o.eventLog) {
      const r = new Redis(this.o.redisUrl, { maxRetriesPerRequest: 3 });
      await r
        .del(...this.o.clusters.map((c) => eventStreamKey(`fleetq:${this.queue}`, c.name)))
        .finally(() => r.disconnect());
    }
  }

  /** Every process's output, kept for a failed run: test/chaos/.logs/<queue>/<process>.log (gitignored). */
  saveLogs(dir = join(CHAOS_LOG_DIR, this.queue)): void {
    mkdirSync(dir, { recursive: true });
    for (const [name, p] of this.procs) writeFileSync(join(dir, `${name}.log`), `${p.lines.join('\n')}\n`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// (a) no overlap.

/**
 * The interval in which a run could write. A run with an end ends there; a run whose process was killed ends
 * when its lease could first expire (kill + leaseMs − renewal period: the worker renews every leaseMs/3); a
 * run of a process that was paused and made no write after resuming (checked separately) ends at the pause.
 */
export function runInterval(
  r: Run,
  p: Pipeline,
  o: { pausedRunsEndAtPause?: boolean; settledAt?: number } = {},
): [number, number] {
  const stop = p.stops.get(r.proc);
  if (o.pausedRunsEndAtPause && stop && r.start < stop[0] && (r.end === undefined || r.end > stop[0]))
    return [r.start, stop[0]];
  if (r.end !== undefined) return [r.start, r.end];
  const killed = p.kills.get(r.proc);
  if (killed !== undefined) return [r.start, Math.max(r.start, killed + Math.floor((p.o.leaseMs * 2) / 3))];
  // Started after the settle's cut-off and not finished yet: its end is unknown, not "now" (it can still be
  // the later run of an overlap, against an earlier run's known end).
  if (o.settledAt !== undefined && r.start >= o.settledAt && p.logging(r.proc)) return [r.start, r.start];
  return [r.start, Date.now()];
}

/**
 * (a) over the run log. A run that ended 'lease-lost' was fenced: it found its lease gone at a fence (before
 * a write) and stopped, so it wrote only while it held the lease; it is left out here. Where a test needs
 * more (a paused worker), it checks the writes themselves.
 */
export function overlaps(p: Pipeline, o: { pausedRunsEndAtPause?: boolean; settledAt?: number } = {}): string[] {
  const byKey = new Map<string, Run[]>();
  for (const r of p.runs()) if (r.outcome !== 'lease-lost') byKey.set(r.id, [...(byKey.get(r.id) ?? []), r]);
  const found: string[] = [];
  for (const [id, runs] of byKey) {
    const iv = runs.map((r) => ({ r, iv: runInterval(r, p, o) })).sort((a, b) => a.iv[0] - b.iv[0]);
    iv.forEach((later, i) => {
      for (const earlier of iv.slice(0, i)) {
        if (later.iv[0] >= earlier.iv[1] - RELEASE_SKEW_MS) continue;
        const show = (x: { r: Run; iv: [number, number] }): string =>
          `${x.r.token} (${x.r.proc}, ${x.iv[0]}–${x.iv[1]}, ${x.r.outcome ?? 'no end'})`;
        found.push(`${id}: run ${show(earlier)} overlaps ${show(later)} by ${earlier.iv[1] - later.iv[0]} ms`);
      }
    });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// The independent watcher: every event of the namespace, and the invariants on a model built from them.

type Meta = {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  deletionTimestamp?: unknown;
  labels?: Record<string, string>;
  ownerReferences?: Array<{ kind: string; name: string; controller?: boolean }>;
  creationTimestamp?: unknown;
};
type Obj = { metadata: Meta; spec?: Record<string, unknown>; status?: Record<string, unknown> };

export type WatchedEvent = {
  readonly at: number;
  readonly type: string;
  readonly kind: 'Pod' | 'ReplicaSet' | 'Deployment' | 'ConfigMap';
  readonly name: string;
  /** Reconcile keys the event maps to (Pod → controller owner; ReplicaSet → itself and its Deployment). */
  readonly keys: string[];
  readonly rv: string;
};

/** The resource (as the forwarder's event log names it) of each watched kind. */
const RESOURCE_OF = {
  Pod: 'pods',
  ReplicaSet: 'replicasets',
  Deployment: 'deployments',
  ConfigMap: 'configmaps',
} as const;

const PATHS = {
  Pod: (ns: string) => `/api/v1/namespaces/${ns}/pods`,
  ReplicaSet: (ns: string) => `/apis/apps/v1/namespaces/${ns}/replicasets`,
  Deployment: (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  ConfigMap: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
} as const;

export type Violation = { readonly invariant: string; readonly from: number; readonly to: number };

/** The watcher's ticker period: how finely it knows when its event loop was held. */
const TICK_MS = 50;

export class NamespaceWatcher {
  readonly events: WatchedEvent[] = [];
  readonly objects = {
    Pod: new Map<string, Obj>(),
    ReplicaSet: new Map<string, Obj>(),
    Deployment: new Map<string, Obj>(),
  };
  /** Broken invariants that lasted longer than the grace. */
  readonly violations: Violation[] = [];
  /** Highest active pod count seen per Deployment (beyond its grace), and the bound. */
  readonly peak = new Map<string, { pods: number; bound: number }>();
  private readonly open = new Map<string, number>();
  private readonly aborts: AbortController[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  /** When this process's event loop last ran the ticker, and where the stall the ticker last saw began (record). */
  private lastTick = Date.now();
  private stalledSince: number | undefined;
  private stopped = false;

  constructor(
    readonly kc: KubeConfig,
    readonly cluster: string,
    readonly namespace: string,
    readonly o: { kinds?: ReadonlyArray<keyof typeof PATHS>; podGraceMs?: number } = {},
  ) {}

  async start(): Promise<void> {
    const kinds = this.o.kinds ?? (['Pod', 'ReplicaSet', 'Deployment'] as const);
    await Promise.all(kinds.map((k) => this.watch(k, undefined)));
    this.timer = setInterval(() => this.check(), 200);
    this.ticker = setInterval(() => {
      const now = Date.now();
      this.stalledSince = now - this.lastTick > 2 * TICK_MS ? this.lastTick : undefined;
      this.lastTick = now;
    }, TICK_MS);
  }

  private async watch(kind: keyof typeof PATHS, rv: string | undefined): Promise<void> {
    if (this.stopped) return;
    const w = new Watch(this.kc);
    let last = rv;
    const restart = (): void => {
      if (this.stopped) return;
      // A closed watch resumes from the last resourceVersion seen (no event is missed); on error after a
      // short pause (the apiserver may be down: that is the fault under test).
      const t = setTimeout(() => void this.watch(kind, last).catch(() => restart()), 500);
      t.unref();
    };
    const ac = await w.watch(
      PATHS[kind](this.namespace),
      { allowWatchBookmarks: true, ...(last === undefined ? {} : { resourceVersion: last }) },
      (type: string, obj: Obj) => {
        if (type === 'BOOKMARK') {
          last = obj.metadata.resourceVersion ?? last;
          return;
        }
        if (type === 'ERROR') {
          last = undefined;
          return;
        }
        last = obj.metadata.resourceVersion ?? last;
        this.record(kind, type, obj);
      },
      () => restart(),
    );
    // stop() may have come while this watch was being opened (a restart after the fault, at the end of a
    // test): aborted here, or it would stay open and hold the test process after the last test.
    if (this.stopped) ac.abort();
    else this.aborts.push(ac);
  }

  private record(kind: keyof typeof PATHS, type: string, obj: Obj): void {
    const name = obj.metadata.name ?? '';
    const keys: string[] = [];
    const k = (kd: string, n: string): string => `${this.cluster}/${kd}/${this.namespace}/${n}`;
    const owner = obj.metadata.ownerReferences?.find((r) => r.controller === true);
    if (kind === 'Pod') {
      if (owner?.kind === 'ReplicaSet') keys.push(k('ReplicaSet', owner.name));
    } else if (kind === 'ReplicaSet') {
      keys.push(k('ReplicaSet', name));
      if (owner?.kind === 'Deployment') keys.push(k('Deployment', owner.name));
    } else if (kind === 'Deployment') {
      keys.push(k('Deployment', name));
    } else {
      keys.push(k('ConfigMap', name));
    }
    // An event is stamped when it is read. If this process's event loop was held (a loaded machine, a long
    // synchronous step of the test), it may have sat in the socket since the stall began: it is stamped then,
    // the earliest it can have arrived, so a run the pipeline started on it meanwhile counts as after it. The
    // ticker may run first after a stall (timers come before I/O in a loop turn): then it has noted the stall.
    const now = Date.now();
    const at = now - this.lastTick > 2 * TICK_MS ? this.lastTick : (this.stalledSince ?? now);
    this.events.push({ at, type, kind, name, keys, rv: obj.metadata.resourceVersion ?? '' });
    if (kind !== 'ConfigMap') {
      const m = this.objects[kind];
      if (type === 'DELETED') m.delete(name);
      else m.set(name, obj);
    }
    this.check();
  }

  /** Active (non-terminating) pods of each Deployment ≤ replicas + maxSurge, held beyond a grace. */
  private check(): void {
    const now = Date.now();
    const grace = this.o.podGraceMs ?? 2_500;
    const broken = new Map<string, { pods: number; bound: number }>();
    const rsOwner = new Map<string, string>();
    for (const [n, rs] of this.objects.ReplicaSet) {
      const o = rs.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Deployment');
      if (o) rsOwner.set(n, o.name);
    }
    const active = new Map<string, number>();
    for (const pod of this.objects.Pod.values()) {
      if (pod.metadata.deletionTimestamp) continue;
      const o = pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'ReplicaSet');
      const d = o && rsOwner.get(o.name);
      if (d) active.set(d, (active.get(d) ?? 0) + 1);
    }
    for (const [n, d] of this.objects.Deployment) {
      const dep = d as unknown as Deployment;
      const bound = (dep.spec.replicas ?? 1) + fenceposts(dep).maxSurge;
      const pods = active.get(n) ?? 0;
      if (pods > bound) broken.set(`${n}: active pods ≤ replicas + maxSurge`, { pods, bound });
    }
    for (const [inv, v] of broken) {
      const since = this.open.get(inv) ?? now;
      this.open.set(inv, since);
      if (now - since > grace) {
        const d = inv.split(':')[0] ?? inv;
        const prev = this.peak.get(d);
        if (!prev || prev.pods < v.pods) this.peak.set(d, v);
      }
    }
    for (const [inv, since] of this.open) {
      if (broken.has(inv)) continue;
      this.open.delete(inv);
      if (now - since > grace) this.violations.push({ invariant: inv, from: since, to: now });
    }
  }

  /** Violations so far, including ones still open past the grace. */
  allViolations(): string[] {
    this.check();
    const now = Date.now();
    const grace = this.o.podGraceMs ?? 2_500;
    const out = this.violations.map((v) => `${v.invariant} broken for ${v.to - v.from} ms`);
    for (const [inv, since] of this.open)
      if (now - since > grace) out.push(`${inv} broken for ${now - since} ms (still)`);
    for (const [d, v] of this.peak) out.push(`${d}: peak ${v.pods} active pods > bound ${v.bound}`);
    return out;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    for (const a of this.aborts) a.abort();
  }
}

// ---------------------------------------------------------------------------------------------------------
// (b) every event followed by a successful run.

export type FollowReport = {
  readonly misses: string[];
  /** event → start of the first successful run after it, per (event, key), ms. */
  readonly latencies: number[];
};

const SUCCESS = new Set(['done', 'requeued']);

/**
 * For each event (optionally only those in [from, to]) and each of its keys: the first successful run
 * (done/requeued) that started after the event (minus WATCH_SKEW_MS) must start within boundMs of it, or,
 * with `boundFrom`, within boundMs of max(event, boundFrom) (a fault's end).
 */
export function followReport(
  events: readonly WatchedEvent[],
  runs: readonly Run[],
  o: {
    boundMs: number;
    from?: number;
    to?: number;
    boundFrom?: number;
    keyFilter?: (key: string) => boolean;
    /** Pipeline.forwarderSightings: a run counts from when the forwarder saw the event, if that was earlier. */
    sightings?: ReadonlyMap<string, number>;
  },
): FollowReport {
  const byKey = new Map<string, Run[]>();
  for (const r of runs) if (r.outcome && SUCCESS.has(r.outcome)) byKey.set(r.id, [...(byKey.get(r.id) ?? []), r]);
  const misses: string[] = [];
  const latencies: number[] = [];
  for (const e of events) {
    if (o.from !== undefined && e.at < o.from) continue;
    if (o.to !== undefined && e.at > o.to) continue;
    for (const key of e.keys) {
      if (o.keyFilter && !o.keyFilter(key)) continue;
      // The test's watch and the forwarder's are two streams of one apiserver: either may see an event first.
      const seen = o.sightings?.get(`${RESOURCE_OF[e.kind]}/${e.name}@${e.rv}`) ?? Infinity;
      const after = (byKey.get(key) ?? []).find((r) => r.start >= Math.min(e.at - WATCH_SKEW_MS, seen));
      const base = Math.max(e.at, o.boundFrom ?? 0);
      if (!after) {
        const before = Math.max(...(byKey.get(key) ?? []).map((r) => r.start));
        const last = Number.isFinite(before)
          ? `its last successful run started ${e.at - before} ms before`
          : 'it never ran';
        misses.push(
          `${e.type} ${e.kind} ${e.name} (rv ${e.rv}) at ${e.at}: no successful run of ${key} after it (${last})`,
        );
      } else {
        const lat = after.start - e.at;
        latencies.push(Math.max(0, lat));
        if (after.start - base > o.boundMs)
          misses.push(
            `${e.type} ${e.kind} ${e.name} (rv ${e.rv}): ${key} ran ${after.start - base} ms later (> ${o.boundMs})`,
          );
      }
    }
  }
  return { misses, latencies };
}

/** Waits until (b) holds for every event so far (the pipeline catches up), or the deadline. */
export async function waitFollowed(
  w: NamespaceWatcher,
  p: Pipeline,
  o: { boundMs: number; timeoutMs: number; from?: number; boundFrom?: number; keyFilter?: (key: string) => boolean },
): Promise<FollowReport> {
  const report = async (): Promise<FollowReport> =>
    followReport(w.events, p.runs(), { ...o, sightings: await p.forwarderSightings(w.cluster, w.namespace) });
  // The report is the one the wait ended on: the test's watch is still open, and a report made again afterwards
  // judged an event that arrived in between (a status write of the last run) before any run could follow it
  // (chaos paging: "no successful run after it" for a ReplicaSet whose next run started 62 ms later).
  let last: FollowReport | undefined;
  await waitFor(
    async () => {
      last = await report();
      return last.misses.every((m) => !m.includes('no successful run'));
    },
    o.timeoutMs,
    500,
    'every event followed by a successful run',
  ).catch(() => undefined);
  return last ?? report();
}

/** The nearest-rank percentile of test/helpers/stats.ts (q in (0, 1]), 0 when there are no samples. */
export function percentile(xs: readonly number[], q: number): number {
  return nearestRankPercentile(xs, q) ?? 0;
}

// ---------------------------------------------------------------------------------------------------------
// (d) dead letters, read straight from the Redis driver's keys (the same on the old and the new code).

export type RawDeadLetter = { id?: string | null; raw?: string; reason?: string; failures?: number };

export async function redisDeadLetters(redisUrl: string, queue: string, prefix = 'fleetq'): Promise<RawDeadLetter[]> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const all = await r.hgetall(`${prefix}:{${queue}}:dl`);
    return Object.values(all).map((v) => JSON.parse(v) as RawDeadLetter);
  } finally {
    r.disconnect();
  }
}

/** Dead letters naming a key that never ran (d). */
export function deadLettersWithoutRun(letters: readonly RawDeadLetter[], runs: readonly Run[]): RawDeadLetter[] {
  const ran = new Set(runs.map((r) => r.id));
  return letters.filter((d) => typeof d.id === 'string' && !ran.has(d.id));
}

/** A temp folder for file checkpoints etc. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

// ---------------------------------------------------------------------------------------------------------
// The four checks together, as one report a test prints and asserts on.

export type SpineReport = {
  readonly overlaps: string[];
  readonly unfollowed: string[];
  readonly invariants: string[];
  readonly deadLettersWithoutRun: RawDeadLetter[];
  readonly deadLetters: RawDeadLetter[];
  readonly runs: number;
  readonly events: number;
  readonly p99Ms: number;
};

export async function spineReport(
  p: Pipeline,
  w: NamespaceWatcher,
  o: {
    boundMs: number;
    followTimeoutMs?: number;
    from?: number;
    boundFrom?: number;
    pausedRunsEndAtPause?: boolean;
    keyFilter?: (key: string) => boolean;
  },
): Promise<SpineReport> {
  const follow = await waitFollowed(w, p, { ...o, timeoutMs: o.followTimeoutMs ?? 30_000 });
  const settledAt = await p.settleRuns();
  const runs = p.runs();
  const deadLetters = await redisDeadLetters(p.o.redisUrl, p.queue);
  const report = {
    overlaps: overlaps(p, { ...o, settledAt }),
    unfollowed: follow.misses,
    invariants: w.allViolations(),
    deadLettersWithoutRun: deadLettersWithoutRun(deadLetters, runs),
    deadLetters,
    runs: runs.length,
    events: w.events.length,
    p99Ms: percentile(follow.latencies, 0.99),
  };
  console.log(
    `chaos report: ${report.events} events, ${report.runs} runs, event→run p99 ${report.p99Ms} ms; ` +
      `${report.overlaps.length} overlaps, ${report.unfollowed.length} unfollowed, ` +
      `${report.invariants.length} invariant violations, ${deadLetters.length} dead letters ` +
      `(${report.deadLettersWithoutRun.length} without a run)\n` +
      [...report.overlaps, ...report.unfollowed, ...report.invariants].slice(0, 20).join('\n'),
  );
  return report;
}

/**
 * The forwarder's checkpoints in Redis (FLEETQ_CHECKPOINTS=redis), every cluster's hash read:
 * `<cluster>/<resource>` → resourceVersion.
 */
export async function redisCheckpoints(redisUrl: string, queue: string): Promise<Record<string, string>> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const all = await readAllCheckpoints(r, `fleetq:${queue}`);
    return Object.fromEntries(
      [...all].flatMap(([cluster, rvs]) => [...rvs].map(([resource, rv]) => [checkpointField(cluster, resource), rv])),
    );
  } finally {
    r.disconnect();
  }
}

/** Keys (cluster/kind/namespace/name) of every Deployment and ReplicaSet the watcher knows now. */
export function workloadKeys(w: NamespaceWatcher): string[] {
  return [
    ...[...w.objects.Deployment.keys()].map((n) => `${w.cluster}/Deployment/${w.namespace}/${n}`),
    ...[...w.objects.ReplicaSet.keys()].map((n) => `${w.cluster}/ReplicaSet/${w.namespace}/${n}`),
  ];
}

/** Keys among `keys` without a successful run that started in [from, from + boundMs]. */
export function keysNotRunWithin(p: Pipeline, keys: readonly string[], from: number, boundMs: number): string[] {
  const runs = p.runs().filter((r) => r.outcome !== undefined && SUCCESS.has(r.outcome));
  return keys.filter((k) => !runs.some((r) => r.id === k && r.start >= from && r.start <= from + boundMs));
}
