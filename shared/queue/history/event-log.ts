// The per-cluster event log (DESIGN.md "Replay"): every watch event the forwarder sees, with the object
// trimmed of metadata.managedFields, in the order seen. Relist snapshots are logged as LISTED entries so a
// replay can rebuild state from a known baseline. Drivers: redis-stream-event-log.ts, jsonl-event-log.ts.

export type LoggedEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';

export type LoggedEvent = {
  readonly type: LoggedEventType;
  readonly cluster: string;
  /** The API resource, e.g. `pods`. */
  readonly resource: string;
  /** Epoch ms when the forwarder observed it. */
  readonly observedAt: number;
  readonly object: unknown;
};

export interface EventLog {
  /** Appends in order; all events of one call belong to `cluster`'s log. */
  append(cluster: string, events: readonly LoggedEvent[]): Promise<void>;
  /** The events of one cluster observed in [fromMs, toMs], oldest first. */
  read(cluster: string, fromMs: number, toMs: number): AsyncIterable<LoggedEvent>;
  close(): Promise<void>;
}

/** A copy of `object` without metadata.managedFields (the bulk of most objects, and useless for replay). */
export function trimObject<T>(object: T): T {
  if (typeof object !== 'object' || object === null) return object;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata as Record<string, unknown>;
  return { ...object, metadata: rest };
}

export function isLoggedEvent(value: unknown): value is LoggedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === 'string' &&
    typeof v.cluster === 'string' &&
    typeof v.resource === 'string' &&
    typeof v.observedAt === 'number'
  );
}

/** Writes to several logs (e.g. a Redis stream for replay and JSON lines for archive); reads from the first. */
export class TeeEventLog implements EventLog {
  constructor(private readonly logs: readonly [EventLog, ...EventLog[]]) {}

  async append(cluster: string, events: readonly LoggedEvent[]): Promise<void> {
    await Promise.all(this.logs.map((l) => l.append(cluster, events)));
  }

  read(cluster: string, fromMs: number, toMs: number): AsyncIterable<LoggedEvent> {
    return this.logs[0].read(cluster, fromMs, toMs);
  }

  async close(): Promise<void> {
    await Promise.all(this.logs.map((l) => l.close()));
  }
}
