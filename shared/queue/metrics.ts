// client-go's workqueue metrics (same names, same buckets) for any driver: instrument(queue, registry, name)
// wraps a WorkQueue. Labels: name (queue), cluster, kind. Counts and durations are this process's;
// workqueue_depth is the queue's own (every process reports the same value), by cluster/kind when the driver
// can break it down (memory, redis) and as cluster="" kind="" otherwise (sqs).
// adds_total counts add/addAfter calls (requests; the drivers dedup them). retries_total counts failure
// retries; a conflict retry (its own per-key backoff count, client-go's rate-limited requeue after a 409) is counted in
// fleetq_workqueue_conflict_retries_total instead, so a persistent conflict does not look like a failing key.
// fleetq_keys_in_backoff{name,cluster} is read from the driver at scrape time (backoffBreakdown), like depth.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReconcileKey } from '../kube/key.js';
import type { DeadLetter, Lease, RetryOutcome, WorkQueue } from './work-queue.js';

type Breakdown = Array<{ cluster: string; kind: string; depth: number }>;
type Source = {
  name: string;
  queue: WorkQueue;
  inflight: Map<string, { start: number; cluster: string; kind: string }>;
};

// client-go: prometheus.ExponentialBuckets(10e-9, 10, 12)
const BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);
const LABELS = ['name', 'cluster', 'kind'] as const;
const sources = new WeakMap<Registry, Set<Source>>();

function metricsFor(registry: Registry) {
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(name) as T | undefined;
  const all = (): Set<Source> => sources.get(registry) ?? new Set();
  const registers = [registry];
  return {
    adds:
      existing<Counter>('workqueue_adds_total') ??
      new Counter({
        name: 'workqueue_adds_total',
        help: 'Total adds handled by workqueue',
        labelNames: LABELS,
        registers,
      }),
    retries:
      existing<Counter>('workqueue_retries_total') ??
      new Counter({
        name: 'workqueue_retries_total',
        help: 'Total retries handled by workqueue',
        labelNames: LABELS,
        registers,
      }),
    queueDuration:
      existing<Histogram>('workqueue_queue_duration_seconds') ??
      new Histogram({
        name: 'workqueue_queue_duration_seconds',
        help: 'How long in seconds an item stays in workqueue before being requested',
        labelNames: LABELS,
        buckets: BUCKETS,
        registers,
      }),
    workDuration:
      existing<Histogram>('workqueue_work_duration_seconds') ??
      new Histogram({
        name: 'workqueue_work_duration_seconds',
        help: 'How long in seconds processing an item from workqueue takes',
        labelNames: LABELS,
        buckets: BUCKETS,
        registers,
      }),
    conflicts:
      existing<Counter>('fleetq_workqueue_conflict_retries_total') ??
      new Counter({
        name: 'fleetq_workqueue_conflict_retries_total',
        help: 'Retries after a conflict (409): re-read after the key conflict backoff, not counted as failures',
        labelNames: LABELS,
        registers,
      }),
    inBackoff:
      existing<Gauge>('fleetq_keys_in_backoff') ??
      new Gauge({
        name: 'fleetq_keys_in_backoff',
        help: 'Keys waiting out a retry backoff (failed at least once since their last success), not held',
        labelNames: ['name', 'cluster'],
        registers,
        async collect() {
          this.reset();
          for (const s of all()) {
            for (const b of await s.queue.backoffBreakdown()) this.set({ name: s.name, cluster: b.cluster }, b.keys);
          }
        },
      }),
    depth:
      existing<Gauge>('workqueue_depth') ??
      new Gauge({
        name: 'workqueue_depth',
        help: 'Current depth of workqueue',
        labelNames: LABELS,
        registers,
        async collect() {
          this.reset();
          for (const s of all()) {
            const breakdown = await depthBreakdown(s.queue);
            for (const b of breakdown) this.set({ name: s.name, cluster: b.cluster, kind: b.kind }, b.depth);
          }
        },
      }),
    unfinished:
      existing<Gauge>('workqueue_unfinished_work_seconds') ??
      new Gauge({
        name: 'workqueue_unfinished_work_seconds',
        help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
        labelNames: LABELS,
        registers,
        collect() {
          this.reset();
          const now = Date.now();
          for (const s of all()) {
            for (const w of s.inflight.values())
              this.inc({ name: s.name, cluster: w.cluster, kind: w.kind }, (now - w.start) / 1000);
          }
        },
      }),
  };
}

async function depthBreakdown(queue: WorkQueue): Promise<Breakdown> {
  const withBreakdown = queue as WorkQueue & { depthBreakdown?: () => Promise<Breakdown> };
  if (typeof withBreakdown.depthBreakdown === 'function') return withBreakdown.depthBreakdown();
  return [{ cluster: '', kind: '', depth: await queue.depth() }];
}

export function instrument(queue: WorkQueue, registry: Registry, name: string): WorkQueue {
  const m = metricsFor(registry);
  const source: Source = { name, queue, inflight: new Map() };
  const set = sources.get(registry) ?? new Set<Source>();
  set.add(source);
  sources.set(registry, set);
  const labels = (key: ReconcileKey) => ({ name, cluster: key.cluster, kind: key.kind });
  const onEpochMissing = queue.onEpochMissing?.bind(queue);
  // Not counted as an add: the pool's fenced enqueues were never counted here.
  const addFenced = queue.addFenced?.bind(queue);
  const finish = (lease: Lease): void => {
    const w = source.inflight.get(lease.token);
    if (!w) return;
    source.inflight.delete(lease.token);
    m.workDuration.observe(labels(lease.key), (Date.now() - w.start) / 1000);
  };
  return {
    driver: queue.driver,
    async add(key) {
      m.adds.inc(labels(key));
      await queue.add(key);
    },
    async addAfter(key, delayMs) {
      m.adds.inc(labels(key));
      await queue.addAfter(key, delayMs);
    },
    async get(waitMs) {
      const lease = await queue.get(waitMs);
      if (lease) {
        const now = Date.now();
        m.queueDuration.observe(labels(lease.key), Math.max(0, now - lease.readyAt) / 1000);
        source.inflight.set(lease.token, { start: now, cluster: lease.key.cluster, kind: lease.key.kind });
      }
      return lease;
    },
    async done(lease, requeueAfterMs, options) {
      finish(lease);
      const outcome = await queue.done(lease, requeueAfterMs, options);
      if (requeueAfterMs !== undefined && outcome.outcome === 'done') m.adds.inc(labels(lease.key));
      return outcome;
    },
    async retry(lease, error, options): Promise<RetryOutcome> {
      finish(lease);
      const outcome = await queue.retry(lease, error, options);
      if (outcome.outcome === 'retried') (options?.conflict ? m.conflicts : m.retries).inc(labels(lease.key));
      return outcome;
    },
    async deadLetter(lease, reason) {
      finish(lease);
      await queue.deadLetter(lease, reason);
    },
    async renew(lease) {
      const ok = await queue.renew(lease);
      if (!ok) source.inflight.delete(lease.token);
      return ok;
    },
    parkInvalid: (raw, reason) => queue.parkInvalid(raw, reason),
    backoffBreakdown: () => queue.backoffBreakdown(),
    deadLetters: (): Promise<DeadLetter[]> => queue.deadLetters(),
    redrive: (match) => queue.redrive(match),
    depth: () => queue.depth(),
    ...(onEpochMissing && { onEpochMissing }),
    ...(addFenced && { addFenced }),
    async close() {
      set.delete(source);
      await queue.close();
    },
    ...{ depthBreakdown: () => depthBreakdown(queue) },
  } as WorkQueue;
}
