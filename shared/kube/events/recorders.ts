// One EventRecorder per cluster and process, built on first use over that cluster's KubeRest, and the
// metrics they share:
//   fleetq_events_dropped_total{cluster,reason}  reason=buffer_full (the bounded buffer was full) or
//                                                 write_failed (refused by the apiserver, or retries used up)
//   fleetq_events_written_total{cluster,verb}    verb=create (POST) or patch (a repeat: count + 1)
//   fleetq_events_filtered_total{cluster}        skipped by client-go's spam filter (25 per object, then 1 / 5 min)
// Correlation state (counts, aggregation, spam buckets) is per process, as it is per kube-controller-manager.
// A cluster's recorder is forgotten once no reconcile asked for it in `idleMs` (FLEETQ_CLUSTER_IDLE_MS) and it
// has nothing left to write (idle-expiry.ts): its correlation state goes with it, as at a controller-manager
// restart (a repeat of an event recorded before is then a new Event, not a count + 1 patch of the old one, and
// the object's spam-filter budget starts at its burst again). Idle for that long, the aggregation groups (10 min)
// had expired anyway.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, type Registry } from 'prom-client';
import type { KubeRest } from '../rest.js';
import { IdleExpiry } from '../idle-expiry.js';
import { EventRecorder, type EventLog, type EventMetrics, type EventRecorderOptions } from './recorder.js';

export type EventRecordersOptions = {
  /** Where the counters are registered; none: counted nowhere. */
  readonly registry?: Registry;
  /** A child logger per cluster is made when it has `child` (runtime/logger.ts). */
  readonly logger?: EventLog & { child?(keys: Record<string, unknown>): EventLog };
  readonly recorder?: Omit<EventRecorderOptions, 'logger' | 'metrics'>;
  /** A cluster's recorder unused this long, with nothing left to write, is forgotten; 0 or absent: kept. */
  readonly idleMs?: number;
  readonly now?: () => number;
};

export class EventRecorders {
  private readonly byCluster: IdleExpiry<EventRecorder>;
  private readonly counters: ReturnType<typeof countersIn> | undefined;
  /** The context of the code that made the set (makeDeps), for every recorder's background writes. */
  private readonly context = AsyncLocalStorage.snapshot();

  constructor(private readonly o: EventRecordersOptions = {}) {
    this.counters = o.registry === undefined ? undefined : countersIn(o.registry);
    this.byCluster = new IdleExpiry<EventRecorder>({
      idleMs: o.idleMs ?? 0,
      ...(o.now && { now: o.now }),
      canEvict: (r) => r.idle,
    });
  }

  /** Recorders held now (one per cluster served within the idle time). */
  get size(): number {
    return this.byCluster.size;
  }

  /** The cluster's recorder, writing through `rest` (the cluster's clients of now: they too are built again). */
  for(cluster: string, rest: KubeRest): EventRecorder {
    const hit = this.byCluster.get(cluster);
    if (hit) {
      hit.writeThrough(rest);
      return hit;
    }
    const logger = this.o.logger?.child?.({ component: 'events', cluster }) ?? this.o.logger;
    const recorder = new EventRecorder(rest, {
      ...this.o.recorder,
      context: this.context,
      ...(logger && { logger }),
      ...(this.counters && { metrics: metricsFor(this.counters, cluster) }),
    });
    this.byCluster.set(cluster, recorder);
    return recorder;
  }

  /** Waits (bounded) until every cluster's buffer is written: before a Lambda freezes, or a process exits. */
  async flush(timeoutMs = 30_000): Promise<boolean> {
    const done = await Promise.all([...this.byCluster.values()].map((r) => r.flush(timeoutMs)));
    return done.every(Boolean);
  }

  async close(timeoutMs = 5_000): Promise<void> {
    await Promise.all([...this.byCluster.values()].map((r) => r.close(timeoutMs)));
  }
}

function countersIn(registry: Registry) {
  const existing = (name: string): Counter | undefined => registry.getSingleMetric(name) as Counter | undefined;
  const registers = [registry];
  return {
    dropped:
      existing('fleetq_events_dropped_total') ??
      new Counter({
        name: 'fleetq_events_dropped_total',
        help: 'Kubernetes Events not written: buffer_full (bounded buffer full) or write_failed',
        labelNames: ['cluster', 'reason'],
        registers,
      }),
    written:
      existing('fleetq_events_written_total') ??
      new Counter({
        name: 'fleetq_events_written_total',
        help: 'Kubernetes Events written: create (new Event) or patch (repeat, count + 1)',
        labelNames: ['cluster', 'verb'],
        registers,
      }),
    filtered:
      existing('fleetq_events_filtered_total') ??
      new Counter({
        name: 'fleetq_events_filtered_total',
        help: "Kubernetes Events skipped by client-go's per-object spam filter",
        labelNames: ['cluster'],
        registers,
      }),
  };
}

function metricsFor(c: ReturnType<typeof countersIn>, cluster: string): EventMetrics {
  return {
    dropped: (reason) => c.dropped.inc({ cluster, reason }),
    written: (verb) => c.written.inc({ cluster, verb }),
    filtered: () => c.filtered.inc({ cluster }),
  };
}
