// What a controller records (an EventSpec: the object it is about, Normal or Warning, a reason, a message),
// and the core/v1 Event that carries it to the apiserver. kube-controller-manager 1.37's deployment and
// replicaset controllers record through client-go's record.EventRecorder, i.e. core/v1 Events (not
// events.k8s.io/v1): that is what `kubectl describe` lists, and what this folder writes.
export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/**
 * ref.GetReference of the object an event is about (fieldPath is never set by these controllers): an ObjectRef of
 * actions.ts, which imports this file, with its apiVersion and uid.
 */
export type InvolvedObject = {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly uid: string;
  readonly resourceVersion?: string;
};

/** The InvolvedObject of an object of `kind`: its namespace, name and uid ('' when absent), and its resourceVersion. */
export function regardingObject(
  kind: string,
  apiVersion: string,
  metadata: { namespace?: string; name?: string; uid?: string; resourceVersion?: string } | undefined,
): InvolvedObject {
  return {
    kind,
    apiVersion,
    namespace: metadata?.namespace ?? '',
    name: metadata?.name ?? '',
    uid: metadata?.uid ?? '',
    ...(metadata?.resourceVersion !== undefined && { resourceVersion: metadata.resourceVersion }),
  };
}

/**
 * What the writer appends to an event's message once the write is done: the name the apiserver gave the
 * created object (pods are created with generateName, so `Created pod: <name>` is known only from the
 * response), or the error of a failed write (`Error creating: <apiserver message>`).
 */
export type MessageDetail = 'createdName' | 'error';

/** One event a controller records: `recorder.Eventf(regarding, type, reason, message)` with source `source`. */
export type EventSpec = {
  readonly regarding: InvolvedObject;
  /** EventSource.Component of the recorder, e.g. `replicaset-controller`. */
  readonly source: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly detail?: MessageDetail;
  /**
   * Which of client-go's recorders upstream records this event with. Absent: tools/record (core/v1), whose
   * correlator aggregates similar events and drops an object's events past its spam filter's burst.
   * 'events.k8s.io': tools/events (controller-runtime's GetEventRecorder, as lws), which does neither: every event
   * is written, a repeat of an identical one counted on it. fleetq still writes core/v1 Events for both.
   */
  readonly recorder?: 'events.k8s.io';
};

/** An EventSpec whose message is final (nothing left to append). */
export type ResolvedEvent = Omit<EventSpec, 'detail'>;

/** The core/v1 Event as written (only the fields client-go's recorder sets). */
export type CoreEvent = {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: {
    kind: string;
    namespace: string;
    name: string;
    uid: string;
    apiVersion: string;
    resourceVersion?: string;
  };
  reason: string;
  message: string;
  source: { component: string };
  /** RFC 3339, whole seconds (metav1.Time). */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  eventTime: null;
  reportingComponent: string;
  reportingInstance: string;
};

/** The injected clock: unix time in nanoseconds (event names carry it in hex, as client-go's). */
export type NanoClock = () => bigint;

export function nanosOf(date: Date): bigint {
  return BigInt(date.getTime()) * 1_000_000n;
}

export function dateOf(nanos: bigint): Date {
  return new Date(Number(nanos / 1_000_000n));
}

/** metav1.Time on the wire: RFC 3339 in whole seconds, UTC. */
export function wireTime(nanos: bigint): string {
  return dateOf(nanos)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

/** The clock of the process: wall time at sub-millisecond resolution. */
export const systemNanos: NanoClock = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
