// Prometheus metrics of the forwarder, on the default registry or an injected one. Created once per registry
// and shared by every Forwarder that uses it. A long-running forwarder also serves Node's process metrics
// (withProcessMetrics), as a worker does: CPU per event is process_cpu_seconds_total over
// fleetq_forwarder_events_total.
import { Counter, Gauge, collectDefaultMetrics, register as defaultRegistry, type Registry } from 'prom-client';
import { processRelistSlots } from './relist-slots.js';

export type ForwarderMetrics = {
  readonly events: Counter<'cluster' | 'resource' | 'type'>;
  readonly keys: Counter<'cluster' | 'kind'>;
  readonly relists: Counter<'cluster' | 'resource' | 'reason'>;
  readonly watchRestarts: Counter<'cluster' | 'resource' | 'reason'>;
  readonly errors: Counter<'cluster' | 'resource' | 'operation'>;
  readonly resyncs: Counter<'cluster'>;
  readonly invalidKeys: Counter<'cluster' | 'resource'>;
  readonly lastEvent: Gauge<'cluster' | 'resource'>;
  readonly trimmed: Counter<'cluster' | 'resource'>;
  readonly oversized: Counter<'cluster' | 'resource'>;
  readonly relistsWaiting: Gauge;
  readonly relistsRunning: Gauge;
};

const cache = new WeakMap<Registry, ForwarderMetrics>();

export function forwarderMetrics(registry: Registry = defaultRegistry): ForwarderMetrics {
  const cached = cache.get(registry);
  if (cached) return cached;
  const registers = [registry];
  const metrics: ForwarderMetrics = {
    events: new Counter({
      name: 'fleetq_forwarder_events_total',
      help: 'Watch events handled, by cluster, resource and type',
      labelNames: ['cluster', 'resource', 'type'],
      registers,
    }),
    keys: new Counter({
      name: 'fleetq_forwarder_keys_total',
      help: 'Reconcile keys added to the queue, by cluster and kind',
      labelNames: ['cluster', 'kind'],
      registers,
    }),
    relists: new Counter({
      name: 'fleetq_forwarder_relists_total',
      help: 'Full lists that enqueued every key (reason initial: no checkpoint; expired: 410 Gone)',
      labelNames: ['cluster', 'resource', 'reason'],
      registers,
    }),
    watchRestarts: new Counter({
      name: 'fleetq_forwarder_watch_restarts_total',
      help: 'Watches started again, by reason (ended, timeout, expired, error, overflow)',
      labelNames: ['cluster', 'resource', 'reason'],
      registers,
    }),
    errors: new Counter({
      name: 'fleetq_forwarder_errors_total',
      help: 'Failed operations, by operation (list, watch, identity, enqueue, park, event-log, checkpoint, resync)',
      labelNames: ['cluster', 'resource', 'operation'],
      registers,
    }),
    resyncs: new Counter({
      name: 'fleetq_forwarder_resyncs_total',
      help: 'Resyncs that enqueued every owned object: the periodic safety net, or one on a detected Redis data loss',
      labelNames: ['cluster'],
      registers,
    }),
    invalidKeys: new Counter({
      name: 'fleetq_forwarder_invalid_keys_total',
      help: 'Keys not enqueued because the object they were made from yields no valid key (parked as dead letters)',
      labelNames: ['cluster', 'resource'],
      registers,
    }),
    lastEvent: new Gauge({
      name: 'fleetq_forwarder_last_event_timestamp_seconds',
      help: 'When the last watch event or bookmark of a resource was handled',
      labelNames: ['cluster', 'resource'],
      registers,
    }),
    trimmed: new Counter({
      name: 'fleetq_forwarder_objects_trimmed_total',
      help: 'Objects trimmed before the forwarder held them (managedFields, large annotations dropped)',
      labelNames: ['cluster', 'resource'],
      registers,
    }),
    oversized: new Counter({
      name: 'fleetq_forwarder_oversized_objects_total',
      help: 'Watched objects over the per-object byte cap even trimmed: only their metadata was held',
      labelNames: ['cluster', 'resource'],
      registers,
    }),
    relistsWaiting: new Gauge({
      name: 'fleetq_forwarder_relists_waiting',
      help: 'Lists waiting for one of the process relist slots (FLEETQ_MAX_CONCURRENT_RELISTS)',
      registers,
      collect() {
        this.set(processRelistSlots().waiting);
      },
    }),
    relistsRunning: new Gauge({
      name: 'fleetq_forwarder_relists_running',
      help: 'Lists holding one of the process relist slots',
      registers,
      collect() {
        this.set(processRelistSlots().active);
      },
    }),
  };
  cache.set(registry, metrics);
  return metrics;
}

/**
 * Adds Node's default process metrics (process_cpu_seconds_total, process_resident_memory_bytes, nodejs_heap_*,
 * event-loop lag, GC) to `registry`, once: a registry that has them already (a worker's, runtime/metrics.ts, in the
 * all-in-one mode) is left as it is. Not for a scheduled Lambda, whose registry goes to CloudWatch as EMF.
 */
export function withProcessMetrics(registry: Registry): Registry {
  if (registry.getSingleMetric('process_cpu_seconds_total') === undefined)
    collectDefaultMetrics({ register: registry });
  return registry;
}
