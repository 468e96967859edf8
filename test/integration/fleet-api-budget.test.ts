// One API budget per cluster, fleet-wide (docs/architecture.md, same heading): 4 worker processes reconciling against one cluster
// registered with `limits: { qps: 10, burst: 5 }` send at most 10 qps plus the burst together, counted at the
// apiserver (its /metrics), not by fleetq. With a bucket per process they would send up to 4 × that.
//
// How requests are counted. `apiserver_request_total` has no user or user-agent label, so:
// - The cluster is a dedicated sandbox cluster, `budget-1` (fleetq mode, started on first use and left up like
//   the standard ones): no other test's handlers write to it. The shared fleetq-1/2 serve other tests (and
//   other people's runs) at the same time, whose handlers produce the very same series.
// - Only the series that fleetq's handlers alone produce there are summed: reads and writes of Deployments
//   (but not POST: the test creates them), Deployment and ReplicaSet status, ReplicaSets, Pods (no
//   subresource: kube-scheduler binds through pods/binding and kwok writes pods/status) and core/v1 Events
//   (kube-scheduler writes events.k8s.io), without WATCH and cluster-scope LIST (the forwarder's and the
//   components' informers). A baseline cannot be subtracted instead: kwok and kube-scheduler react to fleetq's
//   writes, so their traffic grows with fleetq's.
// - The sum is checked against fleetq's own count (the workers' fleetq_kube_requests_total): the apiserver
//   must have seen every request the workers sent (else the filter would miss requests and the bound prove
//   nothing), and not more than they sent or were sending (else something else leaks into the filter).
//
// Window: from just before the first count (the bucket is full then: a fresh queue has no bucket key) to the
// answer of the count that reached TARGET requests. Bound: QPS × seconds + BURST + TOLERANCE, where TOLERANCE
// covers requests of other components that the filter cannot tell apart (none were seen; see the cross-check).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki } from '../../infra/sandbox/pki.js';
import { httpsGet } from '../../infra/sandbox/probe.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readState, sandboxRoot, up } from '../../infra/sandbox/sandbox.js';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { Pipeline } from '../helpers/chaos/harness.js';
import { deployment } from '../helpers/chaos/workloads.js';
import type { Proc } from '../helpers/processes.js';
import { REDIS_URL } from '../helpers/queue/redis.js';

const CLUSTER = 'budget-1';
const QPS = 10;
const BURST = 5;
const WORKERS = 4;
const CONCURRENCY = 4;
/** Requests (at the apiserver) the window runs to: about 15 s at the budget, about 4 s at 4 × the budget. */
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

/** A series of apiserver_request_total that, in this cluster, only fleetq's handlers produce (see the top). */
function isFleetqSeries(l: Record<string, string>): boolean {
  if (l.verb === 'WATCH' || l.scope === 'cluster' || l.resource === '') return false;
  switch (`${l.group}/${l.resource}/${l.subresource}`) {
    case 'apps/deployments/':
      return l.verb !== 'POST';
    case 'apps/deployments/status':
    case 'apps/replicasets/':
    case 'apps/replicasets/status':
    case '/pods/':
    case '/events/':
      return true;
    default:
      return false;
  }
}

/** What fleetq's handlers have sent, as the apiserver counted it, by `VERB group/resource[/subresource]`. */
async function apiserverCount(c: ClusterState): Promise<{ total: number; by: Map<string, number> }> {
  const res = await httpsGet(`${c.server}/metrics`, ensurePki(sandboxRoot()));
  if (res.status !== 200) throw new Error(`GET ${c.server}/metrics: ${res.status}`);
  const by = new Map<string, number>();
  let total = 0;
  for (const s of parseCounter(res.body, 'apiserver_request_total')) {
    if (!isFleetqSeries(s.labels)) continue;
    const { verb, group, resource, subresource } = s.labels;
    const k = `${verb} ${group ? `${group}/` : ''}${resource}${subresource ? `/${subresource}` : ''}`;
    by.set(k, (by.get(k) ?? 0) + s.value);
    total += s.value;
  }
  return { total, by };
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

describe('one API budget per cluster, fleet-wide', () => {
  let c: { state: ClusterState; kc: KubeConfig };
  let namespace: string | undefined;
  let pipeline: Pipeline | undefined;
  const ports: number[] = [];
  const workers: Proc[] = [];

  beforeAll(async () => {
    c = await budgetCluster();
    namespace = `test-${randomUUID()}`;
    await c.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    pipeline = new Pipeline({
      clusters: [{ name: CLUSTER, kubeconfig: c.state.kubeconfig, qps: QPS, burst: BURST }],
      driver: 'redis',
      redisUrl: REDIS_URL,
      workers: WORKERS,
      leaseMs: 10_000,
      concurrency: CONCURRENCY,
      queue: `budget-${randomUUID().slice(0, 8)}`,
      env: { LOG_LEVEL: 'info' },
    });
    await pipeline.startForwarder();
    for (let i = 0; i < WORKERS; i++) ports.push(await freePort());
    workers.push(
      ...(await Promise.all(ports.map((port) => pipeline!.startWorker({ FLEETQ_METRICS_PORT: String(port) })))),
    );
  });

  afterAll(async () => {
    await pipeline?.stop();
    if (namespace)
      await c.kc
        .makeApiClient(CoreV1Api)
        .deleteNamespace({ name: namespace })
        .catch(() => undefined);
    if (pipeline) {
      const redis = new Redis(REDIS_URL);
      await deleteQueueKeys(redis, redisKeyPrefix(pipeline.queue));
      redis.disconnect();
    }
  });

  it(`${WORKERS} worker processes send at most ${QPS} qps + burst ${BURST} to one cluster, counted at the apiserver`, async () => {
    const ns = namespace as string;
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
    // Cross-check, in this order: the workers' count, the apiserver's, the workers' again. A request a worker
    // counted has had its answer, so the apiserver counted it too: its later count holds at least the workers'
    // earlier one (less 2: the apiserver counts a request as it finishes answering it). And each request the
    // apiserver counted was either counted by a worker by its later count or was still being answered (at most
    // one per reconcile slot): else something other than fleetq is in the filter.
    const fleetqBeforeCheck = (await fleetqCount(ports)) - fleetqBefore;
    const seen = (await apiserverCount(c.state)).total - before.total;
    const fleetqAfterCheck = (await fleetqCount(ports)) - fleetqBefore;
    console.log(
      JSON.stringify({
        test: 'fleet-api-budget',
        counted,
        seconds: Number(seconds.toFixed(2)),
        qps: Number((counted / seconds).toFixed(2)),
        bound: Number(bound.toFixed(1)),
        crossCheck: { fleetq: fleetqBeforeCheck, apiserver: seen, fleetqThen: fleetqAfterCheck },
        by: diff(after.by, before.by),
      }),
    );
    expect(seen).toBeGreaterThanOrEqual(fleetqBeforeCheck - 2);
    expect(seen).toBeLessThanOrEqual(fleetqAfterCheck + WORKERS * CONCURRENCY + TOLERANCE);
    expect(counted).toBeLessThanOrEqual(bound);

    // Workers close the budget's Redis connection on SIGTERM and exit cleanly.
    const codes = await Promise.all(workers.map((w) => w.stop('SIGTERM')));
    expect(codes).toEqual(workers.map(() => 0));
  });
});
