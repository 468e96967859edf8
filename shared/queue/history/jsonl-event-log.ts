// The event log as JSON-lines files: `<dir>/<cluster>/<segment start, UTC>.jsonl`, one segment per hour by
// default. An event goes to the segment of its observedAt. Retention: keep at most maxSegments segments per
// cluster and none that ended more than maxAgeMs ago; pruned whenever a new segment is started. Each line is at
// most maxEntryBytes (default 16 KiB): a larger object is logged as a truncated stub (boundedEventJson). Lines are
// log format v1 records (log-record.ts), redacted.
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_MAX_ENTRY_BYTES, type EventLog, type LoggedEvent } from './event-log.js';
import { decodeOrSkip, encodeRecord, type LogRecord, type OnMalformed, type RedactionPolicy } from './log-record.js';

export type JsonlEventLogOptions = {
  readonly dir: string;
  /** Segment length; default one hour. */
  readonly segmentMs?: number;
  /** Segments kept per cluster; default 168 (a week of hours). 0 keeps all. */
  readonly maxSegments?: number;
  /** Cap on one line's JSON; a larger object is logged as a truncated stub. Default 16 KiB; 0 = no cap. */
  readonly maxEntryBytes?: number;
  /** Segments that ended longer ago than this are deleted; default none. */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
  /** Redaction (log-record.ts): Secrets never logged, ConfigMap data only for clusters that opt in. */
  readonly redaction?: RedactionPolicy;
};

const SEGMENT_FILE = /^(\d{8}T\d{6}Z)\.jsonl$/;

export function segmentName(startMs: number): string {
  return `${new Date(startMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')}.jsonl`;
}

function segmentStart(file: string): number | undefined {
  const m = SEGMENT_FILE.exec(file);
  if (!m?.[1]) return undefined;
  const s = m[1];
  return Date.UTC(
    +s.slice(0, 4),
    +s.slice(4, 6) - 1,
    +s.slice(6, 8),
    +s.slice(9, 11),
    +s.slice(11, 13),
    +s.slice(13, 15),
  );
}

export class JsonlEventLog implements EventLog {
  private readonly segmentMs: number;
  private readonly now: () => number;
  /** Per cluster: appends run one after another, so lines never interleave. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly currentSegment = new Map<string, number>();

  constructor(private readonly options: JsonlEventLogOptions) {
    this.segmentMs = options.segmentMs ?? 3_600_000;
    this.now = options.now ?? Date.now;
    if (!(this.segmentMs > 0)) throw new RangeError(`segmentMs must be > 0, got ${this.segmentMs}`);
  }

  /**
   * The cluster's directory, one level below the log's: a cluster name that is not a single plain path segment
   * (`..`, a '/' or '\\', a NUL) would leave it, and is refused.
   */
  clusterDir(cluster: string): string {
    const plain =
      typeof cluster === 'string' &&
      cluster !== '' &&
      cluster !== '.' &&
      cluster !== '..' &&
      !/[/\\\0]/.test(cluster) &&
      relative(resolve(this.options.dir), resolve(this.options.dir, cluster)) === cluster;
    if (!plain) {
      throw new Error(
        `event log ${this.options.dir}: cluster name ${JSON.stringify(String(cluster).slice(0, 80))} is not a plain ` +
          'directory name (it would leave the log directory): refused',
      );
    }
    return join(this.options.dir, cluster);
  }

  append(cluster: string, events: readonly LoggedEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return this.enqueue(cluster, async () => {
      const bySegment = new Map<number, string[]>();
      for (const e of events) {
        const start = Math.floor(e.observedAt / this.segmentMs) * this.segmentMs;
        const line = encodeRecord(e, this.options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES, this.options.redaction);
        if (line === null) continue;
        let lines = bySegment.get(start);
        if (!lines) bySegment.set(start, (lines = []));
        lines.push(line);
      }
      if (bySegment.size === 0) return;
      await mkdir(this.clusterDir(cluster), { recursive: true });
      let started = false;
      for (const [start, lines] of bySegment) {
        await appendFile(join(this.clusterDir(cluster), segmentName(start)), lines.join('\n') + '\n');
        if (start > (this.currentSegment.get(cluster) ?? -1)) {
          this.currentSegment.set(cluster, start);
          started = true;
        }
      }
      if (started) await this.prune(cluster);
    });
  }

  async *read(cluster: string, fromMs: number, toMs: number, onMalformed?: OnMalformed): AsyncIterable<LogRecord> {
    await this.chains.get(cluster);
    for (const { file, start } of await this.segments(cluster)) {
      if (start + this.segmentMs <= fromMs || start > toMs) continue;
      const lines = createInterface({
        input: createReadStream(join(this.clusterDir(cluster), file)),
        crlfDelay: Infinity,
      });
      let lineNo = 0;
      for await (const line of lines) {
        lineNo++;
        if (line.trim() === '') continue;
        const record = decodeOrSkip(line, `${join(this.clusterDir(cluster), file)}:${lineNo}`, onMalformed);
        if (record && record.observedAt >= fromMs && record.observedAt <= toMs) yield record;
      }
    }
  }

  /** The cluster's segment files, oldest first. */
  async segments(cluster: string): Promise<{ file: string; start: number }[]> {
    let files: string[];
    try {
      files = await readdir(this.clusterDir(cluster));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return files
      .map((file) => ({ file, start: segmentStart(file) }))
      .filter((s): s is { file: string; start: number } => s.start !== undefined)
      .sort((a, b) => a.start - b.start);
  }

  /** Deletes segments beyond maxSegments and those older than maxAgeMs. */
  async prune(cluster: string): Promise<string[]> {
    const all = await this.segments(cluster);
    const maxSegments = this.options.maxSegments ?? 168;
    const cutoff = this.options.maxAgeMs === undefined ? -Infinity : this.now() - this.options.maxAgeMs;
    const doomed = all.filter(
      (s, i) => (maxSegments > 0 && i < all.length - maxSegments) || s.start + this.segmentMs <= cutoff,
    );
    for (const s of doomed) await rm(join(this.clusterDir(cluster), s.file), { force: true });
    return doomed.map((s) => s.file);
  }

  async close(): Promise<void> {
    await Promise.all(this.chains.values());
  }

  private enqueue(cluster: string, task: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(cluster) ?? Promise.resolve()).then(task);
    this.chains.set(
      cluster,
      next.catch(() => undefined),
    );
    return next;
  }
}
