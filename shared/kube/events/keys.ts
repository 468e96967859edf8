// The three keys of client-go's events_cache.go, field for field (joined without a separator, as upstream).
import type { CoreEvent } from './types.js';

const source = (e: CoreEvent): string[] => [e.source.component, /* source.host */ ''];
const involved = (e: CoreEvent): string[] => [e.involvedObject.kind, e.involvedObject.namespace, e.involvedObject.name];
const identity = (e: CoreEvent): string[] => [e.involvedObject.uid, e.involvedObject.apiVersion];

/** getEventKey: identical events (same source, object, type, reason and message) share it. */
export function eventKey(e: CoreEvent): string {
  return [...source(e), ...involved(e), /* fieldPath */ '', ...identity(e), e.type, e.reason, e.message].join('');
}

/** getSpamKey: one token bucket per source and object, whatever the reason. */
export function spamKey(e: CoreEvent): string {
  return [...source(e), ...involved(e), ...identity(e)].join('');
}

/**
 * EventAggregatorByReasonFunc: similar events (all but the message equal) share the aggregate key; the
 * message is the local key counted towards aggregation.
 */
export function aggregateKeys(e: CoreEvent): { aggregateKey: string; localKey: string } {
  const aggregateKey = [
    ...source(e),
    ...involved(e),
    ...identity(e),
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ].join('');
  return { aggregateKey, localKey: e.message };
}
