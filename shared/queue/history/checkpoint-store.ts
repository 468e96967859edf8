// Checkpoints: the last resourceVersion the forwarder has fully handled, per (cluster, resource). A restart
// resumes its watch from there instead of relisting. Redis keeps one hash per prefix
// (`fleetq:{<prefix>}:checkpoints`, field `<cluster>/<resource>`); the file store one JSON object, replaced
// atomically (write to a temporary file, then rename) so a crash never leaves half a file.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redis } from 'ioredis';

export interface CheckpointStore {
  /** The stored resourceVersion of each of `resources` that has one. */
  load(cluster: string, resources: readonly string[]): Promise<Map<string, string>>;
  /** Stores (overwrites) the given resource → resourceVersion entries. */
  save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void>;
  /** Forgets one resource's checkpoint, or all of a cluster's. */
  remove(cluster: string, resource?: string): Promise<void>;
  close(): Promise<void>;
}

export function checkpointField(cluster: string, resource: string): string {
  return `${cluster}/${resource}`;
}

export function checkpointsKey(prefix: string): string {
  return `fleetq:{${prefix}}:checkpoints`;
}

export class RedisCheckpointStore implements CheckpointStore {
  readonly key: string;

  /** `ownsClient`: close() quits the client too. */
  constructor(
    private readonly redis: Redis,
    prefix = 'fleetq',
    private readonly ownsClient = false,
  ) {
    this.key = checkpointsKey(prefix);
  }

  async load(cluster: string, resources: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (resources.length === 0) return out;
    const values = await this.redis.hmget(this.key, ...resources.map((r) => checkpointField(cluster, r)));
    resources.forEach((r, i) => {
      const v = values[i];
      if (v !== null && v !== undefined && v !== '') out.set(r, v);
    });
    return out;
  }

  async save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    if (checkpoints.size === 0) return;
    const fields: string[] = [];
    for (const [resource, rv] of checkpoints) fields.push(checkpointField(cluster, resource), rv);
    await this.redis.hset(this.key, ...fields);
  }

  async remove(cluster: string, resource?: string): Promise<void> {
    if (resource !== undefined) {
      await this.redis.hdel(this.key, checkpointField(cluster, resource));
      return;
    }
    const fields = (await this.redis.hkeys(this.key)).filter((f) => f.startsWith(`${cluster}/`));
    if (fields.length > 0) await this.redis.hdel(this.key, ...fields);
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
