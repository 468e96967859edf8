// The in-process CacheStore: `fleetq run`, where the forwarder and the workers share one process. Each method
// runs synchronously inside its promise, so one change is one atomic step for every reader.
import { indexNames, type CacheEntry, type CachedObject } from './cache-entry.js';
import type { CacheStore, WriteRecord } from './cache-store.js';
import { compareResourceVersions, maxResourceVersion } from './resource-version.js';

export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly indexes = new Map<string, Set<string>>();
  private readonly watermarks = new Map<string, string>();
  private readonly writes = new Map<string, WriteRecord>();

  /** Objects held (for the cache-size gauge and tests). */
  get size(): number {
    return this.entries.size;
  }

  /** An event older than the object held (a watch replayed from a checkpoint after a warm list) changes nothing. */
  async put(entry: CacheEntry, resourceVersion: string): Promise<void> {
    if (!this.isOlderThanHeld(entry.id, entry.resourceVersion)) this.putNow(entry);
    this.advanceNow(entry.kind, resourceVersion);
  }

  async remove(kind: string, id: string, resourceVersion: string): Promise<void> {
    if (!this.isOlderThanHeld(id, resourceVersion)) this.removeNow(id);
    this.advanceNow(kind, resourceVersion);
  }

  async advance(kind: string, resourceVersion: string): Promise<void> {
    this.advanceNow(kind, resourceVersion);
  }

  async replace(kind: string, entries: readonly CacheEntry[], resourceVersion: string): Promise<void> {
    const keep = new Set(entries.map((e) => e.id));
    for (const id of [...(this.indexes.get(`all:${kind}`) ?? [])]) if (!keep.has(id)) this.removeNow(id);
    for (const e of entries) this.putNow(e);
    this.watermarks.set(kind, resourceVersion);
  }

  async beginReplace(kind: string): Promise<void> {
    this.watermarks.delete(kind);
  }

  async putListed(entries: readonly CacheEntry[]): Promise<void> {
    for (const e of entries) this.putNow(e);
  }

  async endReplace(kind: string, seenIds: ReadonlySet<string>, resourceVersion: string): Promise<void> {
    for (const id of [...(this.indexes.get(`all:${kind}`) ?? [])]) if (!seenIds.has(id)) this.removeNow(id);
    this.watermarks.set(kind, resourceVersion);
  }

  async get(id: string): Promise<CachedObject | null> {
    return this.entries.get(id)?.object ?? null;
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
    return this.watermarks.get(kind);
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

  private isOlderThanHeld(id: string, resourceVersion: string): boolean {
    const held = this.entries.get(id);
    return held !== undefined && compareResourceVersions(resourceVersion, held.resourceVersion) === -1;
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

  private advanceNow(kind: string, resourceVersion: string): void {
    const current = this.watermarks.get(kind);
    // Before the first list there is no watermark to advance: events alone do not make a kind readable.
    if (current === undefined) return;
    const next = maxResourceVersion(current, resourceVersion);
    if (next !== undefined) this.watermarks.set(kind, next);
  }
}
