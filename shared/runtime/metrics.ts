// Reconcile and API metrics beside the queue's workqueue_* ones, and the /metrics endpoint that
// long-running processes serve.
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GaugeSample } from '../controllers/controller.js';
import type { RequestObserver } from '../kube/rest.js';
import type { ReconcileDeps } from './reconcile-one.js';

export type RuntimeMetrics = {
  readonly registry: Registry;
  readonly onOutcome: NonNullable<ReconcileDeps['onOutcome']>;
  readonly onRequest: RequestObserver;
  readonly onGauges: NonNullable<ReconcileDeps['onGauges']>;
};

export function runtimeMetrics(registry = new Registry(), withDefaults = true): RuntimeMetrics {
  if (withDefaults) collectDefaultMetrics({ register: registry });
  const reconciles = new Counter({
    name: 'fleetq_reconcile_total',
    help: 'Reconciles by outcome',
    labelNames: ['cluster', 'kind', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'fleetq_reconcile_duration_seconds',
    help: 'Time of one reconcile: observe, plan, apply',
    labelNames: ['cluster', 'kind'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const phases = new Histogram({
    name: 'fleetq_reconcile_phase_seconds',
    help: 'Time of one reconcile by phase (reconcile-phases.ts): queued, ownWrites, observe, plan, fence, budget, request, apply, settle, release, total',
    // No cluster label: at 14 buckets and up to 11 phases a kind, per cluster it was ~170 series for every cluster
    // a worker serves (a 22 MB /metrics at 1,000 clusters). fleetq_reconcile_duration_seconds stays per cluster.
    labelNames: ['kind', 'phase'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'fleetq_kube_requests_total',
    help: 'Kubernetes API requests by cluster, method and status code (0 = no answer)',
    labelNames: ['cluster', 'method', 'code'],
    registers: [registry],
  });
  return {
    registry,
    onOutcome: ({ cluster, kind, outcome, seconds, phases: ms }) => {
      reconciles.inc({ cluster, kind, outcome });
      duration.observe({ cluster, kind }, seconds);
      for (const [phase, v] of Object.entries(ms ?? {})) phases.observe({ kind, phase }, v / 1000);
    },
    onRequest: ({ cluster, method, code }) => requests.inc({ cluster, method, code: String(code) }),
    onGauges: controllerGauges(registry),
  };
}

/**
 * The gauges controllers report (PlanResult.gauges), each family made on its first sample with that sample's
 * label names. A sample whose labels do not fit its family is dropped rather than thrown (it is a bug to fix,
 * not a reason to fail a reconcile).
 */
function controllerGauges(registry: Registry): (samples: readonly GaugeSample[]) => void {
  const families = new Map<string, Gauge>();
  return (samples) => {
    for (const s of samples) {
      let g = families.get(s.name);
      if (g === undefined) {
        g = new Gauge({ name: s.name, help: s.help, labelNames: Object.keys(s.labels), registers: [registry] });
        families.set(s.name, g);
      }
      try {
        g.set(s.labels, s.value);
      } catch {
        // labels not those of the family
      }
    }
  };
}

/**
 * Drops every series of `registry` whose `cluster` label is `cluster` (a cluster removed from the registry: the
 * process serves it no more, and its series would stay on /metrics until a restart). Returns how many went.
 */
export async function forgetClusterSeries(registry: Registry, cluster: string): Promise<number> {
  let dropped = 0;
  for (const { name } of registry.getMetricsAsArray()) {
    const metric = registry.getSingleMetric(name);
    const labelNames = (metric as { labelNames?: readonly string[] } | undefined)?.labelNames ?? [];
    if (metric === undefined || !labelNames.includes('cluster')) continue;
    const { values } = await metric.get();
    const seen = new Set<string>();
    for (const { labels } of values) {
      if (labels.cluster !== cluster) continue;
      // A histogram's values carry `le` (and its _sum/_count no more): the series is its own label names' values.
      const own = Object.fromEntries(labelNames.map((n) => [n, String(labels[n] ?? '')]));
      const id = JSON.stringify(own);
      if (seen.has(id)) continue;
      seen.add(id);
      metric.remove(own);
      dropped++;
    }
  }
  return dropped;
}

/** Serves GET /metrics (Prometheus text) and GET /healthz on 127.0.0.1:port unless host is given. */
export async function serveMetrics(registry: Registry, port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    } else if (req.url === '/healthz') {
      res.writeHead(200).end('ok');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}
