// client-go's EventCorrelator (tools/record/events_cache.go) with an injected clock: aggregate similar events,
// count identical ones (a repeat is a PATCH of the existing Event), then apply the per source + object spam
// filter to what would be written. The order is upstream's: a filtered event still moved the aggregation and
// dedup state, so the next one written carries the full count. LRU caches of 4096 entries each.
import { Aggregator } from './aggregator.js';
import { Dedup, type EventPatch } from './dedup.js';
import { eventKey } from './keys.js';
import { SpamFilter } from './spam-filter.js';
import type { CoreEvent } from './types.js';

export const CORRELATOR_CACHE_SIZE = 4096;

export type Correlated =
  { readonly skip: true } | { readonly skip: false; readonly event: CoreEvent; readonly patch?: EventPatch };

export type CorrelatorOptions = {
  readonly cacheSize?: number;
  readonly spamBurst?: number;
  readonly spamQps?: number;
  readonly aggregateMaxEvents?: number;
  readonly aggregateIntervalSeconds?: number;
};

export class EventCorrelator {
  private readonly aggregator: Aggregator;
  private readonly dedup: Dedup;
  private readonly spam: SpamFilter;

  constructor(o: CorrelatorOptions = {}) {
    const size = o.cacheSize ?? CORRELATOR_CACHE_SIZE;
    this.aggregator = new Aggregator(size, o.aggregateMaxEvents, o.aggregateIntervalSeconds);
    this.dedup = new Dedup(size);
    this.spam = new SpamFilter(size, o.spamBurst, o.spamQps);
  }

  /**
   * What to write for `e` at `now`: a new Event (no patch), a patch of an existing one, or nothing. `uncorrelated`
   * (an event upstream records through events.k8s.io's recorder): neither aggregated nor spam-filtered, only a
   * repeat of an identical event counted.
   */
  correlate(e: CoreEvent, now: bigint, uncorrelated = false): Correlated {
    if (uncorrelated) {
      const repeat = this.dedup.observe(e, eventKey(e));
      return repeat.patch === undefined
        ? { skip: false, event: repeat.event }
        : { skip: false, event: repeat.event, patch: repeat.patch };
    }
    const aggregated = this.aggregator.aggregate(e, now);
    const observed = this.dedup.observe(aggregated.event, aggregated.key);
    if (this.spam.filter(observed.event, now)) return { skip: true };
    return observed.patch === undefined
      ? { skip: false, event: observed.event }
      : { skip: false, event: observed.event, patch: observed.patch };
  }

  /** After a successful write: the server's copy (its name and resourceVersion) for the next repeat. */
  updateState(server: CoreEvent): void {
    this.dedup.updateState(server);
  }
}
