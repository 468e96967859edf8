// EventAggregator: events that differ only in their message are similar. Once 10 distinct messages of one
// similar group were seen, each less than 10 minutes after the group's previous event, the group is written
// as one aggregate event, "(combined from similar events): <latest message>", whose count then goes up
// (defaultAggregateMaxEvents = 10, defaultAggregateIntervalInSeconds = 600). Time is an input.
//
// One deliberate difference: upstream drops an arbitrary message from a full group (PopAny over a Go map,
// random order); here the oldest one goes, so the outcome is reproducible.
import { aggregateKeys, eventKey } from './keys.js';
import { Lru } from './lru.js';
import { wireTime, type CoreEvent } from './types.js';

export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_SECONDS = 600;
export const AGGREGATE_PREFIX = '(combined from similar events): ';

type Group = { readonly messages: Set<string>; last: bigint };

export type Aggregated = {
  /** The event to write: the one given, or the group's aggregate event. */
  readonly event: CoreEvent;
  /** The key the dedup step counts it under: the event's own key, or the group's for an aggregate. */
  readonly key: string;
};

export class Aggregator {
  private readonly groups: Lru<Group>;

  constructor(
    cacheSize: number,
    private readonly maxEvents = AGGREGATE_MAX_EVENTS,
    private readonly intervalSeconds = AGGREGATE_INTERVAL_SECONDS,
  ) {
    this.groups = new Lru(cacheSize);
  }

  aggregate(e: CoreEvent, now: bigint): Aggregated {
    const { aggregateKey, localKey } = aggregateKeys(e);
    let group = this.groups.get(aggregateKey);
    if (group === undefined || now - group.last > BigInt(this.intervalSeconds) * 1_000_000_000n) {
      group = { messages: new Set(), last: 0n };
    }
    group.messages.add(localKey);
    group.last = now;
    this.groups.add(aggregateKey, group);
    if (group.messages.size < this.maxEvents) return { event: e, key: eventKey(e) };

    const oldest = group.messages.values().next();
    if (!oldest.done) group.messages.delete(oldest.value);
    const at = wireTime(now);
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${e.involvedObject.name}.${now.toString(16)}`, namespace: e.metadata.namespace },
      involvedObject: e.involvedObject,
      reason: e.reason,
      message: AGGREGATE_PREFIX + e.message,
      source: e.source,
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type: e.type,
      eventTime: null,
      // upstream's aggregate event copies neither reportingController nor reportingInstance
      reportingComponent: '',
      reportingInstance: '',
    };
    return { event, key: aggregateKey };
  }
}
