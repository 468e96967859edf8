// CloudWatch Embedded Metric Format from the prom-client registry, for Lambda (nothing scrapes a function).
// At the end of each invocation the handler writes one JSON line per label set: counters as the increase since
// the last flush, histograms as their _sum and _count increases (CloudWatch gets no buckets), gauges as they
// stand. Only fleetq's own metrics (workqueue_*, fleetq_*) are written; nothing is written for a metric that did
// not move. The labels become dimensions, with `service`. Powertools Metrics would need its own metric objects
// beside the Prometheus ones the runtime already keeps, so the registry is translated instead.
import type { Registry } from 'prom-client';

export type EmfSink = (line: string) => void;

type Sample = {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
};

/** EMF allows at most 100 metrics in one record. */
const MAX_METRICS = 100;
const PREFIXES = ['workqueue_', 'fleetq_'];

export class EmfExporter {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly registry: Registry,
    private readonly o: { readonly namespace: string; readonly service: string; readonly now?: () => number },
  ) {}

  /** Writes the records (one line each) and returns how many. */
  async flush(sink: EmfSink = (line) => process.stdout.write(line + '\n')): Promise<number> {
    const groups = new Map<string, { labels: Record<string, string>; values: Array<[string, number, string]> }>();
    for (const metric of await this.registry.getMetricsAsJSON()) {
      if (!PREFIXES.some((p) => metric.name.startsWith(p))) continue;
      const type = String(metric.type);
      for (const sample of metric.values as Sample[]) {
        const name = sample.metricName ?? metric.name;
        if (type === 'histogram' && !(name.endsWith('_sum') || name.endsWith('_count'))) continue;
        const labels = Object.fromEntries(
          Object.entries(sample.labels)
            // CloudWatch refuses an empty dimension value: a label left empty is not a dimension.
            .filter(([k, v]) => k !== 'le' && k !== 'quantile' && String(v) !== '')
            .map(([k, v]) => [k, String(v)]),
        );
        const id = `${name}${JSON.stringify(sortedEntries(labels))}`;
        let value = sample.value;
        if (type !== 'gauge') {
          const before = this.last.get(id) ?? 0;
          this.last.set(id, sample.value);
          value = sample.value - before;
          if (value === 0) continue;
        }
        const groupId = JSON.stringify(sortedEntries(labels));
        const group = groups.get(groupId) ?? { labels, values: [] };
        group.values.push([name, value, unitOf(name)]);
        groups.set(groupId, group);
      }
    }
    let records = 0;
    const timestamp = (this.o.now ?? Date.now)();
    for (const { labels, values } of groups.values()) {
      for (let i = 0; i < values.length; i += MAX_METRICS) {
        const chunk = values.slice(i, i + MAX_METRICS);
        const record: Record<string, unknown> = {
          _aws: {
            Timestamp: timestamp,
            CloudWatchMetrics: [
              {
                Namespace: this.o.namespace,
                Dimensions: [['service', ...Object.keys(labels)]],
                Metrics: chunk.map(([Name, , Unit]) => ({ Name, Unit })),
              },
            ],
          },
          service: this.o.service,
          ...labels,
        };
        for (const [name, value] of chunk) record[name] = value;
        sink(JSON.stringify(record));
        records++;
      }
    }
    return records;
  }
}

function sortedEntries(labels: Record<string, string>): Array<[string, string]> {
  return Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
}

function unitOf(name: string): string {
  if (name.endsWith('_seconds_sum') || name.endsWith('_seconds')) return 'Seconds';
  if (name.endsWith('_total') || name.endsWith('_count')) return 'Count';
  return 'None';
}
