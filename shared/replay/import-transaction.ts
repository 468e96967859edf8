// An import into a log store, all records or none. Records are written aside first (Redis: a temporary stream
// per cluster beside the target, same hash slot; JSON lines: a temporary directory beside the store's), then
// put in place at commit: Redis renames every temporary stream in one MULTI under WATCH of the targets, files
// rename each cluster's directory. A target that already holds records of a cluster refuses the whole import
// before anything is put in place, unless `replace` is asked for (then the target's records of that cluster are
// replaced). Anything that fails before commit leaves the target as it was and removes what was written aside.
//
// Why not append to the target directly: a stream's ids must grow, so a second import of the same file fails on
// its first record that is not newer than the stream's last entry. A pipeline is not a transaction, so the
// records before the failure stayed: half an import. Written aside and renamed, a refusal writes nothing.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { scanAllNodes, type RedisClient } from '../queue/redis/redis-connection.js';
import type { LoggedEvent } from '../queue/history/event-log.js';
import { JsonlEventLog } from '../queue/history/jsonl-event-log.js';
import { encodeRecord } from '../queue/history/log-record.js';
import { eventStreamKey } from '../queue/history/redis-stream-event-log.js';

export interface ImportTransaction {
  /** Writes records of `cluster` aside; returns how many will be imported (a Secret is never logged). */
  write(cluster: string, records: readonly LoggedEvent[]): Promise<number>;
  /** Puts everything written in place, or throws ImportConflictError and puts nothing in place. */
  commit(): Promise<void>;
  /** Removes what was written aside. */
  abort(): Promise<void>;
}

/** The target already holds records of a cluster the import has (and replace was not asked for). */
export class ImportConflictError extends Error {
  override name = 'ImportConflictError';
  constructor(
    readonly spec: string,
    readonly clusters: readonly string[],
  ) {
    super(
      `${spec} already holds records of ${clusters.join(', ')}: nothing imported. Import into another log ` +
        '(--into NAME), or replace what it holds of those clusters with --replace',
    );
  }
}

/** Temporary streams expire on their own if the command dies between write and commit. */
const ASIDE_TTL_MS = 3_600_000;
const MAX_COMMIT_TRIES = 5;

export class RedisImportTransaction implements ImportTransaction {
  private readonly id = randomUUID();
  /** cluster → the last entry time written aside (ids must grow: an earlier record takes this time). */
  private readonly lastMs = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly spec: string,
    private readonly replace: boolean,
  ) {}

  private aside(cluster: string): string {
    // Same hash tag as the target (eventStreamKey), so RENAME works on a Redis Cluster too.
    return `fleetq:{${this.prefix}}:importing:${this.id}:${cluster}`;
  }

  async write(cluster: string, records: readonly LoggedEvent[]): Promise<number> {
    const key = this.aside(cluster);
    const pipeline = this.redis.pipeline();
    let last = this.lastMs.get(cluster) ?? 0;
    let n = 0;
    for (const record of records) {
      const line = encodeRecord(record, 0);
      if (line === null) continue;
      // The entry id is the record's time, so a window selects by observedAt; a record a few ms out of order
      // (two appends of the forwarder racing) takes its predecessor's time instead of failing the import.
      last = Math.max(last, Math.floor(record.observedAt));
      pipeline.call('XADD', key, `${last}-*`, 'e', line);
      n++;
    }
    if (n === 0) return 0;
    pipeline.pexpire(key, ASIDE_TTL_MS);
    this.lastMs.set(cluster, last);
    const failed = ((await pipeline.exec()) ?? []).find(([err]) => err !== null);
    if (failed?.[0]) throw new Error(`import into ${this.spec}: ${failed[0].message}`, { cause: failed[0] });
    return n;
  }

  async commit(): Promise<void> {
    const clusters = [...this.lastMs.keys()];
    if (clusters.length === 0) return;
    const targets = clusters.map((c) => eventStreamKey(this.prefix, c));
    for (let attempt = 1; attempt <= MAX_COMMIT_TRIES; attempt++) {
      await this.redis.watch(...targets);
      const lengths = await Promise.all(targets.map((t) => this.redis.xlen(t)));
      const held = clusters.filter((_, i) => (lengths[i] ?? 0) > 0);
      if (held.length > 0 && !this.replace) {
        await this.redis.unwatch();
        throw new ImportConflictError(this.spec, held);
      }
      const multi = this.redis.multi();
      clusters.forEach((c, i) => multi.rename(this.aside(c), targets[i] as string).persist(targets[i] as string));
      // null: a target changed between WATCH and EXEC (a writer appended): look again.
      if ((await multi.exec()) !== null) return;
    }
    throw new Error(`import into ${this.spec}: the log kept changing while importing; nothing imported. Try again`);
  }

  async abort(): Promise<void> {
    const keys = [...this.lastMs.keys()].map((c) => this.aside(c));
    if (keys.length > 0) await this.redis.del(...keys);
  }
}

export class JsonlImportTransaction implements ImportTransaction {
  private readonly asideDir: string;
  private readonly aside: JsonlEventLog;
  private readonly written = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly spec: string,
    private readonly replace: boolean,
  ) {
    // Beside the store's directory (the same file system, so a rename moves it), hidden from its readers.
    this.asideDir = join(dirname(dir), `.${basename(dir)}.importing-${randomUUID()}`);
    this.aside = new JsonlEventLog({ dir: this.asideDir, maxSegments: 0, maxEntryBytes: 0 });
  }

  async write(cluster: string, records: readonly LoggedEvent[]): Promise<number> {
    const n = records.filter((r) => encodeRecord(r, 0) !== null).length;
    if (n === 0) return 0;
    await this.aside.append(cluster, records);
    this.written.add(cluster);
    return n;
  }

  async commit(): Promise<void> {
    const clusters = [...this.written];
    const target = new JsonlEventLog({ dir: this.dir, maxSegments: 0 });
    const held: string[] = [];
    for (const c of clusters) if ((await target.segments(c)).length > 0) held.push(c);
    if (held.length > 0 && !this.replace) {
      await this.abort();
      throw new ImportConflictError(this.spec, held);
    }
    await mkdir(this.dir, { recursive: true });
    for (const c of clusters) {
      const to = target.clusterDir(c);
      if (existsSync(to)) await rename(to, join(this.asideDir, `.replaced-${c}`));
      await rename(this.aside.clusterDir(c), to);
    }
    await this.abort();
  }

  async abort(): Promise<void> {
    await rm(this.asideDir, { recursive: true, force: true });
  }
}

/** The clusters a JSON-lines store holds records of: its directories with at least one segment. */
export async function jsonlClusters(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const log = new JsonlEventLog({ dir, maxSegments: 0 });
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith('.') || e.name.startsWith('_')) continue;
    if ((await log.segments(e.name)).length > 0) out.push(e.name);
  }
  return out.sort();
}

/** The clusters a Redis store (live streams or a named log) holds records of. */
export async function redisClusters(redis: RedisClient, prefix: string): Promise<string[]> {
  const head = eventStreamKey(prefix, '');
  const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const out = new Set<string>();
  // Every primary of a Redis Cluster (the streams share one hash tag, so one node holds them).
  await scanAllNodes(redis, pattern, (keys) => {
    for (const key of keys) {
      const cluster = key.slice(head.length);
      if (cluster !== '' && !cluster.includes(':')) out.add(cluster);
    }
  });
  const clusters = [...out].sort();
  const lengths = await Promise.all(clusters.map((c) => redis.xlen(eventStreamKey(prefix, c)).catch(() => 0)));
  return clusters.filter((_, i) => (lengths[i] ?? 0) > 0);
}
