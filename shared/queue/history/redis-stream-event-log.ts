// The event log as one Redis Stream per cluster, `fleetq:{<prefix>}:events:<cluster>`, entries `e` = JSON.
// Retention by count (XADD MAXLEN, approximate by default: Redis trims whole macro nodes, so the stream may
// hold up to ~100 entries more) and/or by age (XTRIM MINID after each append, approximate likewise unless
// trim is `exact`). Each entry is at most maxEntryBytes (default 16 KiB): a larger object is logged as a
// truncated stub (event-log.ts boundedEventJson), so a stream holds at most about maxLen × maxEntryBytes. The
// stream may live in its own Redis (FLEETQ_EVENT_LOG_REDIS_URL), apart from the queue's. Stream ids are the Redis
// server's append time, so read(from, to) selects by when the entry was appended (an import takes the records'
// observedAt instead). Entries are log format v1 records (log-record.ts), redacted.
import type { RedisClient } from '../redis/redis-connection.js';
import { DEFAULT_MAX_ENTRY_BYTES, type EventLog, type LoggedEvent } from './event-log.js';
import { decodeOrSkip, encodeRecord, type LogRecord, type OnMalformed, type RedactionPolicy } from './log-record.js';

export type RedisStreamEventLogOptions = {
  readonly redis: RedisClient;
  readonly prefix?: string;
  /** Keep about this many entries per cluster; default 100 000. 0 keeps all. */
  readonly maxLen?: number;
  /** Cap on one entry's JSON; a larger object is logged as a truncated stub. Default 16 KiB; 0 = no cap. */
  readonly maxEntryBytes?: number;
  /** Drop entries older than this; default none. */
  readonly maxAgeMs?: number;
  /** `exact` trims to exactly maxLen (costlier); default `approximate`. */
  readonly trim?: 'approximate' | 'exact';
  /** close() quits the client too. */
  readonly ownsClient?: boolean;
  readonly now?: () => number;
  /** Redaction (log-record.ts): Secrets never logged, ConfigMap data only for clusters that opt in. */
  readonly redaction?: RedactionPolicy;
};

const READ_BATCH = 500;

export function eventStreamKey(prefix: string, cluster: string): string {
  return `fleetq:{${prefix}}:events:${cluster}`;
}

export class RedisStreamEventLog implements EventLog {
  private readonly prefix: string;
  private readonly maxLen: number;
  private readonly now: () => number;

  constructor(private readonly options: RedisStreamEventLogOptions) {
    this.prefix = options.prefix ?? 'fleetq';
    this.maxLen = options.maxLen ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  key(cluster: string): string {
    return eventStreamKey(this.prefix, cluster);
  }

  async append(cluster: string, events: readonly LoggedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const key = this.key(cluster);
    const trim = this.maxLen > 0 ? ['MAXLEN', this.options.trim === 'exact' ? '=' : '~', String(this.maxLen)] : [];
    const lines = this.encode(events);
    if (lines.length === 0) return;
    const pipeline = this.options.redis.pipeline();
    for (const line of lines) pipeline.call('XADD', key, ...trim, '*', 'e', line);
    if (this.options.maxAgeMs !== undefined) {
      const minId = String(Math.max(0, Math.floor(this.now() - this.options.maxAgeMs)));
      pipeline.call('XTRIM', key, 'MINID', this.options.trim === 'exact' ? '=' : '~', minId);
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  /**
   * Appends records kept elsewhere (an import): each entry's id takes the record's observedAt, so read(from, to)
   * selects them by when they were observed. Records must not be older than the stream's newest entry.
   */
  async importRecords(cluster: string, records: readonly LoggedEvent[]): Promise<number> {
    const key = this.key(cluster);
    const pipeline = this.options.redis.pipeline();
    let n = 0;
    for (const record of records) {
      const [line] = this.encode([record]);
      if (line === undefined) continue;
      pipeline.call('XADD', key, `${Math.floor(record.observedAt)}-*`, 'e', line);
      n++;
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err !== null);
    if (failed?.[0]) {
      throw new Error(
        `import into ${key}: ${failed[0].message} (records must be newer than the stream's last entry; import into an empty prefix or stream)`,
        { cause: failed[0] },
      );
    }
    return n;
  }

  async *read(cluster: string, fromMs: number, toMs: number, onMalformed?: OnMalformed): AsyncIterable<LogRecord> {
    const key = this.key(cluster);
    let start = String(Math.max(0, Math.floor(fromMs)));
    const end = String(Math.floor(toMs));
    for (;;) {
      const entries = (await this.options.redis.xrange(key, start, end, 'COUNT', READ_BATCH)) as [string, string[]][];
      for (const [id, fields] of entries) {
        const json = fieldValue(fields, 'e');
        if (json === undefined) continue;
        const record = decodeOrSkip(json, `${key} entry ${id}`, onMalformed);
        if (record) yield record;
      }
      const last = entries.at(-1);
      if (entries.length < READ_BATCH || last === undefined) return;
      start = `(${last[0]}`;
    }
  }

  private encode(events: readonly LoggedEvent[]): string[] {
    const maxBytes = this.options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    const lines: string[] = [];
    for (const event of events) {
      const line = encodeRecord(event, maxBytes, this.options.redaction);
      if (line !== null) lines.push(line);
    }
    return lines;
  }

  /** Entries in the cluster's stream. */
  length(cluster: string): Promise<number> {
    return this.options.redis.xlen(this.key(cluster));
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await this.options.redis.quit();
  }
}

function fieldValue(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
