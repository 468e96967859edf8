// What the `fleetq log` and `fleetq replay` actions share: the store a command reads (--store), its time window
// (--since, --until), the check that the store knows the cluster asked for, and the report of malformed records.
import { displayText } from '../../shared/ops/terminal-text.js';
import type { OnMalformed } from '../../shared/queue/history/log-record.js';
import type { LogStore } from '../../shared/replay/log-store.js';
import { configFromFlags, nearest, UsageError } from './common.js';

/** The store `--store` names (default: the forwarder's own setting, FLEETQ_EVENT_LOG, else redis). */
export async function openStoreFlag(store: string | undefined): Promise<LogStore> {
  return openStoreSpec(store ?? (process.env.FLEETQ_EVENT_LOG || 'redis'), '--store');
}

/**
 * The store `spec` names; a spec it refuses is bad usage naming `flag`. A Redis store's connection is made first and
 * fails within seconds, naming the URL without its password, when Redis does not answer (a command never hangs on
 * it, nor prints the client's retry errors).
 */
export async function openStoreSpec(spec: string, flag: string): Promise<LogStore> {
  const { checkLogName, isRedisLogStore, logStoreRedisUrl, openLogStore } =
    await import('../../shared/replay/log-store.js');
  const config = await configFromFlags({}, {});
  const refused = (err: unknown): UsageError =>
    new UsageError(`${flag} ${JSON.stringify(spec)}: ${err instanceof Error ? err.message : String(err)}`);
  if (!isRedisLogStore(spec)) {
    try {
      return openLogStore(spec, config);
    } catch (err) {
      throw refused(err);
    }
  }
  try {
    if (spec !== 'redis') checkLogName(spec.slice('redis:'.length));
  } catch (err) {
    throw refused(err);
  }
  const { connectFailFast } = await import('../../shared/queue/redis/redis-connection.js');
  const redis = await connectFailFast({ ...config, REDIS_URL: logStoreRedisUrl(config) });
  return openLogStore(spec, config, process.env, redis);
}

/** [--since, --until] in epoch ms; a time that does not parse is bad usage naming its flag. */
export async function windowFlags(
  since: string | undefined,
  until: string | undefined,
): Promise<{ fromMs: number; toMs: number }> {
  const { timeWindow, TimeArgumentError } = await import('../../shared/replay/time-window.js');
  try {
    return timeWindow(since, until, Date.now());
  } catch (err) {
    if (err instanceof TimeArgumentError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * Refuses a cluster the store holds no record of (a typo, or the wrong store), naming the clusters it has and
 * the nearest of them.
 */
export async function requireCluster(store: LogStore, cluster: string): Promise<void> {
  const clusters = await store.clusters();
  if (clusters.includes(cluster)) return;
  const near = nearest(cluster, clusters);
  const hint = near === undefined ? '' : `; did you mean ${near}?`;
  const has =
    clusters.length === 0
      ? ". It holds no cluster's records: is --store right? An imported log is --store redis:NAME"
      : ` (it holds ${clusters.join(', ')})`;
  throw new UsageError(
    `--cluster ${JSON.stringify(cluster)}: ${store.spec} has no record of this cluster${hint}${has}`,
  );
}

export async function* inWindow<T extends { observedAt: number }>(
  records: AsyncIterable<T>,
  from: number,
  to: number,
): AsyncIterable<T> {
  for await (const r of records) if (r.observedAt >= from && r.observedAt <= to) yield r;
}

/** Malformed records (not JSON, fields missing) are skipped and said on stderr: the first 5, then a count. */
export function malformedReporter(): {
  on: OnMalformed;
  summary: () => void;
  readonly count: () => number;
  readonly first: () => string | undefined;
} {
  let n = 0;
  let first: string | undefined;
  return {
    on: (err) => {
      first ??= err.message;
      // The message quotes the line: made inert, it cannot act on the terminal.
      if (++n <= 5) console.error(`fleetq: skipped a malformed record: ${displayText(err.message, 300)}`);
    },
    summary: () => {
      if (n > 0) console.error(`fleetq: skipped ${n} malformed record(s)`);
    },
    count: () => n,
    first: () => first,
  };
}
