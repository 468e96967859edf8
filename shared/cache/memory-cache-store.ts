// The in-process CacheStore: `fleetq run`, where the forwarder and the workers share one process. Each method
// runs synchronously inside its promise, so one change is one atomic step for every reader. Time only goes
// forward as in the Redis store (cache-store.ts); no MACs and no fence: nothing outside the process writes here.
import { indexNames, type CacheEntry, type CachedObject } from './cache-entry.js';
import { KEPT_STATE_TTL_MS, type CacheChange, type CacheStore, type WriteRecord } from './cache-store.js';
import { compareResourceVersions, isComparableResourceVersion, maxResourceVersion } from './resource-version.js';

export type MemoryCacheStoreOptions = {
  /** Clock of the kept states' expiry (tests); default Date.now. */
  readonly now?: () => number;
  /** How long a kept state is kept; default KEPT_STATE_TTL_MS. */
  readonly keptStateTtlMs?: number;
};

export class MemoryCacheStore implements CacheStore {
  /** Kept states by id, oldest first (each one's expiry is its time of writing plus one TTL). */
  private readonly kept = new Map<string, { readonly object: CachedObject; readonly until: number }>();
  private readonly entries = new Map<string, CacheEntry>();
  private readonly indexes = new Map<string, Set<string>>();
  private readonly watermarks = new Map<string, string>();
  /** Kinds being relisted page by page: no watermark for readers until the relist ends. */
  private readonly relisting = new Set<string>();
  private readonly writes = new Map<string, WriteRecord>();

  constructor(private readonly o: MemoryCacheStoreOptions = {}) {}

  /** Objects held (for the cache-size gauge and tests). */
  get size(): number {
    return this.entries.size;
  }

  /** An event older than the object held (a watch replayed from a checkpoint after a warm list) changes nothing. */
  async put(entry: CacheEntry, resourceVersion: string, keep = false): Promise<void> {
    if (this.mayFile(entry)) {
      this.putNow(entry);
      if (keep) this.keepState(entry.id, entry.object);
    }
    this.advanceNow(entry.kind, resourceVersion);
  }

  async remove(kind: string, id: string, resourceVersion: string, kept?: CacheEntry): Promise<void> {
    if (!this.isOlderThanHeld(id, resourceVersion)) {
      this.removeNow(id);
      if (kept !== undefined) this.keepState(id, kept.object);
    }
    this.advanceNow(kind, resourceVersion);
  }

  async applyMany(_kind: string, changes: readonly CacheChange[]): Promise<void> {
    for (const c of changes) {
      if (c.type === 'put') await this.put(c.entry, c.resourceVersion, c.keep);
      else await this.remove(c.kind, c.id, c.resourceVersion, c.kept);
    }
  }

  async advance(kind: string, resourceVersion: string): Promise<void> {
    this.advanceNow(kind, resourceVersion);
  }

  async replace(kind: string, entries: readonly CacheEntry[], resourceVersion: string): Promise<void> {
    await this.beginReplace(kind);
    await this.putListed(entries);
    await this.endReplace(kind, new Set(entries.map((e) => e.id)), resourceVersion);
  }

  async beginReplace(kind: string): Promise<void> {
    this.relisting.add(kind);
  }

  async putListed(entries: readonly CacheEntry[]): Promise<void> {
    for (const e of entries) if (this.mayFile(e)) this.putNow(e);
  }

  async endReplace(kind: string, seenIds: ReadonlySet<string>, resourceVersion: string): Promise<void> {
    for (const id of [...(this.indexes.get(`all:${kind}`) ?? [])]) {
      // Not listed: deleted by the list's resourceVersion, unless changed after it.
      if (!seenIds.has(id) && !this.isNewerThan(id, resourceVersion)) this.removeNow(id);
    }
    // Reset in the middle of this relist: what it filed before is gone, and the next list sets the watermark.
    if (!this.relisting.delete(kind)) return;
    const current = this.watermarks.get(kind);
    this.watermarks.set(
      kind,
      compareResourceVersions(resourceVersion, current) === -1 ? (current as string) : resourceVersion,
    );
  }

  async reset(): Promise<void> {
    this.entries.clear();
    this.indexes.clear();
    this.watermarks.clear();
    this.relisting.clear();
    this.kept.clear();
  }

  async get(id: string): Promise<CachedObject | null> {
    return this.entries.get(id)?.object ?? null;
  }

  async keptState(id: string): Promise<CachedObject | null> {
    const kept = this.kept.get(id);
    return kept !== undefined && kept.until > this.now() ? kept.object : null;
  }

  async dropKeptState(id: string, resourceVersion: string): Promise<void> {
    const kept = this.kept.get(id);
    if (kept === undefined) return;
    const rv = kept.object.metadata?.resourceVersion;
    if (rv === resourceVersion || compareResourceVersions(rv, resourceVersion) === -1) this.kept.delete(id);
  }

  async members(indexName: string): Promise<CachedObject[]> {
    const ids = this.indexes.get(indexName);
    if (!ids) return [];
    return [...ids].flatMap((id) => {
      const e = this.entries.get(id);
      return e ? [e.object] : [];
    });
  }

  async watermark(kind: string): Promise<string | undefined> {
    return this.relisting.has(kind) ? undefined : this.watermarks.get(kind);
  }

  /** In-process: the forwarder and the readers live and die together. */
  async heartbeat(_ttlMs: number): Promise<void> {}

  async recordWrites(keyId: string, record: WriteRecord | null): Promise<void> {
    if (record === null) this.writes.delete(keyId);
    else this.writes.set(keyId, record);
  }

  async writesOf(keyId: string): Promise<WriteRecord | null> {
    return this.writes.get(keyId) ?? null;
  }

  async close(): Promise<void> {}

  /** Held: unless older than held. Not held: unless at or before the watermark (deleted since). */
  private mayFile(entry: CacheEntry): boolean {
    if (this.entries.has(entry.id)) return !this.isOlderThanHeld(entry.id, entry.resourceVersion);
    const c = compareResourceVersions(entry.resourceVersion, this.watermarks.get(entry.kind));
    return c === undefined || c > 0;
  }

  private isOlderThanHeld(id: string, resourceVersion: string): boolean {
    const held = this.entries.get(id);
    return held !== undefined && compareResourceVersions(resourceVersion, held.resourceVersion) === -1;
  }

  private isNewerThan(id: string, resourceVersion: string): boolean {
    const held = this.entries.get(id);
    return (
      held !== undefined &&
      isComparableResourceVersion(resourceVersion) &&
      compareResourceVersions(held.resourceVersion, resourceVersion) === 1
    );
  }

  private putNow(entry: CacheEntry): void {
    this.removeNow(entry.id);
    this.entries.set(entry.id, entry);
    for (const name of indexNames(entry)) {
      let set = this.indexes.get(name);
      if (!set) this.indexes.set(name, (set = new Set()));
      set.add(entry.id);
    }
  }

  private removeNow(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    for (const name of indexNames(old)) {
      const set = this.indexes.get(name);
      set?.delete(id);
      if (set?.size === 0) this.indexes.delete(name);
    }
  }

  /** Keeps a state (replacing the id's earlier one) and drops those expired, oldest first. */
  private keepState(id: string, object: CachedObject): void {
    const now = this.now();
    this.kept.delete(id);
    this.kept.set(id, { object, until: now + (this.o.keptStateTtlMs ?? KEPT_STATE_TTL_MS) });
    for (const [oldId, kept] of this.kept) {
      if (kept.until > now) break;
      this.kept.delete(oldId);
    }
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private advanceNow(kind: string, resourceVersion: string): void {
    const current = this.watermarks.get(kind);
    // Before the first list there is no watermark to advance: events alone do not make a kind readable.
    if (current === undefined) return;
    const next = maxResourceVersion(current, resourceVersion);
    if (next !== undefined) this.watermarks.set(kind, next);
  }
}
