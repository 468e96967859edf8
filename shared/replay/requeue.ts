// `fleetq replay requeue`: the keys of the events a cluster's log holds in a window, deduplicated, mapped the
// way the forwarder maps them (shared/forwarder/event-keys.ts, against a workload index and previous state
// rebuilt from the log). The log is read from its start up to the window's end, so that the index stands as
// it stood when each event of the window was seen; only events inside the window yield keys. A LISTED record
// maps as the forwarder maps a listed object (as ADDED), and goes into the index as one.
import { eventKeys, type KeyContext } from '../forwarder/event-keys.js';
import { PreviousState } from '../forwarder/previous-state.js';
import { WorkloadIndex } from '../forwarder/workload-index.js';
import type { KubeObject } from '../forwarder/resources.js';
import { keyString, type ReconcileKey } from '../kube/key.js';
import type { LogRecord } from '../queue/history/log-record.js';
import type { WorkQueue } from '../queue/work-queue.js';

export type WindowKeyOptions = {
  readonly cluster: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Only keys of this kind. */
  readonly kind?: string;
  readonly owns: ReadonlySet<string>;
  readonly handOver?: ReadonlySet<string>;
};

export type WindowKeys = {
  readonly keys: ReconcileKey[];
  /** Records of the window read (all types). */
  readonly events: number;
  /** Keys made from the log that are not valid reconcile keys (skipped, as the forwarder skips them). */
  readonly invalid: number;
};

function isObject(value: unknown): value is KubeObject {
  const metadata = (value as { metadata?: unknown } | null)?.metadata;
  return typeof metadata === 'object' && metadata !== null;
}

/** The window's keys, in first-seen order. `records` must be the cluster's log from before the window's start. */
export async function windowKeys(records: AsyncIterable<LogRecord>, o: WindowKeyOptions): Promise<WindowKeys> {
  const index = new WorkloadIndex();
  const previous = new PreviousState();
  const ctx: KeyContext = {
    cluster: o.cluster,
    owns: o.owns,
    ...(o.handOver && { handOver: o.handOver }),
    index,
  };
  const keys = new Map<string, ReconcileKey>();
  let events = 0;
  let invalid = 0;
  for await (const r of records) {
    if (r.cluster !== o.cluster || r.observedAt > o.toMs || !isObject(r.object)) continue;
    const type = r.type === 'LISTED' ? 'ADDED' : r.type;
    const object = r.object;
    if (r.observedAt >= o.fromMs) {
      events++;
      try {
        const before = previous.get(r.resource, object);
        const mapped = eventKeys(
          { type, resource: r.resource, object, ...(before === undefined ? {} : { previous: before }) },
          ctx,
        );
        invalid += mapped.invalid.length;
        for (const key of mapped.keys) if (o.kind === undefined || key.kind === o.kind) keys.set(keyString(key), key);
      } catch {
        invalid++; // unmappable (a resource this build does not know): skipped, as the forwarder skips it
      }
    }
    try {
      index.apply(r.resource, type, object);
      previous.apply(r.resource, type, object);
    } catch {
      // as above: an object the index cannot take leaves it as it was
    }
  }
  return { keys: [...keys.values()], events, invalid };
}

/** Adds each key to the live queue; returns how many. */
export async function requeue(queue: WorkQueue, keys: readonly ReconcileKey[]): Promise<number> {
  for (const key of keys) await queue.add(key);
  return keys.length;
}
