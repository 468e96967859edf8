// Measures fleetq's in-process cache (`fleetq run`: MemoryCacheStore, filled by the forwarder) from the bench
// process that runs it:
// - lag: for each object version of one namespace, the time from when the bench's own watch of the apiserver
//   delivered the event to when the forwarder applied it to the cache (store put/remove). Both clocks are this
//   process'; the bench's watch stands in for the moment the event left the apiserver, so the figure is what
//   the forwarder adds on top of a plain watch (its batch queue, the cache, event log and enqueue round trips);
//   a negative sample means the bench's watch was the later of the two.
// - memory: the process heap after a forced GC, and the JSON size of the cached (trimmed) objects.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { index, type CacheEntry } from '../../../shared/cache/cache-entry.js';
import type { CacheStore } from '../../../shared/cache/cache-store.js';
import type { RawEvent } from '../bench/client.js';
import { max, percentile } from '../stats.js';

/** One object version: kind/namespace/name@resourceVersion. */
const versionKey = (id: string, rv: string): string => `${id}@${rv}`;

export class CacheLagProbe {
  /** Seen by only one side so far: the time it was seen there. */
  private readonly watched = new Map<string, number>();
  private readonly cached = new Map<string, number>();
  private readonly lags: number[] = [];
  private restore: (() => void) | undefined;

  constructor(
    private readonly store: CacheStore,
    private readonly namespace: string,
  ) {}

  /** Wraps the store's put and remove (the calls the forwarder's applyEvent makes). */
  start(): void {
    const store = this.store;
    const put = store.put.bind(store);
    const remove = store.remove.bind(store);
    store.put = (entry: CacheEntry, rv: string) => {
      if (entry.namespace === this.namespace) this.seenInCache(versionKey(entry.id, entry.resourceVersion));
      return put(entry, rv);
    };
    store.remove = (kind: string, id: string, rv: string) => {
      if (id.startsWith(`${kind}/${this.namespace}/`)) this.seenInCache(versionKey(id, rv));
      return remove(kind, id, rv);
    };
    this.restore = () => {
      store.put = put;
      store.remove = remove;
    };
  }

  stop(): void {
    this.restore?.();
    this.restore = undefined;
  }

  /** An event of the bench's own watch of `kind` in the namespace. */
  watchedEvent(kind: string, e: RawEvent, at: number): void {
    const m = e.object.metadata ?? {};
    if (!m.name || !m.resourceVersion) return;
    const key = versionKey(`${kind}/${m.namespace ?? ''}/${m.name}`, m.resourceVersion);
    const cachedAt = this.cached.get(key);
    if (cachedAt === undefined) this.watched.set(key, at);
    else {
      this.cached.delete(key);
      this.lags.push(cachedAt - at);
    }
  }

  private seenInCache(key: string): void {
    const at = Date.now();
    const watchedAt = this.watched.get(key);
    if (watchedAt === undefined) this.cached.set(key, at);
    else {
      this.watched.delete(key);
      this.lags.push(at - watchedAt);
    }
  }

  result(): { samples: number; p50: number | undefined; p99: number | undefined; max: number | undefined } & {
    onlyWatched: number;
    onlyCached: number;
  } {
    return {
      samples: this.lags.length,
      p50: percentile(this.lags, 0.5),
      p99: percentile(this.lags, 0.99),
      max: max(this.lags),
      onlyWatched: this.watched.size,
      onlyCached: this.cached.size,
    };
  }
}

let gc: (() => void) | undefined;

/** heapUsed after a full GC (V8's gc, exposed at run time). */
export function heapAfterGc(): number {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Objects of `kinds` in the store, and the JSON size of their cached (trimmed) form. */
export async function cachedObjects(
  store: CacheStore,
  kinds: readonly string[],
): Promise<{ objects: number; jsonBytes: number }> {
  let objects = 0;
  let jsonBytes = 0;
  for (const kind of kinds) {
    for (const o of await store.members(index.all(kind))) {
      objects++;
      jsonBytes += Buffer.byteLength(JSON.stringify(o));
    }
  }
  return { objects, jsonBytes };
}
