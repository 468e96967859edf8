// Checkpoints: the last resourceVersion the forwarder has fully handled, per (cluster, resource). A restart
// resumes its watch from there instead of relisting. Redis keeps one hash per member cluster,
// `fleetq:<prefix>:{checkpoints:<cluster>}` (field `<resource>`), tagged per cluster as the object cache is
// (`{cache:<cluster>}`), so on a Redis Cluster the checkpoint writes of a fleet spread over the shards instead of
// all landing on one. The file store keeps one JSON object, replaced atomically (write to a temporary file, then
// rename) so a crash never leaves half a file.
//
// Upgrade: versions before kept every cluster's checkpoints in one hash per prefix, `fleetq:{<prefix>}:checkpoints`
// (field `<cluster>/<resource>`, legacyCheckpointsKey). A resource the cluster's own hash lacks is looked up there,
// so an upgrade does not make every cluster relist; each field of it is read at most until it is found absent
// (remembered by the store) or the resource's first save into the cluster's own hash deletes it (HDEL). Redis
// deletes the old hash with its last field; removing a cluster's checkpoints removes its old fields too.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { scanAllNodes, type RedisClient } from '../redis/redis-connection.js';

export interface CheckpointStore {
  /** The stored resourceVersion of each of `resources` that has one. */
  load(cluster: string, resources: readonly string[]): Promise<Map<string, string>>;
  /** Stores (overwrites) the given resource → resourceVersion entries. */
  save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void>;
  /** Forgets one resource's checkpoint, or all of a cluster's. */
  remove(cluster: string, resource?: string): Promise<void>;
  close(): Promise<void>;
}

/** The field of a (cluster, resource) checkpoint in the file and memory stores, and in the old Redis hash. */
export function checkpointField(cluster: string, resource: string): string {
  return `${cluster}/${resource}`;
}

/**
 * The HASH (field `<resource>`) of one cluster's checkpoints. Its hash tag is `{checkpoints:<cluster>}`, as the
 * cache's `{cache:<cluster>}`: one slot per cluster, never an empty tag; a name with `{` or `}` (which would end the
 * tag early, so two clusters could share it) is refused, as the cache refuses it (registry names are DNS-style).
 */
export function checkpointsKey(prefix: string, cluster: string): string {
  if (/[{}]/.test(cluster)) throw new RangeError(`cluster name ${JSON.stringify(cluster)} must not contain { or }`);
  return `fleetq:${prefix}:{checkpoints:${cluster}}`;
}

/** The SCAN pattern of every cluster's checkpoints hash under `prefix` (glob characters of the prefix escaped). */
export function checkpointsKeyPattern(prefix: string): string {
  return `fleetq:${prefix.replace(/[*?[\\\]]/g, '\\$&')}:{checkpoints:*}`;
}

/** The one hash of every cluster's checkpoints that versions before kept (field `<cluster>/<resource>`). */
export function legacyCheckpointsKey(prefix: string): string {
  return `fleetq:{${prefix}}:checkpoints`;
}

/**
 * Every cluster's checkpoints under `prefix` (cluster → resource → resourceVersion), found by a SCAN of every
 * primary (scanAllNodes) and read one hash at a time: no command spans two clusters' slots. The old hash is not
 * read.
 */
export async function readAllCheckpoints(
  redis: RedisClient,
  prefix: string,
): Promise<Map<string, Map<string, string>>> {
  const head = checkpointsKey(prefix, '').slice(0, -1);
  const out = new Map<string, Map<string, string>>();
  await scanAllNodes(redis, checkpointsKeyPattern(prefix), async (keys) => {
    for (const key of keys) {
      if (!key.startsWith(head) || !key.endsWith('}')) continue;
      const entries = Object.entries(await redis.hgetall(key)).filter(([, v]) => v !== '');
      if (entries.length > 0) out.set(key.slice(head.length, -1), new Map(entries));
    }
  });
  return out;
}

/** Deletes every cluster's checkpoints hash under `prefix` (a SCAN of every primary, one DEL per key) and the old one. */
export async function deleteAllCheckpoints(redis: RedisClient, prefix: string): Promise<void> {
  await scanAllNodes(redis, checkpointsKeyPattern(prefix), async (keys) => {
    await Promise.all(keys.map((k) => redis.del(k)));
  });
  await redis.del(legacyCheckpointsKey(prefix));
}

export class RedisCheckpointStore implements CheckpointStore {
  /** The old one-hash-per-prefix key, read as a fallback (see the top of this file). */
  readonly legacyKey: string;
  /** Old-hash fields (`<cluster>/<resource>`) known to be absent: never read or deleted again. */
  private readonly legacyGone = new Set<string>();

  /** `ownsClient`: close() quits the client too. */
  constructor(
    private readonly redis: RedisClient,
    readonly prefix = 'fleetq',
    private readonly ownsClient = false,
  ) {
    this.legacyKey = legacyCheckpointsKey(prefix);
  }

  /** Deletes every cluster's checkpoints under the store's prefix (tests, and a reset). */
  clear(): Promise<void> {
    return deleteAllCheckpoints(this.redis, this.prefix);
  }

  /** The hash of `cluster`'s checkpoints. */
  keyFor(cluster: string): string {
    return checkpointsKey(this.prefix, cluster);
  }

  async load(cluster: string, resources: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (resources.length === 0) return out;
    const values = await this.redis.hmget(this.keyFor(cluster), ...resources);
    resources.forEach((r, i) => {
      const v = values[i];
      if (v !== null && v !== undefined && v !== '') out.set(r, v);
    });
    const fallback = resources.filter((r) => !out.has(r) && !this.legacyGone.has(checkpointField(cluster, r)));
    if (fallback.length === 0) return out;
    const old = await this.redis.hmget(this.legacyKey, ...fallback.map((r) => checkpointField(cluster, r)));
    fallback.forEach((r, i) => {
      const v = old[i];
      if (v !== null && v !== undefined && v !== '') out.set(r, v);
      else this.legacyGone.add(checkpointField(cluster, r));
    });
    return out;
  }

  async save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    if (checkpoints.size === 0) return;
    const fields: string[] = [];
    for (const [resource, rv] of checkpoints) fields.push(resource, rv);
    await this.redis.hset(this.keyFor(cluster), ...fields);
    await this.dropLegacy(cluster, [...checkpoints.keys()]);
  }

  /**
   * Deletes the old hash's fields of `resources` of `cluster` once they are saved in the cluster's own hash (a
   * fenced save calls it after its write went through); fields known absent cost nothing.
   */
  async dropLegacy(cluster: string, resources: readonly string[]): Promise<void> {
    const fields = resources.map((r) => checkpointField(cluster, r)).filter((f) => !this.legacyGone.has(f));
    if (fields.length === 0) return;
    await this.redis.hdel(this.legacyKey, ...fields);
    for (const f of fields) this.legacyGone.add(f);
  }

  async remove(cluster: string, resource?: string): Promise<void> {
    if (resource !== undefined) {
      await this.redis.hdel(this.keyFor(cluster), resource);
      await this.redis.hdel(this.legacyKey, checkpointField(cluster, resource));
      this.legacyGone.add(checkpointField(cluster, resource));
      return;
    }
    await this.redis.del(this.keyFor(cluster));
    // The old hash's fields of the cluster: HSCAN (not HKEYS) of the one big hash, matching the cluster's fields.
    const match = `${checkpointField(cluster, '').replace(/[*?[\\\]]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.legacyKey, cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      const fields = flat.filter((_, i) => i % 2 === 0);
      if (fields.length > 0) await this.redis.hdel(this.legacyKey, ...fields);
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}

export class FileCheckpointStore implements CheckpointStore {
  /** Writes are chained so two saves never interleave their read-modify-write. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  async load(cluster: string, resources: readonly string[]): Promise<Map<string, string>> {
    await this.chain;
    const all = await this.read();
    const out = new Map<string, string>();
    for (const r of resources) {
      const v = all[checkpointField(cluster, r)];
      if (v !== undefined && v !== '') out.set(r, v);
    }
    return out;
  }

  save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    return this.update((all) => {
      for (const [resource, rv] of checkpoints) all[checkpointField(cluster, resource)] = rv;
    });
  }

  remove(cluster: string, resource?: string): Promise<void> {
    return this.update((all) => {
      for (const field of Object.keys(all)) {
        if (resource === undefined ? field.startsWith(`${cluster}/`) : field === checkpointField(cluster, resource)) {
          delete all[field];
        }
      }
    });
  }

  async close(): Promise<void> {
    await this.chain;
  }

  private update(change: (all: Record<string, string>) => void): Promise<void> {
    const next = this.chain.then(async () => {
      const all = await this.read();
      change(all);
      await mkdir(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(all, null, 2) + '\n');
      await rename(tmp, this.path);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`checkpoint file ${this.path} does not hold a JSON object`);
    }
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
}

/** In-process checkpoints (tests, and the all-in-one mode without Redis). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly entries = new Map<string, string>();

  async load(cluster: string, resources: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const r of resources) {
      const v = this.entries.get(checkpointField(cluster, r));
      if (v !== undefined) out.set(r, v);
    }
    return out;
  }

  async save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    for (const [r, rv] of checkpoints) this.entries.set(checkpointField(cluster, r), rv);
  }

  async remove(cluster: string, resource?: string): Promise<void> {
    for (const field of [...this.entries.keys()]) {
      if (resource === undefined ? field.startsWith(`${cluster}/`) : field === checkpointField(cluster, resource)) {
        this.entries.delete(field);
      }
    }
  }

  async close(): Promise<void> {}
}
