// `fleetq status`: one row per cluster of what an operator asks first. It reads what the metrics serve, from the
// shared stores rather than from any one process:
//   depth      keys waiting, ready or delayed, not held (workqueue_depth: the driver's depthBreakdown)
//   latency    queue latency: how long the key that has waited longest among the cluster's ready keys (due, not
//              delayed into the future, not held) has waited since its ready time, on the Redis server's clock:
//              the wait workqueue_queue_duration_seconds would record were it handed out now (the driver's
//              oldestReadyBreakdown, queue/oldest-ready.ts). `-` when no key is ready. Read from the first 100
//              entries of each ready list, in the order get() takes them: exact when the list is no longer, else a
//              lower bound (shown `≥`). SQS has no such figure (its ApproximateAgeOfOldestMessage is a CloudWatch
//              metric, not a queue attribute), so it shows none and says so.
//   in flight  keys held under a live lease, fleet-wide (the redis driver's lease set)
//   backoff    keys waiting out a failure or conflict backoff (fleetq_keys_in_backoff: backoffBreakdown)
//   dead       dead letters, by the cluster of their key (`(unparsed)` for a message that never was a key)
//   rec/s err/s reconciles and errors (retried or dead-lettered) per second over the last minute, from the
//              shared counters every reconciling process feeds (runtime/reconcile-rates.ts)
//   forwarder  the forwarder holding the cluster's watch lease in a pool (forwarder-status.ts; '-' when none does:
//              free, or watched by a forwarder outside a pool, which takes no lease)
//   writers    (wide) the lease tokens that wrote for the cluster, oldest first, from the list beside its keys in
//              its own queue shard (forwarder-status.ts forwarderWriters), then the lease's token
//   last event how long ago the forwarder last logged an event of the cluster (the newest entry of its event-log
//              stream, whose id is the Redis server's append time; the keys of an event are enqueued with it). A
//              watch event carries no time of its own, so this is what the stores can tell of the forwarder's
//              lag: a watch that fell behind or stopped shows as an old last event on a cluster that changes.
// Below the table, the forwarder pool's members, each with the digest of the registry it runs on; a member on
// another digest than the registry given to status (or, without one, than most members) is marked `old`: while
// members differ the pool takes, rebalances and drains nothing (forwarder-pool.ts). Then the quarantined clusters
// (their forwarder holders kept dying while syncing them: no member takes them until the quarantine ends or
// `fleetq forwarder unquarantine <cluster>` lifts it), with their deaths, since, until and the largest object.
// The redis driver shows all of it. SQS tells only approximate queue-wide counts (messages visible, delayed,
// in flight, dead), shown on a `*` row; the rest comes from Redis when REDIS_URL is reachable. The memory driver
// keeps its queue inside the process that runs it: there is nothing to read from outside, and status says so.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { eventStreamKey } from '../queue/history/redis-stream-event-log.js';
import { mergeOldestReady, READ_LIMITS, type OldestReadyBreakdown } from '../queue/oldest-ready.js';
import { shardQueueNames } from '../queue/queue-shards.js';
import { clusterAndKind } from '../queue/queue-options.js';
import { connectFailFast } from '../queue/redis/redis-connection.js';
import { redisKeyPrefix } from '../queue/redis/redis-keys.js';
import { RedisQueue } from '../queue/redis/redis-queue.js';
import { sqsQueueNames } from '../queue/sqs/sqs-setup.js';
import type { FleetqConfig } from '../runtime/config.js';
import { redactText } from '../kube/redact-secrets.js';
import {
  forwarderHolders,
  forwarderWriters,
  forwarderMembers,
  quarantinedClusters,
  type ForwarderMember,
  type QuarantinedCluster,
} from './forwarder-status.js';
import { PLAIN, textTable, type Align, type TextStyle } from './text-table.js';
import { displayText } from './terminal-text.js';
import { readReconcileRates } from '../runtime/reconcile-rates.js';

export const UNPARSED = '(unparsed)';
/** The row of queue-wide figures a driver cannot break down by cluster (SQS). */
export const ALL_CLUSTERS = '*';

export type ClusterStatus = {
  readonly cluster: string;
  /** The forwarder process holding this cluster's watch lease (a pool member), null when none holds it. */
  readonly forwarder: string | null;
  /** That lease's fencing token: it grows with each new holder. */
  readonly forwarderToken: number | null;
  /**
   * The lease tokens that wrote (enqueued or checkpointed) for the cluster, oldest first, read from its own queue
   * shard; absent when none did (or the driver keeps no leases).
   */
  readonly forwarderWriters?: readonly number[];
  /** ms since the forwarder last logged an event of this cluster (event-log stream), null when not known. */
  readonly lastEventAgeMs: number | null;
  readonly depth: number | null;
  /**
   * Queue latency (ms): how long the cluster's longest-waiting ready key (due, not delayed into the future, not
   * held) has waited since its ready time, on the store's clock. null when no key is ready, or the driver cannot
   * tell (sqs).
   */
  readonly oldestReadyAgeMs: number | null;
  /** oldestReadyAgeMs is a lower bound: the cluster had more ready keys than status reads (the first 100). */
  readonly oldestReadyLowerBound: boolean;
  readonly inFlight: number | null;
  readonly backoff: number | null;
  readonly deadLetters: number | null;
  readonly reconcilesPerSec: number | null;
  readonly errorsPerSec: number | null;
};

export type FleetStatus = {
  readonly at: string;
  readonly driver: FleetqConfig['FLEETQ_DRIVER'];
  readonly queue: string;
  /** The span the rates are over (ms), null when there are none. */
  readonly rateWindowMs: number | null;
  readonly clusters: readonly ClusterStatus[];
  /** The forwarder pool's live members and their registry digests (empty: no pool, or not read). */
  readonly forwarders?: readonly ForwarderMember[];
  /** Clusters the forwarder pool has quarantined (absent: none). */
  readonly quarantined?: readonly QuarantinedCluster[];
  /** What could not be read, in words (e.g. the memory driver). */
  readonly notes: readonly string[];
};

type StatusConfig = Pick<
  FleetqConfig,
  'FLEETQ_DRIVER' | 'FLEETQ_QUEUE' | 'REDIS_URL' | 'FLEETQ_REDIS_PREFIX' | 'FLEETQ_REDIS_TLS_CA' | 'SQS_ENDPOINT'
> &
  Partial<Pick<FleetqConfig, 'AWS_REGION' | 'SQS_WORK_URL' | 'SQS_DELAY_URL' | 'SQS_DEAD_URL' | 'FLEETQ_QUEUE_SHARDS'>>;

export type StatusOptions = {
  /** Clusters to show even with nothing queued (the registry's); clusters seen in the stores are added. */
  readonly clusters?: readonly string[];
  readonly now?: number;
  /** Rate window; default 60 s. */
  readonly rateWindowMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** The digest of the registry status was given (registryDigest): members on another one are marked old. */
  readonly registryDigest?: string;
};

type Row = { -readonly [K in keyof ClusterStatus]: ClusterStatus[K] };

function emptyRow(cluster: string, counted: boolean): Row {
  const zero = counted ? 0 : null;
  return {
    cluster,
    forwarder: null,
    forwarderToken: null,
    lastEventAgeMs: null,
    depth: zero,
    oldestReadyAgeMs: null,
    oldestReadyLowerBound: false,
    inFlight: zero,
    backoff: zero,
    deadLetters: zero,
    reconcilesPerSec: null,
    errorsPerSec: null,
  };
}

/** Opens what the driver keeps, reads it once, and closes it again. */
export async function collectStatus(config: StatusConfig, o: StatusOptions = {}): Promise<FleetStatus> {
  const now = o.now ?? Date.now();
  const notes: string[] = [];
  const byDriver = config.FLEETQ_DRIVER === 'redis';
  const rows = new Map<string, Row>();
  const row = (cluster: string): Row => {
    let r = rows.get(cluster);
    if (!r) rows.set(cluster, (r = emptyRow(cluster, byDriver)));
    return r;
  };
  for (const c of o.clusters ?? []) row(c);
  let rateWindowMs: number | null = null;
  let forwarders: ForwarderMember[] = [];
  let quarantined: QuarantinedCluster[] = [];

  if (config.FLEETQ_DRIVER === 'memory') {
    notes.push(
      'the memory driver keeps its queue inside the process that runs it (fleetq run): status needs a shared store, ' +
        'FLEETQ_DRIVER=redis or sqs',
    );
  } else {
    // Fail fast: a status that waits forever on an unreachable Redis helps nobody. With the redis driver an
    // unreachable Redis is the error; with sqs it only costs the rates and forwarders (a note).
    let redis: RedisClient | undefined;
    try {
      if (config.FLEETQ_DRIVER === 'redis') {
        redis = await connectFailFast(config);
        await readRedisQueue(redis, config, now, row, notes);
      } else await readSqsQueue(config, row, notes);
      try {
        redis ??= await connectFailFast(config);
        rateWindowMs = await readRates(redis, config, now, o.rateWindowMs ?? 60_000, row);
        await readForwarders(redis, config, now, o.env ?? process.env, rows, row);
        forwarders = await forwarderMembers(redis, config, o.registryDigest);
        const q = await quarantinedClusters(redis, config);
        quarantined = q.quarantined;
        for (const c of q.unreadable)
          notes.push(`forwarder death record of cluster ${c} does not parse: ignored (the pool treats it as absent)`);
        if (quarantined.length > 0)
          notes.push(
            'quarantined clusters are watched by no forwarder: fix or remove the object (or the registry entry), then ' +
              'fleetq forwarder unquarantine <cluster>',
          );
        if (forwarders.some((f) => f.current === false))
          notes.push(
            'forwarder pool members run on different registries: the pool takes, rebalances and drains nothing until ' +
              'they agree (a ConfigMap update still reaching the pods, or a registry that does not parse on a member: see its log)',
          );
      } catch (err) {
        if (config.FLEETQ_DRIVER === 'redis') throw err;
        notes.push(`Redis at REDIS_URL not readable (${String(err)}): no rates or forwarders`);
      }
    } finally {
      redis?.disconnect();
    }
  }
  const clusters = [...rows.values()].sort((a, b) =>
    a.cluster === ALL_CLUSTERS ? -1 : b.cluster === ALL_CLUSTERS ? 1 : a.cluster.localeCompare(b.cluster),
  );
  return {
    at: new Date(now).toISOString(),
    driver: config.FLEETQ_DRIVER,
    queue: config.FLEETQ_QUEUE,
    rateWindowMs,
    clusters,
    ...(forwarders.length > 0 && { forwarders }),
    ...(quarantined.length > 0 && { quarantined }),
    notes,
  };
}

/** Every shard's queue (queue-shards.ts; one queue without shards), its rows added up per cluster. */
async function readRedisQueue(
  redis: RedisClient,
  config: StatusConfig,
  now: number,
  row: (c: string) => Row,
  notes: string[],
): Promise<void> {
  const names = shardQueueNames(config.FLEETQ_QUEUE, config.FLEETQ_QUEUE_SHARDS ?? 1);
  const shards = await Promise.all(
    names.map((name) => readRedisShard(new RedisQueue({ name, prefix: config.FLEETQ_REDIS_PREFIX, redis }), now)),
  );
  for (const { depths, backoff, letters, live } of shards) {
    for (const d of depths) (row(d.cluster).depth as number) += d.depth;
    for (const b of backoff) row(b.cluster).backoff = (row(b.cluster).backoff ?? 0) + b.keys;
    for (const d of letters) {
      const r = row(d.key?.cluster ?? UNPARSED);
      r.deadLetters = (r.deadLetters ?? 0) + 1;
    }
    for (const id of live) {
      const r = row(clusterAndKind(id).cluster);
      r.inFlight = (r.inFlight ?? 0) + 1;
    }
  }
  applyLatency(mergeOldestReady(shards.map((s) => s.ready)), row, notes);
}

async function readRedisShard(queue: RedisQueue, now: number) {
  // The latency is read for the clusters with waiting keys: a ready key is a waiting one.
  const latency = queue.depthBreakdown().then(async (depths) => ({
    depths,
    ready: await queue.oldestReadyBreakdown(depths.filter((d) => d.depth > 0).map((d) => d.cluster)),
  }));
  const [{ depths, ready }, backoff, letters, live] = await Promise.all([
    latency,
    queue.backoffBreakdown(),
    queue.deadLetters(),
    queue.liveLeaseIds(now),
  ]);
  return { depths, ready, backoff, letters, live };
}

/** The latency figures into their rows, and what was left out into the notes. */
function applyLatency(ready: OldestReadyBreakdown, row: (c: string) => Row, notes: string[]): void {
  for (const r of ready.clusters) {
    const out = row(r.cluster);
    out.oldestReadyAgeMs = r.ageMs;
    out.oldestReadyLowerBound = !r.exact;
  }
  if (ready.clusters.some((r) => !r.exact))
    notes.push(
      `LATENCY ≥ is a lower bound: that cluster has more than ${READ_LIMITS.perList} ready keys and status reads the ` +
        `first ${READ_LIMITS.perList} (in the order get() takes them); a key put back out of order further down is not seen`,
    );
  if (ready.unusable > 0)
    notes.push(
      `${ready.unusable} ready key(s) have a stored ready time that is not a positive number no later than the Redis ` +
        "server's clock (a corrupt entry, or a clock that went back): left out of LATENCY",
    );
  if (ready.dueTruncated)
    notes.push(
      `more than ${READ_LIMITS.due} keys are past their delay but no get() has moved them to a ready list yet (are ` +
        `workers running?): LATENCY counts the ${READ_LIMITS.due} oldest, so a cluster may lack its figure`,
    );
}

/** SQS tells approximate counts of whole queues only: one `*` row. */
async function readSqsQueue(config: StatusConfig, row: (c: string) => Row, notes: string[]): Promise<void> {
  // Loaded here, not at start-up: `fleetq status` on the redis driver never needs the AWS SDK.
  const { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } = await import('@aws-sdk/client-sqs');
  const client = new SQSClient({
    region: config.AWS_REGION ?? 'us-east-1',
    ...(config.SQS_ENDPOINT !== undefined && { endpoint: config.SQS_ENDPOINT }),
    ...(config.SQS_ENDPOINT !== undefined &&
      !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  try {
    const names = sqsQueueNames(config.FLEETQ_QUEUE);
    const url = async (given: string | undefined, QueueName: string): Promise<string> =>
      given ?? (await client.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl ?? '';
    const attrs = async (QueueUrl: string): Promise<Record<string, number>> => {
      const out = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
      return Object.fromEntries(Object.entries(out.Attributes ?? {}).map(([k, v]) => [k, Number(v)]));
    };
    const [work, delay, dead] = await Promise.all([
      url(config.SQS_WORK_URL, names.work).then(attrs),
      url(config.SQS_DELAY_URL, names.delay).then(attrs),
      url(config.SQS_DEAD_URL, names.dead).then(attrs),
    ]);
    const n = (a: Record<string, number>, k: string): number => a[k] ?? 0;
    const all = row(ALL_CLUSTERS);
    all.depth =
      n(work, 'ApproximateNumberOfMessages') +
      n(work, 'ApproximateNumberOfMessagesDelayed') +
      n(delay, 'ApproximateNumberOfMessages') +
      n(delay, 'ApproximateNumberOfMessagesDelayed') +
      n(delay, 'ApproximateNumberOfMessagesNotVisible');
    all.inFlight = n(work, 'ApproximateNumberOfMessagesNotVisible');
    all.deadLetters = n(dead, 'ApproximateNumberOfMessages') + n(dead, 'ApproximateNumberOfMessagesNotVisible');
    notes.push(
      'sqs: approximate message counts of the whole queue (row *): depth = work visible + delayed + delay queue, ' +
        'in flight = work not visible (held, buffered by a consumer, or backing off), dead = dead-letter queue; ' +
        'none per cluster',
    );
    notes.push(
      'sqs: no LATENCY: the age of the oldest message (ApproximateAgeOfOldestMessage) is a CloudWatch metric of the ' +
        'whole queue, not an attribute GetQueueAttributes returns; read it in CloudWatch',
    );
  } finally {
    client.destroy();
  }
}

async function readRates(
  redis: RedisClient,
  config: StatusConfig,
  now: number,
  windowMs: number,
  row: (c: string) => Row,
): Promise<number> {
  const prefix = redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX);
  const { spanMs, clusters } = await readReconcileRates(redis, prefix, now, windowMs);
  for (const [cluster, r] of clusters) {
    if (cluster === ALL_CLUSTERS) continue;
    const out = row(cluster);
    out.reconcilesPerSec = r.reconcilesPerSec;
    out.errorsPerSec = r.errorsPerSec;
  }
  return spanMs;
}

async function readForwarders(
  redis: RedisClient,
  config: StatusConfig,
  now: number,
  env: NodeJS.ProcessEnv,
  rows: Map<string, Row>,
  row: (c: string) => Row,
): Promise<void> {
  const holders = await forwarderHolders(redis, config);
  for (const [cluster, h] of holders) {
    const r = row(cluster);
    r.forwarder = h.holder;
    r.forwarderToken = h.token;
  }
  const named = [...rows.keys()].filter((c) => c !== ALL_CLUSTERS && c !== UNPARSED);
  for (const [cluster, tokens] of await forwarderWriters(redis, config, named)) row(cluster).forwarderWriters = tokens;
  // The event log's stream ids are the Redis server's append times: the newest is when the forwarder last
  // logged (and enqueued the keys of) an event of that cluster.
  // Loaded once Redis answered: the forwarder's settings module is heavy, and a status that fails fails fast.
  const { loadForwarderConfig } = await import('../forwarder/forwarder-deps.js');
  const fwd = loadForwarderConfig(env);
  if (fwd.FLEETQ_EVENT_LOG !== 'redis') return;
  const logRedis = fwd.FLEETQ_EVENT_LOG_REDIS_URL
    ? await connectFailFast({
        REDIS_URL: fwd.FLEETQ_EVENT_LOG_REDIS_URL,
        FLEETQ_REDIS_TLS_CA: config.FLEETQ_REDIS_TLS_CA,
      })
    : redis;
  try {
    const prefix = `${config.FLEETQ_REDIS_PREFIX}:${config.FLEETQ_QUEUE}`;
    const clusters = [...rows.keys()].filter((c) => c !== ALL_CLUSTERS && c !== UNPARSED);
    const pipeline = logRedis.pipeline();
    for (const c of clusters) pipeline.xrevrange(eventStreamKey(prefix, c), '+', '-', 'COUNT', 1);
    const replies = (await pipeline.exec()) ?? [];
    clusters.forEach((c, i) => {
      const [err, entries] = replies[i] ?? [null, []];
      const id = !err && Array.isArray(entries) ? (entries[0] as [string, string[]] | undefined)?.[0] : undefined;
      if (id !== undefined) row(c).lastEventAgeMs = Math.max(0, now - Number(id.split('-')[0]));
    });
  } finally {
    if (logRedis !== redis) logRedis.disconnect();
  }
}

const num = (v: number | null): string => (v === null ? '-' : String(v));
/** The WRITERS cell: the last five tokens that wrote, oldest first, `…` before them when there were more. */
const writers = (v: readonly number[] | undefined): string =>
  v === undefined || v.length === 0 ? '-' : `${v.length > 5 ? '…' : ''}${v.slice(-5).join(',')}`;
const rate = (v: number | null): string => (v === null ? '-' : v >= 10 ? v.toFixed(0) : v.toFixed(2));

export function formatAge(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}

/** The LATENCY cell: the oldest ready key's age, `≥` before a lower bound, `-` when no key is ready or not known. */
export function formatLatency(c: Pick<ClusterStatus, 'oldestReadyAgeMs' | 'oldestReadyLowerBound'>): string {
  if (c.oldestReadyAgeMs === null) return '-';
  return `${c.oldestReadyLowerBound ? '≥' : ''}${formatAge(c.oldestReadyAgeMs)}`;
}

/**
 * The human table: one row per cluster (wide: with the tokens that wrote for it and its lease's token), then the pool's
 * members, the quarantined clusters and the notes. `style` makes the headings bold on a terminal.
 */
export function formatStatus(s: FleetStatus, o: { readonly wide?: boolean; readonly style?: TextStyle } = {}): string {
  const style = o.style ?? PLAIN;
  const header = [
    'CLUSTER',
    'FORWARDER',
    'LAST EVENT',
    'DEPTH',
    'LATENCY',
    'IN FLIGHT',
    'BACKOFF',
    'DEAD',
    'REC/S',
    'ERR/S',
  ];
  if (o.wide) header.push('WRITERS', 'TOKEN');
  // Cluster and holder names and the notes (Redis and SQS error text) come from outside: printed inert, redacted.
  const quarantined = new Set((s.quarantined ?? []).map((q) => q.cluster));
  const rows = s.clusters.map((c) => [
    displayText(c.cluster, 80),
    c.forwarder === undefined || c.forwarder === null
      ? quarantined.has(c.cluster)
        ? '(quarantined)'
        : '-'
      : displayText(c.forwarder, 80),
    c.lastEventAgeMs === null ? '-' : `${formatAge(c.lastEventAgeMs)} ago`,
    num(c.depth),
    formatLatency(c),
    num(c.inFlight),
    num(c.backoff),
    num(c.deadLetters),
    rate(c.reconcilesPerSec),
    rate(c.errorsPerSec),
    ...(o.wide ? [writers(c.forwarderWriters), num(c.forwarderToken)] : []),
  ]);
  const align = header.map((_, i): Align => (i < 3 ? 'left' : 'right'));
  const window = s.rateWindowMs === null ? '' : `, rates over ${formatAge(s.rateWindowMs)}`;
  const out = [`queue ${s.queue} (${s.driver}) at ${s.at}${window}`, textTable(header, rows, { align, style })];
  if (s.clusters.length === 0) out.push('(no clusters: nothing queued and no registry given)');
  if (s.forwarders && s.forwarders.length > 0) {
    const members = s.forwarders.map((f) => [
      displayText(f.holder, 80),
      f.digest?.slice(0, 12) ?? 'none',
      f.current === false ? 'old' : '',
    ]);
    out.push('', textTable(['FORWARDER', 'REGISTRY', ''], members, { style }));
  }
  if (s.quarantined && s.quarantined.length > 0) {
    const rows = s.quarantined.map((q) => [
      displayText(q.cluster, 80),
      String(q.deaths),
      q.since,
      q.until,
      q.largestObject?.object
        ? `${displayText(q.largestObject.resource ?? '?', 60)} ${displayText(q.largestObject.object, 160)} ` +
          `(${q.largestObject.bytes} bytes)`
        : 'none reported',
    ]);
    const head = ['QUARANTINED', 'DEATHS', 'SINCE', 'UNTIL', 'LARGEST OBJECT'];
    out.push('', textTable(head, rows, { style }));
  }
  for (const n of s.notes) out.push(`note: ${displayText(redactText(n), 1_000)}`);
  return out.join('\n');
}
