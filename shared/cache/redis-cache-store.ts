// The Redis CacheStore: split workers and Lambdas read what the forwarder materialized. One Lua script per
// event (redis-cache-scripts.ts): an object, its index entries and its kind's watermark change together.
// A relist clears the kind's watermark first (readers wait, or read live), files the listed objects in
// batches, drops the rest, and sets the watermark last. The forwarder that fills it refreshes an `alive` key
// (heartbeat); without it every watermark reads as absent, so a cache left behind by a stopped or dead
// forwarder is never read as current (readers go live until a forwarder lists it again).
import type { Redis } from 'ioredis';
import { ScriptRunner } from '../queue/redis/script-runner.js';
import { indexNames, type CacheEntry, type CachedObject } from './cache-entry.js';
import type { CacheStore, WriteRecord } from './cache-store.js';
import { CACHE_SCRIPTS, type CacheScriptName } from './redis-cache-scripts.js';

export type RedisCacheStoreOptions = {
  readonly redis: Redis;
  readonly cluster: string;
  /** Key prefix before the hash tag; default `fleetq`. */
  readonly prefix?: string;
  /** How long a write record is kept when no run reads it; default 600 000 (10 min). */
  readonly writeRecordTtlMs?: number;
  /** Close the client on close(); default false. */
  readonly ownsClient?: boolean;
};

const BATCH = 200;

export function redisCachePrefix(cluster: string, prefix = 'fleetq'): string {
  if (/[{}]/.test(cluster)) throw new RangeError(`cluster name ${JSON.stringify(cluster)} must not contain { or }`);
  return `${prefix}:{cache:${cluster}}:`;
}

export class RedisCacheStore implements CacheStore {
  readonly prefix: string;
  private readonly redis: Redis;
  private readonly scripts: ScriptRunner<CacheScriptName>;
  private readonly ttlMs: number;

  constructor(private readonly o: RedisCacheStoreOptions) {
    this.redis = o.redis;
    this.prefix = redisCachePrefix(o.cluster, o.prefix);
    this.scripts = new ScriptRunner(this.redis, `${this.prefix}e`, [this.prefix], CACHE_SCRIPTS);
    this.ttlMs = o.writeRecordTtlMs ?? 600_000;
  }

  async put(entry: CacheEntry, resourceVersion: string): Promise<void> {
    await this.scripts.run('put', entry.id, stored(entry), entry.kind, entry.resourceVersion, resourceVersion);
  }

  async remove(kind: string, id: string, resourceVersion: string): Promise<void> {
    await this.scripts.run('remove', id, kind, resourceVersion);
  }

  async advance(kind: string, resourceVersion: string): Promise<void> {
    await this.scripts.run('advance', kind, resourceVersion);
  }

  async replace(kind: string, entries: readonly CacheEntry[], resourceVersion: string): Promise<void> {
    await this.scripts.run('beginReplace', kind);
    const keep = new Set(entries.map((e) => e.id));
    const held = await this.redis.smembers(`${this.prefix}i:all:${kind}`);
    const drop = held.filter((id) => !keep.has(id));
    for (let i = 0; i < drop.length; i += BATCH) await this.scripts.run('unfileMany', ...drop.slice(i, i + BATCH));
    for (let i = 0; i < entries.length; i += BATCH) {
      await this.scripts.run('fileMany', ...entries.slice(i, i + BATCH).flatMap((e) => [e.id, stored(e)]));
    }
    await this.scripts.run('endReplace', kind, resourceVersion);
  }

  async beginReplace(kind: string): Promise<void> {
    await this.scripts.run('beginReplace', kind);
  }

  async putListed(entries: readonly CacheEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += BATCH) {
      await this.scripts.run('fileMany', ...entries.slice(i, i + BATCH).flatMap((e) => [e.id, stored(e)]));
    }
  }

  async endReplace(kind: string, seenIds: ReadonlySet<string>, resourceVersion: string): Promise<void> {
    const held = await this.redis.smembers(`${this.prefix}i:all:${kind}`);
    const drop = held.filter((id) => !seenIds.has(id));
    for (let i = 0; i < drop.length; i += BATCH) await this.scripts.run('unfileMany', ...drop.slice(i, i + BATCH));
    await this.scripts.run('endReplace', kind, resourceVersion);
  }

  async get(id: string): Promise<CachedObject | null> {
    const json = await this.redis.hget(`${this.prefix}e`, id);
    return json === null ? null : objectOf(json);
  }

  async members(indexName: string): Promise<CachedObject[]> {
    const ids = await this.redis.smembers(`${this.prefix}i:${indexName}`);
    const out: CachedObject[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const jsons = await this.redis.hmget(`${this.prefix}e`, ...ids.slice(i, i + 500));
      for (const json of jsons) if (json !== null) out.push(objectOf(json));
    }
    return out;
  }

  /** Absent while no forwarder has said within its heartbeat TTL that it keeps this cache current. */
  async watermark(kind: string): Promise<string | undefined> {
    const [wm, alive] = await Promise.all([
      this.redis.hget(`${this.prefix}wm`, kind),
      this.redis.exists(`${this.prefix}alive`),
    ]);
    return alive === 1 ? (wm ?? undefined) : undefined;
  }

  async heartbeat(ttlMs: number): Promise<void> {
    await this.redis.set(`${this.prefix}alive`, '1', 'PX', Math.max(1, Math.floor(ttlMs)));
  }

  async recordWrites(keyId: string, record: WriteRecord | null): Promise<void> {
    const key = `${this.prefix}w:${keyId}`;
    if (record === null) await this.redis.del(key);
    else await this.redis.set(key, JSON.stringify(record), 'PX', this.ttlMs);
  }

  async writesOf(keyId: string): Promise<WriteRecord | null> {
    const json = await this.redis.get(`${this.prefix}w:${keyId}`);
    return json === null ? null : (JSON.parse(json) as WriteRecord);
  }

  async close(): Promise<void> {
    if (this.o.ownsClient) await this.redis.quit();
  }
}

function stored(e: CacheEntry): string {
  return JSON.stringify({ o: e.object, rv: e.resourceVersion, ix: indexNames(e) });
}

function objectOf(json: string): CachedObject {
  return (JSON.parse(json) as { o: CachedObject }).o;
}
