// client-go's eventLogger: an event seen before (by its key) becomes the same Event object with its count
// one higher, sent as a strategic merge patch of count, lastTimestamp and message (what
// CreateTwoWayMergePatch yields against a copy with count 0, lastTimestamp 0 and no message). The server's
// answer to every write updates the cache (updateState), under the answer's own event key.
import { eventKey } from './keys.js';
import { Lru } from './lru.js';
import type { CoreEvent } from './types.js';

type Observation = { count: number; firstTimestamp: string; name: string; resourceVersion: string };

export type EventPatch = { readonly count: number; readonly lastTimestamp: string; readonly message: string };

export type Observed = { readonly event: CoreEvent; readonly patch?: EventPatch };

export class Dedup {
  private readonly seen: Lru<Observation>;

  constructor(cacheSize: number) {
    this.seen = new Lru(cacheSize);
  }

  observe(e: CoreEvent, key: string): Observed {
    const event: CoreEvent = { ...e, metadata: { ...e.metadata } };
    const last = this.seen.get(key);
    let patch: EventPatch | undefined;
    if (last !== undefined && last.count > 0) {
      event.metadata.name = last.name;
      event.metadata.resourceVersion = last.resourceVersion;
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      patch = { count: event.count, lastTimestamp: event.lastTimestamp, message: event.message };
    }
    this.remember(key, event);
    return patch === undefined ? { event } : { event, patch };
  }

  /** The server's copy after a successful write. */
  updateState(server: CoreEvent): void {
    this.remember(eventKey(server), server);
  }

  private remember(key: string, e: CoreEvent): void {
    this.seen.add(key, {
      count: e.count,
      firstTimestamp: e.firstTimestamp,
      name: e.metadata.name,
      resourceVersion: e.metadata.resourceVersion ?? '',
    });
  }
}
