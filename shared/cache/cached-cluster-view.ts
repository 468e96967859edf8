// ClusterView over the forwarder's cache (the informer), with read-your-writes.
//
// Reads by index: get by name, a namespace's objects, a controller's dependents plus the orphans of a
// namespace (listControlledOrOrphaned: what claiming needs, never a whole namespace of pods over the API).
// A kind the cache does not hold (not watched for this cluster), a list with a field selector or a label
// selector string, a get asked to be fresh (the recheck before adopting), and the preflight guard's countControlled (an independent check must not share the read
// path it bounds) read live.
//
// Read-your-writes (part 2; part 1 is write-tracker.ts): before its first read, a key's view loads what the
// key's previous run wrote and waits, up to waitMs, until the cache has passed it: for each kind written, the
// kind's watermark is at least the highest resourceVersion the writes returned, and every deleted uid is gone
// (absent, replaced by another uid, or marked for deletion). On time-out the whole run reads live, and that is
// counted. Upstream differs in mechanism, not in goal: kube-controller-manager's expectations count creates
// and deletes until the informer has seen them, and since 1.36 (StaleControllerConsistency, KEP-5647) a
// controller also waits until its informer's resourceVersion passes its own last write before it syncs;
// fleetq keeps that record per reconcile key in the cache store, so it holds across processes and Lambdas.
import type { LiveClusterView } from '../kube/cluster-view.js';
import type { ApiObject } from '../kube/meta/object.js';
import type { ClusterView, ControlledOrOrphanedOptions, ListOptions } from '../kube/view.js';
import { entryId, index, type CachedObject } from './cache-entry.js';
import { UnverifiedCacheData, type CacheStore, type WriteRecord } from './cache-store.js';
import { compareResourceVersions } from './resource-version.js';

export type CacheReadSource = 'cache' | 'live';
/**
 * Why a read went live: the kind is not cached, not synced yet, the query needs the API, the wait timed out,
 * or the store could not be read (its Redis is down: the cache is a cache, live reads are always correct), or
 * the key's write record read back did not verify (rejected: its MAC, redis-cache-store.ts).
 */
export type LiveReason = 'not-cached' | 'not-synced' | 'query' | 'stale' | 'unavailable' | 'rejected';

export type CachedViewOptions = {
  readonly store: CacheStore;
  readonly live: LiveClusterView;
  /** Kinds the forwarder materializes for this cluster. */
  readonly cachedKinds: ReadonlySet<string>;
  /** Longest wait for the cache to pass a key's own writes; default 5 000. */
  readonly waitMs?: number;
  /** Poll interval while waiting; default 10. */
  readonly pollMs?: number;
  /** false removes the wait (tests only: it shows what read-your-writes prevents); default true. */
  readonly readYourWrites?: boolean;
  readonly onRead?: (e: { cluster: string; kind: string; source: CacheReadSource; reason?: LiveReason }) => void;
  readonly onWait?: (e: { cluster: string; seconds: number; outcome: 'caught-up' | 'timed-out' }) => void;
};

export class CachedClusterView implements ClusterView {
  private consistent: Promise<boolean> | undefined;

  constructor(
    private readonly o: CachedViewOptions,
    private readonly keyId?: string,
  ) {}

  get cluster(): string {
    return this.o.live.cluster;
  }

  /** The view one reconcile of `keyId` reads through: it first waits for the key's own writes. */
  forKey(keyId: string): CachedClusterView {
    return new CachedClusterView(this.o, keyId);
  }

  /**
   * After the run: records what this run wrote for the key's next run. Only a run whose reads saw the cache
   * pass the previous record (or that had none) replaces it; any other run (its wait timed out and it read
   * live, the store failed, or it never read) adds its writes to the previous record. Dropping an unmet
   * record would let the next run wait only for this run's writes, say a status write whose kind the cache
   * has already passed, and then read a cache still behind the earlier creates (and create them again).
   */
  async settle(written: WriteRecord | null): Promise<void> {
    if (this.keyId === undefined) return;
    if (this.consistent !== undefined && (await this.consistent)) {
      return this.o.store.recordWrites(this.keyId, written);
    }
    // A previous record that does not verify was not written by a run: only this run's writes are kept.
    const previous = await this.o.store.writesOf(this.keyId).catch((err: unknown) => {
      if (err instanceof UnverifiedCacheData) return null;
      throw err;
    });
    await this.o.store.recordWrites(this.keyId, mergeRecords(previous, written));
  }

  async get<T extends ApiObject>(
    kind: string,
    namespace: string,
    name: string,
    options: { readonly fresh?: boolean } = {},
  ): Promise<T | null> {
    return this.read(
      kind,
      options.fresh === true,
      async () => (await this.o.store.get(entryId(kind, namespace, name))) as T | null,
      () => this.o.live.get<T>(kind, namespace, name),
    );
  }

  /** From the cache when it may answer; otherwise null (a live read knows no kept states). */
  async keptState<T extends ApiObject>(kind: string, namespace: string, name: string): Promise<T | null> {
    return this.read(
      kind,
      false,
      async () => (await this.o.store.keptState(entryId(kind, namespace, name))) as T | null,
      async () => null,
    );
  }

  /** A failure throws: the pass fails and runs again, and the state is still kept for it. */
  async dropKeptState(kind: string, namespace: string, name: string, resourceVersion: string): Promise<void> {
    await this.o.store.dropKeptState(entryId(kind, namespace, name), resourceVersion);
  }

  async list<T extends ApiObject>(
    kind: string,
    namespace: string | undefined,
    options: ListOptions = {},
  ): Promise<T[]> {
    const query = options.labelSelector !== undefined || options.fieldSelector !== undefined;
    const name = namespace === undefined || namespace === '' ? index.all(kind) : index.namespace(kind, namespace);
    return this.read(
      kind,
      query,
      async () => sorted(await this.o.store.members(name)) as T[],
      () => this.o.live.list<T>(kind, namespace, options),
    );
  }

  async listControlledOrOrphaned<T extends ApiObject>(
    kind: string,
    namespace: string,
    controllerUid: string,
    options: ControlledOrOrphanedOptions = {},
  ): Promise<T[]> {
    return this.read(
      kind,
      false,
      async () => {
        const [owned, orphans, terminating] = await Promise.all([
          this.o.store.members(index.owner(kind, controllerUid)),
          this.o.store.members(index.orphans(kind, namespace)),
          options.terminating === true ? this.o.store.members(index.terminating(kind, namespace)) : [],
        ]);
        const found = [...owned.filter((o) => o.metadata?.namespace === namespace), ...orphans];
        const seen = new Set(found.map((o) => o.metadata?.name));
        return sorted([...found, ...terminating.filter((o) => !seen.has(o.metadata?.name))]) as T[];
      },
      () => this.o.live.listControlledOrOrphaned<T>(kind, namespace, controllerUid, options),
    );
  }

  countControlled<T extends ApiObject>(
    kind: string,
    namespace: string,
    controllerUid: string,
    accept?: (o: T) => boolean,
    options?: { readonly labelSelector?: string },
  ): Promise<number> {
    return this.o.live.countControlled<T>(kind, namespace, controllerUid, accept, options);
  }

  /** One read: from the cache when it may answer, else live (and why). */
  private async read<R>(kind: string, query: boolean, cached: () => Promise<R>, live: () => Promise<R>): Promise<R> {
    const goLive = (reason: LiveReason): Promise<R> => {
      this.o.onRead?.({ cluster: this.cluster, kind, source: 'live', reason });
      return live();
    };
    if (!this.o.cachedKinds.has(kind)) return goLive('not-cached');
    if (query) return goLive('query');
    let answer: R;
    try {
      if (!(await this.isConsistent())) return goLive('stale');
      if ((await this.o.store.watermark(kind)) === undefined) return goLive('not-synced');
      answer = await cached();
    } catch (err) {
      // The store cannot be read now (or the key's write record is not authentic); from here on this run reads
      // live (its own writes may be in neither).
      this.consistent = Promise.resolve(false);
      return goLive(err instanceof UnverifiedCacheData ? 'rejected' : 'unavailable');
    }
    this.o.onRead?.({ cluster: this.cluster, kind, source: 'cache' });
    return answer;
  }

  private isConsistent(): Promise<boolean> {
    this.consistent ??= this.waitForOwnWrites();
    return this.consistent;
  }

  private async waitForOwnWrites(): Promise<boolean> {
    if (this.keyId === undefined || this.o.readYourWrites === false) return true;
    const record = await this.o.store.writesOf(this.keyId);
    if (record === null) return true;
    const started = performance.now();
    const deadline = started + (this.o.waitMs ?? 5_000);
    for (;;) {
      if (await this.hasPassed(record)) {
        this.o.onWait?.({ cluster: this.cluster, seconds: (performance.now() - started) / 1000, outcome: 'caught-up' });
        return true;
      }
      if (performance.now() >= deadline) {
        this.o.onWait?.({ cluster: this.cluster, seconds: (performance.now() - started) / 1000, outcome: 'timed-out' });
        return false;
      }
      await new Promise((r) => setTimeout(r, this.o.pollMs ?? 10));
    }
  }

  /** Has the cache passed everything in the record (for the kinds it holds)? */
  private async hasPassed(record: WriteRecord): Promise<boolean> {
    for (const [kind, rv] of Object.entries(record.resourceVersions)) {
      if (!this.o.cachedKinds.has(kind)) continue;
      const c = compareResourceVersions(await this.o.store.watermark(kind), rv);
      if (c === undefined || c < 0) return false;
    }
    for (const d of record.deleted) {
      if (!this.o.cachedKinds.has(d.kind)) continue;
      const held = await this.o.store.get(entryId(d.kind, d.namespace, d.name));
      if (held && held.metadata?.uid === d.uid && !held.metadata?.deletionTimestamp) return false;
    }
    return true;
  }
}

export function mergeRecords(a: WriteRecord | null, b: WriteRecord | null): WriteRecord | null {
  if (a === null) return b;
  if (b === null) return a;
  const resourceVersions: Record<string, string> = { ...a.resourceVersions };
  for (const [kind, rv] of Object.entries(b.resourceVersions)) {
    const c = compareResourceVersions(resourceVersions[kind], rv);
    if (resourceVersions[kind] === undefined || c === undefined || c < 0) resourceVersions[kind] = rv;
  }
  return { resourceVersions, deleted: [...a.deleted, ...b.deleted] };
}

/** Stable order (namespace, name), as a list from the apiserver comes. */
function sorted(objects: CachedObject[]): CachedObject[] {
  const keyOf = (o: CachedObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  return objects.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}
