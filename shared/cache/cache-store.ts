// The per-cluster object cache the forwarder fills (applyEvent) and handlers read (CachedClusterView).
// Two stores implement it: MemoryCacheStore (`fleetq run`: forwarder and workers share a process, like
// kube-controller-manager's informers) and RedisCacheStore (split workers and Lambdas).
//
// Every change of one object, its indexes and its kind's watermark is one atomic step. The watermark of a
// kind is the resourceVersion the cache has caught up with for that kind's watch (events and bookmarks);
// absent until the first list completed, and during a relist.
//
// Time only goes forward, whoever writes (a forwarder that lost its lease and finishes late, a watch replayed
// from a checkpoint): an entry never replaces one with a newer resourceVersion, a delete older than the object
// held is ignored, an object not held whose resourceVersion is not past the watermark was deleted since (the
// cache is complete at its watermark) and is not brought back, and the watermark never moves back. Only reset()
// starts over: a cluster restored from a backup (cluster-identity.ts), whose resourceVersions went back.
import type { CacheEntry, CachedObject } from './cache-entry.js';

/** What a reconcile wrote, kept per reconcile key until its next run has seen it in the cache. */
export type WriteRecord = {
  /** Per kind, the highest resourceVersion the writes of that kind returned. */
  readonly resourceVersions: Readonly<Record<string, string>>;
  /** Objects deleted, by uid: the cache has caught up once each is gone, replaced or marked for deletion. */
  readonly deleted: ReadonlyArray<{
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
    readonly uid: string;
  }>;
};

/** How long a kept state is kept (cache-entry.ts keepsState): longer than a queued key waits. */
export const KEPT_STATE_TTL_MS = 300_000;

/** A value read back from a shared store that does not verify (a write record): the run that wanted it reads live. */
export class UnverifiedCacheData extends Error {
  override name = 'UnverifiedCacheData';
}

/** One change of a batch of watch events (applyMany): a put or a remove, with what put and remove take. */
export type CacheChange =
  | { readonly type: 'put'; readonly entry: CacheEntry; readonly resourceVersion: string; readonly keep?: boolean }
  | {
      readonly type: 'remove';
      readonly kind: string;
      readonly id: string;
      readonly resourceVersion: string;
      readonly kept?: CacheEntry;
    };

export interface CacheStore {
  /**
   * Adds or replaces one object (its indexes follow) and advances its kind's watermark to resourceVersion. `keep`:
   * the object is also kept as the id's kept state for a while (cache-entry.ts keepsState), unless the put is held
   * back.
   */
  put(entry: CacheEntry, resourceVersion: string, keep?: boolean): Promise<void>;
  /**
   * Removes one object and advances its kind's watermark. `kept`: the object as the delete event left it, kept as
   * the id's kept state for a while (cache-entry.ts keepsState), unless the removal is held back.
   */
  remove(kind: string, id: string, resourceVersion: string, kept?: CacheEntry): Promise<void>;
  /**
   * A batch of one kind's watch events, each as put or remove would apply it, taking effect in the order given:
   * a later change's watermark never gets ahead of an earlier change not yet filed (the Redis store sends a batch
   * as one script call).
   */
  applyMany(kind: string, changes: readonly CacheChange[]): Promise<void>;
  /** Advances a kind's watermark (a bookmark, or an event already applied). Never moves it back. */
  advance(kind: string, resourceVersion: string): Promise<void>;
  /**
   * A relist: the kind's objects become `entries`, and its watermark resourceVersion, except where the cache
   * already holds newer (above): objects changed after the list stay as held, objects deleted since stay deleted,
   * the watermark does not move back. Readers see no watermark while it runs.
   */
  replace(kind: string, entries: readonly CacheEntry[], resourceVersion: string): Promise<void>;
  /** Drops every object and watermark: the cluster's resourceVersions went back (restored from a backup). */
  reset(): Promise<void>;
  /**
   * A paged relist (the same outcome as replace, one page at a time, so no list is held whole): beginReplace
   * clears the kind's watermark (readers see none until endReplace), putListed files a page's objects, and
   * endReplace drops the kind's objects whose ids were not seen and sets the watermark. A reset between the two
   * leaves no watermark (what the relist filed before it is gone): the next list of the kind sets it.
   */
  beginReplace(kind: string): Promise<void>;
  putListed(entries: readonly CacheEntry[]): Promise<void>;
  endReplace(kind: string, seenIds: ReadonlySet<string>, resourceVersion: string): Promise<void>;

  get(id: string): Promise<CachedObject | null>;
  /** The id's kept state while it is kept (see put and remove), else null; the object held under the id may be newer. */
  keptState(id: string): Promise<CachedObject | null>;
  /**
   * Forgets the id's kept state once a pass has acted on it: only one whose resourceVersion is not past
   * `resourceVersion` (the one the pass read), so a newer state kept meanwhile stays.
   */
  dropKeptState(id: string, resourceVersion: string): Promise<void>;
  /** The objects filed under one index name (cache-entry.ts `index`). */
  members(indexName: string): Promise<CachedObject[]>;
  /**
   * undefined until the kind's first list completed, while it is relisted, and (a shared store) while no
   * forwarder keeps the cache alive: a cache nothing updates any more must not be read as current.
   */
  watermark(kind: string): Promise<string | undefined>;
  /** The forwarder filling this cache says it is running, for ttlMs (a shared store; in-process: nothing). */
  heartbeat(ttlMs: number): Promise<void>;

  /** Replaces the write record of a reconcile key (null clears it). */
  recordWrites(keyId: string, record: WriteRecord | null): Promise<void>;
  writesOf(keyId: string): Promise<WriteRecord | null>;
  close(): Promise<void>;
}
