// recorderImpl.makeEvent + generateEvent: the core/v1 Event for one recorded EventSpec, stamped with the time
// it was recorded. Its name is `<object>.<unix nanoseconds in hex>` (util.GenerateEventName: a random uuid
// when that is not a valid DNS subdomain); its namespace the object's ("default" for a cluster object);
// reportingComponent = source.component, reportingInstance = source.host (empty for the controllers).
import { randomUUID } from 'node:crypto';
import { wireTime, type CoreEvent, type EventSpec, type ResolvedEvent } from './types.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function eventName(objectName: string, nanos: bigint): string {
  const name = `${objectName}.${nanos.toString(16)}`;
  return name.length <= 253 && DNS_SUBDOMAIN.test(name) ? name : randomUUID();
}

/** The message once the write is done: `detail` (the created name, or the error) appended when asked for. */
export function resolveEvent(spec: EventSpec, detail?: string): ResolvedEvent {
  const { detail: wanted, ...rest } = spec;
  return wanted === undefined ? rest : { ...rest, message: spec.message + (detail ?? '') };
}

export function makeEvent(e: ResolvedEvent, nanos: bigint): CoreEvent {
  const t = wireTime(nanos);
  const r = e.regarding;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(r.name, nanos), namespace: r.namespace || 'default' },
    involvedObject: {
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      uid: r.uid,
      apiVersion: r.apiVersion,
      ...(r.resourceVersion !== undefined && { resourceVersion: r.resourceVersion }),
    },
    reason: e.reason,
    message: e.message,
    source: { component: e.source },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: e.type,
    eventTime: null,
    reportingComponent: e.source,
    reportingInstance: '',
  };
}
