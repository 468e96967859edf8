// One API budget per controller and cluster, fleet-wide (docs/architecture.md, same heading), counted at the
// apiserver (its /metrics), not by fleetq. 4 worker processes reconcile Deployments against one cluster registered
// with `limits: { qps: 10, burst: 5 }`:
// - per controller: the Deployment controller's requests and the ReplicaSet controller's each stay within 10 qps
//   plus the burst, fleet-wide (with a bucket per process they would reach 4 × that), while all of fleetq's
//   requests together go past one such budget (with one budget per cluster they could not);
// - with the cap `clusterQps: 10, clusterBurst: 5` as well, all of them together stay within 10 qps plus the burst.
//
// How requests are counted. `apiserver_request_total` has no user or user-agent label, so:
// - The cluster is a dedicated sandbox cluster, `budget-1` (fleetq mode, started on first use and left up like
//   the standard ones): no other test's handlers write to it. The shared fleetq-1/2 serve other tests (and
//   other people's runs) at the same time, whose handlers produce the very same series.
// - Only the series that fleetq's handlers alone produce there are summed, by the controller that sends them:
//   the Deployment controller's reads and writes of Deployments (but not POST: the test creates them),
//   Deployment status and ReplicaSets; the ReplicaSet controller's ReplicaSet status and Pods (no subresource:
//   kube-scheduler binds through pods/binding and kwok writes pods/status); the core/v1 Events both record
//   (kube-scheduler writes events.k8s.io), written in the background outside any reconcile. WATCH and
//   cluster-scope LIST are left out (the forwarder's and the components' informers). A baseline cannot be
//   subtracted instead: kwok and kube-scheduler react to fleetq's writes, so their traffic grows with fleetq's.
// - The sum is checked against fleetq's own count (the workers' fleetq_kube_requests_total): the apiserver
//   must have seen every request the workers sent (else the filter would miss requests and the bound prove
//   nothing), and not more than they sent or were sending (else something else leaks into the filter).
//
// Window: from just before the first count (the buckets are full then: a fresh queue has no bucket keys) to the
// answer of the count that reached TARGET requests. Bound of one budget: QPS × seconds + BURST + TOLERANCE, where
// TOLERANCE covers requests of other components that the filter cannot tell apart (none were seen; see the
// cross-check).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki } from '../../infra/sandbox/pki.js';
import { httpsGet } from '../../infra/sandbox/probe.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readState, sandboxRoot, up } from '../../infra/sandbox/sandbox.js';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { Pipeline } from '../helpers/chaos/harness.js';
import { deployment } from '../helpers/chaos/workloads.js';
import { REDIS_URL } from '../helpers/queue/redis.js';

const CLUSTER = 'budget-1';
/** Each controller's budget (registry limits.qps/burst), and the cap of the second case (clusterQps/clusterBurst). */
const QPS = 10;
const BURST = 5;
const WORKERS = 4;
const CONCURRENCY = 4;
/** Requests (at the apiserver) a window runs to: about 15 s at one budget, about 5 s at three. */
const TARGET = 150;
const TOLERANCE = 5;
/** Work enough to keep 4 workers busy past TARGET: ~10 requests per Deployment plus ~2 per pod. */
const DEPLOYMENTS = 40;
const REPLICAS = 5;

type Series = { readonly labels: Record<string, string>; readonly value: number };

function parseCounter(text: string, name: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const labels: Record<string, string> = {};
    for (const m of line.slice(name.length + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[m[1] as string] = m[2] as string;
    out.push({ labels, value: Number(line.slice(close + 1).trim()) });
  }
  return out;
}

/** Who sends a series of apiserver_request_total that, in this cluster, only fleetq's handlers produce (see the top). */
const Sender = { Deployment: 'Deployment', ReplicaSet: 'ReplicaSet', Events: 'events' } as const;
type Sender = (typeof Sender)[keyof typeof Sender];

function senderOf(l: Record<string, string>): Sender | undefined {
  if (l.verb === 'WATCH' || l.scope === 'cluster' || l.resource === '') return undefined;
  switch (`${l.group}/${l.resource}/${l.subresource}`) {
    case 'apps/deployments/':
      return l.verb === 'POST' ? undefined : Sender.Deployment;
    case 'apps/deployments/status':
    case 'apps/replicasets/':
      return Sender.Deployment;
    case 'apps/replicasets/status':
    case '/pods/':
      return Sender.ReplicaSet;
    case '/events/':
      return Sender.Events;
    default:
      return undefined;
  }
}

type Count = { total: number; per: Record<Sender, number>; by: Map<string, number> };

/** What fleetq's handlers have sent, as the apiserver counted it: in all, per sender, by `VERB group/resource[/sub]`. */
async function apiserverCount(c: ClusterState): Promise<Count> {
  const res = await httpsGet(`${c.server}/metrics`, ensurePki(sandboxRoot()));
  if (res.status !== 200) throw new Error(`GET ${c.server}/metrics: ${res.status}`);
  const by = new Map<string, number>();
  const per: Record<Sender, number> = { Deployment: 0, ReplicaSet: 0, events: 0 };
  let total = 0;
  for (const s of parseCounter(res.body, 'apiserver_request_total')) {
    const sender = senderOf(s.labels);
    if (sender === undefined) continue;
    const { verb, group, resource, subresource } = s.labels;
    const k = `${verb} ${group ? `${group}/` : ''}${resource}${subresource ? `/${subresource}` : ''}`;
    by.set(k, (by.get(k) ?? 0) + s.value);
    per[sender] += s.value;
    total += s.value;
  }
  return { total, per, by };
}

/** The requests the workers say they sent to CLUSTER (their own metrics). */
async function fleetqCount(ports: readonly number[]): Promise<number> {
  let total = 0;
  for (const port of ports) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const s of parseCounter(text, 'fleetq_kube_requests_total'))
      if (s.labels.cluster === CLUSTER) total += s.value;
  }
  return total;
}

function diff(after: Map<string, number>, before: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0),
  );
}

async function budgetCluster(): Promise<{ state: ClusterState; kc: KubeConfig }> {
  const running = readState().clusters.find((c) => c.name === CLUSTER);
  const [state] = running ? [running] : await up({ clusters: [{ name: CLUSTER, mode: SandboxMode.Fleetq }], nodes: 1 });
  if (!state) throw new Error(`no sandbox cluster ${CLUSTER}`);
  const kc = new KubeConfig();
  kc.loadFromFile(state.kubeconfig);
  return { state, kc };
}

type Measured = {
  readonly counted: number;
  readonly per: Record<Sender, number>;
  readonly seconds: number;
  /** One budget's bound over the window: QPS × seconds + BURST + TOLERANCE. */
  readonly bound: number;
};

describe('one API budget per controller and cluster, fleet-wide', () => {
  let c: { state: ClusterState; kc: KubeConfig };

  beforeAll(async () => {
    c = await budgetCluster();
  });

  /**
   * Starts a forwarder and WORKERS workers on a queue of their own with these registry limits, creates the
   * Deployments in a namespace of its own, and counts at the apiserver until TARGET requests; stops it all.
   */
  async function measure(limits: Record<string, number>): Promise<Measured> {
    const ns = `test-${randomUUID()}`;
    await c.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    const pipeline = new Pipeline({
      clusters: [{ name: CLUSTER, kubeconfig: c.state.kubeconfig }],
      driver: 'redis',
      redisUrl: REDIS_URL,
      workers: WORKERS,
      leaseMs: 10_000,
      concurrency: CONCURRENCY,
      queue: `budget-${randomUUID().slice(0, 8)}`,
      env: { LOG_LEVEL: 'info' },
    });
    writeRegistry(pipeline.registry, limits);
    const ports: number[] = [];
    try {
      await pipeline.startForwarder();
      for (let i = 0; i < WORKERS; i++) ports.push(await freePort());
      const workers = await Promise.all(
        ports.map((port) => pipeline.startWorker({ FLEETQ_METRICS_PORT: String(port) })),
      );
      for (const w of workers)
        expect(w.lines.some((l) => l.includes('"API budget"') && l.includes('"redis"'))).toBe(true);
      const t0 = performance.now();
      const before = await apiserverCount(c.state);
      const fleetqBefore = await fleetqCount(ports);

      const apps = c.kc.makeApiClient(AppsV1Api);
      for (let i = 0; i < DEPLOYMENTS; i++)
        await apps.createNamespacedDeployment({ namespace: ns, body: deployment(`web-${i}`, REPLICAS) });

      let after = before;
      let t1 = t0;
      await waitFor(
        async () => {
          after = await apiserverCount(c.state);
          t1 = performance.now();
          return after.total - before.total >= TARGET;
        },
        60_000,
        250,
        `${TARGET} fleetq requests counted at the apiserver`,
      );
      const counted = after.total - before.total;
      const seconds = (t1 - t0) / 1000;
      const bound = QPS * seconds + BURST + TOLERANCE;
      const per = {
        Deployment: after.per.Deployment - before.per.Deployment,
        ReplicaSet: after.per.ReplicaSet - before.per.ReplicaSet,
        events: after.per.events - before.per.events,
      };
      // Cross-check, in this order: the workers' count, the apiserver's, the workers' again. A request a worker
      // counted has had its answer, so the apiserver counted it too: its later count holds at least the workers'
      // earlier one (less 2: the apiserver counts a request as it finishes answering it). And each request the
      // apiserver counted was either counted by a worker by its later count or was still being answered (at most
      // one per reconcile slot and one per event recorder): else something other than fleetq is in the filter.
      const fleetqBeforeCheck = (await fleetqCount(ports)) - fleetqBefore;
      const seen = (await apiserverCount(c.state)).total - before.total;
      const fleetqAfterCheck = (await fleetqCount(ports)) - fleetqBefore;
      console.log(
        JSON.stringify({
          test: 'fleet-api-budget',
          limits,
          counted,
          per,
          seconds: Number(seconds.toFixed(2)),
          qps: Number((counted / seconds).toFixed(2)),
          bound: Number(bound.toFixed(1)),
          crossCheck: { fleetq: fleetqBeforeCheck, apiserver: seen, fleetqThen: fleetqAfterCheck },
          by: diff(after.by, before.by),
        }),
      );
      expect(seen).toBeGreaterThanOrEqual(fleetqBeforeCheck - 2);
      expect(seen).toBeLessThanOrEqual(fleetqAfterCheck + WORKERS * (CONCURRENCY + 1) + TOLERANCE);

      // Workers close the budget's Redis connection on SIGTERM and exit cleanly.
      const codes = await Promise.all(workers.map((w) => w.stop('SIGTERM')));
      expect(codes).toEqual(workers.map(() => 0));
      return { counted, per, seconds, bound };
    } finally {
      await pipeline.stop();
      // The apiserver's counter has no user label: the namespace controller's and the garbage collector's
      // requests while this namespace goes (kube-controller-manager runs both in fleetq mode) would count as the
      // next case's. So the next case starts once it is gone.
      const core = c.kc.makeApiClient(CoreV1Api);
      await core.deleteNamespace({ name: ns }).catch(() => undefined);
      await waitFor(
        () =>
          core.readNamespace({ name: ns }).then(
            () => false,
            () => true,
          ),
        120_000,
        500,
        `namespace ${ns} deleted`,
      );
      const redis = new Redis(REDIS_URL);
      await deleteQueueKeys(redis, redisKeyPrefix(pipeline.queue));
      redis.disconnect();
    }
  }

  it(`${WORKERS} worker processes send at most ${QPS} qps + burst ${BURST} per controller to one cluster, and more than that in all, counted at the apiserver`, async () => {
    const m = await measure({ qps: QPS, burst: BURST });
    expect(m.per.Deployment).toBeLessThanOrEqual(m.bound);
    expect(m.per.ReplicaSet).toBeLessThanOrEqual(m.bound);
    // More than one budget's worth in all: each controller (and the events) has a budget of its own.
    expect(m.counted).toBeGreaterThan(m.bound);
  });

  it(`with clusterQps ${QPS} and clusterBurst ${BURST}, all controllers together send at most that, counted at the apiserver`, async () => {
    const m = await measure({ qps: QPS, burst: BURST, clusterQps: QPS, clusterBurst: BURST });
    expect(m.counted).toBeLessThanOrEqual(m.bound);
  });
});

/** Rewrites the pipeline's registry (one cluster, owning what Pipeline gives it) with these limits. */
function writeRegistry(path: string, limits: Record<string, number>): void {
  const written = parseYaml(readFileSync(path, 'utf8')) as { clusters: { limits?: Record<string, number> }[] };
  for (const entry of written.clusters) entry.limits = limits;
  writeFileSync(path, stringifyYaml(written));
}
