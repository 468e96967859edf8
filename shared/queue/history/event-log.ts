// The per-cluster event log (DESIGN.md "Replay"): every watch event the forwarder sees, with the object
// trimmed of metadata.managedFields, in the order seen. Relist snapshots are logged as LISTED entries so a
// replay can rebuild state from a known baseline. Drivers: redis-stream-event-log.ts, jsonl-event-log.ts; the
// record format they both store, and redaction: log-record.ts.
import type { LogRecord, OnMalformed } from './log-record.js';
import type { LoggedEvent } from './logged-event.js';

// What is logged (logged-event.ts), said here too for the log's users.
export {
  boundedEventJson,
  DEFAULT_MAX_ENTRY_BYTES,
  isLoggedEvent,
  isTruncatedObject,
  trimObject,
} from './logged-event.js';
export type { LoggedEvent, LoggedEventType, TruncatedObject } from './logged-event.js';

export interface EventLog {
  /** Appends in order; all events of one call belong to `cluster`'s log. */
  append(cluster: string, events: readonly LoggedEvent[]): Promise<void>;
  /**
   * The records of one cluster observed in [fromMs, toMs], oldest first; an unknown format version throws, and so
   * does a malformed record unless `onMalformed` is given (then it is reported there and skipped).
   */
  read(cluster: string, fromMs: number, toMs: number, onMalformed?: OnMalformed): AsyncIterable<LogRecord>;
  close(): Promise<void>;
}

/** Writes to several logs (e.g. a Redis stream for replay and JSON lines for archive); reads from the first. */
export class TeeEventLog implements EventLog {
  constructor(private readonly logs: readonly [EventLog, ...EventLog[]]) {}

  async append(cluster: string, events: readonly LoggedEvent[]): Promise<void> {
    await Promise.all(this.logs.map((l) => l.append(cluster, events)));
  }

  read(cluster: string, fromMs: number, toMs: number, onMalformed?: OnMalformed): AsyncIterable<LogRecord> {
    return this.logs[0].read(cluster, fromMs, toMs, onMalformed);
  }

  async close(): Promise<void> {
    await Promise.all(this.logs.map((l) => l.close()));
  }
}
