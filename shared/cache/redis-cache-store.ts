// The Redis CacheStore: split workers and Lambdas read what the forwarder materialized. One Lua script per
// event (redis-cache-scripts.ts): an object, its index entries and its kind's watermark change together.
// A relist marks the kind as relisting first (readers wait, or read live), files the listed objects in batches,
// drops the rest, and clears the mark last. The forwarder that fills it refreshes an `alive` key (heartbeat);
// without it every watermark reads as absent, so a cache left behind by a stopped or dead forwarder is never
// read as current (readers go live until a forwarder lists it again).
//
// Trust: what is read back from Redis is untrusted. With signing secrets, every entry, watermark and write record
// carries a MAC (cache-mac.ts) checked on every read; one that does not verify is a miss (an entry: absent; a
// watermark: not synced, so readers go live; a write record: an error, so the run reads live), is reported to
// onRejected, and is never returned. With a fence (cache-fence.ts), every write script first compares the
// forwarder's lease, so a forwarder that lost its lease writes nothing.
import { scanAllNodes, type RedisClient } from '../queue/redis/redis-connection.js';
import { ScriptRunner, type Reply } from '../lua/script-runner.js';
import { indexNames, type CacheEntry, type CachedObject } from './cache-entry.js';
import type { CacheFence, FenceableCacheStore } from './cache-fence.js';
import { CacheMac, MAC_HEX_LENGTH, type MacPurpose } from './cache-mac.js';
import { KEPT_STATE_TTL_MS, UnverifiedCacheData, type CacheChange, type WriteRecord } from './cache-store.js';
import { CACHE_SCRIPTS, type CacheScriptName } from './redis-cache-scripts.js';

/** Why a value read back from Redis was not used. */
export type RejectionReason = 'missing-mac' | 'bad-mac' | 'malformed' | 'index';

export type CacheRejection = {
  readonly cluster: string;
  readonly what: MacPurpose;
  /** The entry id, the kind (watermark) or the reconcile key (write record); never the value. */
  readonly id: string;
  readonly reason: RejectionReason;
};

export type RedisCacheStoreOptions = {
  readonly redis: RedisClient;
  readonly cluster: string;
  /** Key prefix before the hash tag; default `fleetq`. */
  readonly prefix?: string;
  /** How long a write record is kept when no run reads it; default 600 000 (10 min). */
  readonly writeRecordTtlMs?: number;
  /** How long a kept state is kept (cache-entry.ts keepsState); default KEPT_STATE_TTL_MS. */
  readonly keptStateTtlMs?: number;
  /** Close the client on close(); default false. */
  readonly ownsClient?: boolean;
  /**
   * The queue's signing secrets (the current one first, then a rotation's previous one): values written carry a
   * MAC made with the first, values read must verify with one of them. Empty or absent: no MACs (as before).
   */
  readonly signingSecrets?: readonly string[];
  /** Values read back that did not verify (counted and logged by the caller; cluster-caches.ts). */
  readonly onRejected?: (e: CacheRejection) => void;
  /** The lease the writes go through (a pooled forwarder's); absent: no fence. */
  readonly fence?: CacheFence;
};

const BATCH = 200;
const WRITE_ATTEMPTS = 3;
/** Clock skew allowed between a forwarder and the readers of its heartbeat. */
const ALIVE_SKEW_MS = 5_000;

export function redisCachePrefix(cluster: string, prefix = 'fleetq'): string {
  if (/[{}]/.test(cluster)) throw new RangeError(`cluster name ${JSON.stringify(cluster)} must not contain { or }`);
  return `${prefix}:{cache:${cluster}}:`;
}

type Blocked = { readonly id: string; readonly type: 'e' | 'w'; readonly value: string };

export class RedisCacheStore implements FenceableCacheStore {
  readonly prefix: string;
  private readonly redis: RedisClient;
  private readonly scripts: ScriptRunner<CacheScriptName>;
  private readonly ttlMs: number;
  private readonly mac: CacheMac | undefined;
  private readonly cluster: string;

  constructor(private readonly o: RedisCacheStoreOptions) {
    this.redis = o.redis;
    this.cluster = o.cluster;
    this.prefix = redisCachePrefix(o.cluster, o.prefix);
    this.scripts = new ScriptRunner(this.redis, `${this.prefix}e`, [this.prefix], CACHE_SCRIPTS);
    this.ttlMs = o.writeRecordTtlMs ?? 600_000;
    const secrets = (o.signingSecrets ?? []).filter((s) => s !== '');
    this.mac = secrets.length > 0 ? new CacheMac(secrets) : undefined;
  }

  /** The same cache, its writes behind `fence` (a pooled forwarder's lease). */
  withFence(fence: CacheFence): RedisCacheStore {
    return new RedisCacheStore({ ...this.o, fence, ownsClient: false });
  }

  async put(entry: CacheEntry, resourceVersion: string, keep = false): Promise<void> {
    await this.applyMany(entry.kind, [{ type: 'put', entry, resourceVersion, keep }]);
  }

  async remove(kind: string, id: string, resourceVersion: string, kept?: CacheEntry): Promise<void> {
    await this.applyMany(kind, [{ type: 'remove', kind, id, resourceVersion, ...(kept !== undefined && { kept }) }]);
  }

  /**
   * One script call per BATCH changes, the chunks one after another. A change held back by a value that does not
   * verify has it removed and is applied again (with the others so held back, in their order); real ones hold it
   * back as they should.
   */
  async applyMany(kind: string, changes: readonly CacheChange[]): Promise<void> {
    for (let i = 0; i < changes.length; i += BATCH) {
      let pending = changes.slice(i, i + BATCH);
      for (let attempt = 0; attempt < WRITE_ATTEMPTS && pending.length > 0; attempt++) {
        const args = pending.flatMap((c) => this.changeArgs(kind, c));
        const forged: Array<{ change: CacheChange; blocked: Blocked }> = [];
        for (const held of triples(await this.write('applyMany', kind, ...args))) {
          const change = pending[Number(held.id) - 1];
          if (change === undefined) continue;
          const blocked: Blocked = {
            id: change.type === 'put' ? change.entry.id : change.id,
            type: held.type,
            value: held.value,
          };
          if (this.isForged(blocked, kind)) forged.push({ change, blocked });
        }
        if (forged.length === 0) break;
        await this.write(
          'repair',
          kind,
          ...forged.flatMap(({ change, blocked }) =>
            blocked.type === 'e'
              ? ['e', blocked.id, blocked.value]
              : ['w', this.watermarkValue(kind, change.resourceVersion), blocked.value],
          ),
        );
        pending = forged.map((f) => f.change);
      }
    }
  }

  /** The 8 arguments of one change of a batch of `kind` (apply-many.lua). */
  private changeArgs(kind: string, c: CacheChange): (string | number)[] {
    const wm = this.watermarkValue(kind, c.resourceVersion);
    if (c.type === 'put') {
      const kept = c.keep === true ? this.keptValue(c.entry) : '';
      return [
        'p',
        c.entry.id,
        this.stored(c.entry),
        c.entry.resourceVersion,
        c.resourceVersion,
        wm,
        kept,
        this.keptTtl(),
      ];
    }
    const kept = c.kept === undefined ? '' : this.keptValue(c.kept);
    return ['r', c.id, '', c.resourceVersion, c.resourceVersion, wm, kept, this.keptTtl()];
  }

  async advance(kind: string, resourceVersion: string): Promise<void> {
    const wm = this.watermarkValue(kind, resourceVersion);
    await this.untilNotForged(kind, '', wm, () => this.write('advance', kind, resourceVersion, wm));
  }

  async replace(kind: string, entries: readonly CacheEntry[], resourceVersion: string): Promise<void> {
    await this.beginReplace(kind);
    await this.putListed(entries);
    await this.endReplace(kind, new Set(entries.map((e) => e.id)), resourceVersion);
  }

  async beginReplace(kind: string): Promise<void> {
    await this.write('beginReplace', kind);
  }

  async putListed(entries: readonly CacheEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += BATCH) {
      let batch = entries.slice(i, i + BATCH);
      for (let attempt = 0; attempt < WRITE_ATTEMPTS && batch.length > 0; attempt++) {
        const kind = (batch[0] as CacheEntry).kind;
        const args = batch.flatMap((e) => [e.id, this.stored(e), e.resourceVersion]);
        const forged = triples(await this.write('fileMany', kind, ...args)).filter((b) => this.isForged(b, kind));
        if (forged.length === 0) break;
        // A forged watermark is dropped (endReplace sets the list's); a forged entry is dropped, then filed.
        await this.repair(kind, '', forged);
        const again = new Set(forged.map((b) => b.id));
        batch = batch.filter((e) => again.has(e.id));
      }
    }
  }

  async endReplace(kind: string, seenIds: ReadonlySet<string>, resourceVersion: string): Promise<void> {
    const held = await this.redis.smembers(`${this.prefix}i:all:${kind}`);
    const drop = held.filter((id) => !seenIds.has(id));
    for (let i = 0; i < drop.length; i += BATCH) {
      const kept = pairs(await this.write('unfileMany', resourceVersion, ...drop.slice(i, i + BATCH)));
      // Held back because changed after the list; a forged one (say, a huge resourceVersion) is dropped all the same.
      const forged = kept
        .map(([id, value]): Blocked => ({ id, type: 'e', value }))
        .filter((b) => this.isForged(b, kind));
      if (forged.length > 0) await this.repair(kind, '', forged);
    }
    const wm = this.watermarkValue(kind, resourceVersion);
    await this.untilNotForged(kind, '', wm, () => this.write('endReplace', kind, resourceVersion, wm));
  }

  /** Drops every object, index, kept state and watermark of this cluster's cache: the next list starts over. */
  async reset(): Promise<void> {
    await this.write('reset');
    const prefix = this.prefix.replace(/[*?[\]\\]/g, '\\$&');
    // On a Redis Cluster every primary is scanned; the keys share this cache's hash tag, so one node holds them.
    for (const pattern of [`${prefix}i:*`, `${prefix}k:*`]) {
      await scanAllNodes(this.redis, pattern, async (keys, node) => {
        this.o.fence?.assertHeld();
        await node.unlink(...keys);
      });
    }
  }

  async get(id: string): Promise<CachedObject | null> {
    const value = await this.redis.hget(`${this.prefix}e`, id);
    return value === null ? null : this.objectOf(id, value);
  }

  async keptState(id: string): Promise<CachedObject | null> {
    const value = await this.redis.get(`${this.prefix}k:${id}`);
    if (value === null) return null;
    const json = this.verified('kept', id, value);
    const kept = json === undefined ? undefined : (parseJson(json) as { o?: unknown } | undefined);
    if (typeof kept?.o !== 'object' || kept.o === null) {
      if (json !== undefined) this.reject('kept', id, 'malformed');
      return null;
    }
    return kept.o as CachedObject;
  }

  async dropKeptState(id: string, resourceVersion: string): Promise<void> {
    await this.write('dropKept', id, resourceVersion);
  }

  async members(indexName: string): Promise<CachedObject[]> {
    const ids = await this.redis.smembers(`${this.prefix}i:${indexName}`);
    const out: CachedObject[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const values = await this.redis.hmget(`${this.prefix}e`, ...batch);
      values.forEach((value, j) => {
        if (value === null) return;
        const object = this.objectOf(batch[j] as string, value, indexName);
        if (object !== null) out.push(object);
      });
    }
    return out;
  }

  /** Absent while no forwarder has said within its heartbeat TTL that it keeps this cache current. */
  async watermark(kind: string): Promise<string | undefined> {
    const [wm, relisting, alive] = await Promise.all([
      this.redis.hget(`${this.prefix}wm`, kind),
      this.redis.hexists(`${this.prefix}rl`, kind),
      this.redis.get(`${this.prefix}alive`),
    ]);
    if (alive === null || relisting === 1 || wm === null || !this.isAlive(alive)) return undefined;
    return this.watermarkOf(kind, wm);
  }

  /** With secrets, the heartbeat carries its expiry (wall clock, ms) and a MAC: a forged or replayed one is bounded. */
  async heartbeat(ttlMs: number): Promise<void> {
    const ms = Math.max(1, Math.floor(ttlMs));
    const until = String(Date.now() + ms);
    const value = this.mac ? `${until}:${this.mac.sign('alive', this.cluster, 'alive', until)}` : '1';
    await this.redis.set(`${this.prefix}alive`, value, 'PX', ms);
  }

  private isAlive(value: string): boolean {
    if (!this.mac) return true;
    const [until = '', mac = ''] = value.split(':');
    if (mac === '') return this.reject('alive', 'alive', 'missing-mac') ?? false;
    if (!this.mac.verify('alive', this.cluster, 'alive', until, mac))
      return this.reject('alive', 'alive', 'bad-mac') ?? false;
    // A genuine heartbeat replayed after its forwarder stopped is trusted at most ALIVE_SKEW_MS past its expiry.
    return Date.now() <= Number(until) + ALIVE_SKEW_MS;
  }

  async recordWrites(keyId: string, record: WriteRecord | null): Promise<void> {
    const key = `${this.prefix}w:${keyId}`;
    if (record === null) await this.redis.del(key);
    else await this.redis.set(key, this.signed('record', keyId, JSON.stringify(record)), 'PX', this.ttlMs);
  }

  /** Throws UnverifiedCacheData for a record that does not verify (its reader then reads live). */
  async writesOf(keyId: string): Promise<WriteRecord | null> {
    const value = await this.redis.get(`${this.prefix}w:${keyId}`);
    if (value === null) return null;
    const json = this.verified('record', keyId, value);
    const record = json === undefined ? undefined : parseJson(json);
    if (!isRecord(record)) {
      if (json !== undefined) this.reject('record', keyId, 'malformed');
      throw new UnverifiedCacheData(`write record of ${keyId} is not authentic or not readable: reading live`);
    }
    return record;
  }

  async close(): Promise<void> {
    if (this.o.ownsClient) await this.redis.quit();
  }

  /** Runs a write script behind the fence (when there is one). */
  private async write(name: CacheScriptName, ...args: (string | number)[]): Promise<Reply> {
    const fence = this.o.fence;
    fence?.assertHeld();
    const [key, value] = fence ? fence.leaseArgs(this.prefix) : ['', ''];
    const reply = await this.scripts.run(name, key, value, ...args);
    if (reply === -1) throw fence ? fence.refused() : new Error(`cache ${name} refused by a fence it was not given`);
    return reply;
  }

  /**
   * Runs a write that may be held back by a newer entry or watermark; one that does not verify is removed and
   * the write tried again (a forged value must not hold back real updates). Real ones hold it back as they should.
   */
  private async untilNotForged(kind: string, id: string, wm: string, run: () => Promise<Reply>): Promise<void> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const reply = await run();
      if (!Array.isArray(reply)) return;
      const [type, value] = reply as [string, string];
      const blocked: Blocked = { id, type: type === 'e' ? 'e' : 'w', value };
      if (!this.isForged(blocked, kind)) return;
      await this.repair(kind, wm, [blocked]);
    }
  }

  private async repair(kind: string, wm: string, forged: readonly Blocked[]): Promise<void> {
    const args = forged.flatMap((b) => (b.type === 'e' ? ['e', b.id, b.value] : ['w', wm, b.value]));
    await this.write('repair', kind, ...args);
  }

  /** A held-back value that does not verify (no secrets: nothing can be told forged). */
  private isForged(b: Blocked, kind: string): boolean {
    if (!this.mac) return false;
    if (b.type === 'w') return this.watermarkOf(kind, b.value) === undefined;
    return this.objectOf(b.id, b.value) === null;
  }

  private stored(e: CacheEntry): string {
    return this.signed('entry', e.id, JSON.stringify({ o: e.object, rv: e.resourceVersion, ix: indexNames(e) }));
  }

  /** A kept state as stored: its resourceVersion beside it, for dropKeptState's comparison in Lua. */
  private keptValue(e: CacheEntry): string {
    return this.signed('kept', e.id, JSON.stringify({ o: e.object, rv: e.resourceVersion }));
  }

  private keptTtl(): number {
    return Math.max(1, Math.floor(this.o.keptStateTtlMs ?? KEPT_STATE_TTL_MS));
  }

  private watermarkValue(kind: string, rv: string): string {
    return this.mac ? `${rv}:${this.mac.sign('watermark', this.cluster, kind, rv)}` : rv;
  }

  private watermarkOf(kind: string, value: string): string | undefined {
    const colon = value.indexOf(':');
    const rv = colon < 0 ? value : value.slice(0, colon);
    if (!this.mac) return rv;
    if (colon < 0) return this.reject('watermark', kind, 'missing-mac');
    if (!this.mac.verify('watermark', this.cluster, kind, rv, value.slice(colon + 1)))
      return this.reject('watermark', kind, 'bad-mac');
    return rv;
  }

  /** `<mac><body>` with secrets, else body. */
  private signed(purpose: MacPurpose, id: string, body: string): string {
    return this.mac ? this.mac.sign(purpose, this.cluster, id, body) + body : body;
  }

  /** The body of a signed value when it verifies (undefined, reported, when not); unsigned: the body. */
  private verified(purpose: MacPurpose, id: string, value: string): string | undefined {
    const hasMac = /^[0-9a-f]{64}/.test(value) && value.length > MAC_HEX_LENGTH && value[MAC_HEX_LENGTH] === '{';
    if (!this.mac) return hasMac ? value.slice(MAC_HEX_LENGTH) : value;
    if (!hasMac) return this.reject(purpose, id, 'missing-mac');
    const body = value.slice(MAC_HEX_LENGTH);
    if (!this.mac.verify(purpose, this.cluster, id, body, value.slice(0, MAC_HEX_LENGTH)))
      return this.reject(purpose, id, 'bad-mac');
    return body;
  }

  /** The object of a stored entry read under `id` (and from index `indexName`); null when it may not be used. */
  private objectOf(id: string, value: string, indexName?: string): CachedObject | null {
    const json = this.verified('entry', id, value);
    if (json === undefined) return null;
    const e = parseJson(json) as { o?: unknown; ix?: unknown } | undefined;
    if (typeof e !== 'object' || e === null || typeof e.o !== 'object' || e.o === null) {
      this.reject('entry', id, 'malformed');
      return null;
    }
    // An id added to an index set the entry is not filed under (its index names are inside the MAC).
    if (indexName !== undefined && !(Array.isArray(e.ix) && e.ix.includes(indexName))) {
      this.reject('entry', id, 'index');
      return null;
    }
    return e.o as CachedObject;
  }

  private reject(what: MacPurpose, id: string, reason: RejectionReason): undefined {
    this.o.onRejected?.({ cluster: this.cluster, what, id, reason });
    return undefined;
  }
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(r: unknown): r is WriteRecord {
  const x = r as Partial<WriteRecord> | undefined;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.resourceVersions === 'object' &&
    x.resourceVersions !== null &&
    Array.isArray(x.deleted)
  );
}

function pairs(reply: Reply): Array<[string, string]> {
  const flat = Array.isArray(reply) ? (reply as string[]) : [];
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}

function triples(reply: Reply): Blocked[] {
  const flat = Array.isArray(reply) ? (reply as string[]) : [];
  const out: Blocked[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3)
    out.push({ id: flat[i] as string, type: flat[i + 1] === 'e' ? 'e' : 'w', value: flat[i + 2] as string });
  return out;
}
