// The writes a pooled forwarder makes for a cluster, behind that cluster's lease (forwarder-lease.ts): enqueues
// on the Redis driver and checkpoint saves in Redis, each one Lua script that compares the lease first.
// Cache writes (a shared cache's Lua scripts compare the same lease: cache-fence.ts) go through leaseCacheFence.
// A refused write throws ForwarderLeaseLost: the forwarder's batch fails (its watch would start again from
// before the event, so nothing is skipped) and the pool stops that cluster's forwarder.
import type { Redis } from 'ioredis';
import type { CacheFence } from '../cache/cache-fence.js';
import type { ReconcileKey } from '../kube/key.js';
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import { signKey } from '../queue/message-signing.js';
import { checkedKeyString } from '../queue/queue-options.js';
import { ScriptRunner } from '../queue/redis/script-runner.js';
import { queueScriptHeader } from '../queue/redis/redis-queue.js';
import type { QueueOptions, WorkQueue } from '../queue/work-queue.js';
import { FENCED_ADD_SCRIPT, ForwarderLeaseLost, type ForwarderLease } from './forwarder-lease.js';

export type FenceRefusals = (operation: 'enqueue' | 'checkpoint' | 'cache', where: 'local' | 'redis') => void;

/** queue.add through the fenced add script (the Redis driver's own `schedule`, after the lease compare). */
export class FencedQueue implements Pick<WorkQueue, 'add' | 'parkInvalid'> {
  private readonly scripts: ScriptRunner<'fencedAdd'>;

  constructor(
    private readonly o: {
      readonly redis: Redis;
      /** The Redis queue's prefix (RedisQueue.prefix). */
      readonly queuePrefix: string;
      /** The queue's options (its lease, backoff, caps and signing secret), as the queue itself was given them. */
      readonly queueOptions?: QueueOptions;
      readonly lease: ForwarderLease;
      /** Where invalid objects are parked (the queue itself; not fenced: a dead letter is a record, not work). */
      readonly parkInvalid: WorkQueue['parkInvalid'];
      readonly onRefused?: FenceRefusals;
      /** Called when an add finds the queue's data-loss marker gone (as RedisQueue.onEpochMissing's listeners). */
      readonly onEpochMissing?: () => void;
    },
  ) {
    this.scripts = new ScriptRunner(
      o.redis,
      o.lease.key,
      queueScriptHeader(o.queuePrefix, o.queueOptions ?? {}),
      FENCED_ADD_SCRIPT,
    );
  }

  async add(key: ReconcileKey): Promise<void> {
    const id = checkedKeyString(key);
    const lease = this.o.lease;
    try {
      lease.assertHeld();
    } catch (err) {
      this.o.onRefused?.('enqueue', 'local');
      throw err;
    }
    const secret = this.o.queueOptions?.signingSecret;
    const signature = secret === undefined ? '' : signKey(secret, id);
    const reply = Number(await this.scripts.run('fencedAdd', id, 0, signature, ...lease.fenceArgs()));
    if (reply === 2) this.o.onEpochMissing?.();
    if (reply !== 1 && reply !== 2) {
      this.o.onRefused?.('enqueue', 'redis');
      lease.markLost('enqueue refused by the fence');
      throw new ForwarderLeaseLost(lease.cluster, 'enqueue refused by the fence');
    }
  }

  parkInvalid(raw: string, reason: string): Promise<void> {
    return this.o.parkInvalid(raw, reason);
  }
}

/** A checkpoint store whose saves go through the lease (loads and removals as the store's own). */
export class FencedCheckpoints implements CheckpointStore {
  constructor(
    private readonly store: CheckpointStore & { readonly key: string },
    private readonly lease: ForwarderLease,
    private readonly onRefused?: FenceRefusals,
  ) {}

  load(cluster: string, resources: readonly string[]): Promise<Map<string, string>> {
    return this.store.load(cluster, resources);
  }

  async save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    if (cluster !== this.lease.cluster) throw new Error(`lease of ${this.lease.cluster} used for ${cluster}`);
    const wasHeld = this.lease.held();
    try {
      await this.lease.fencedSave(this.store.key, checkpoints);
    } catch (err) {
      if (err instanceof ForwarderLeaseLost) this.onRefused?.('checkpoint', wasHeld ? 'redis' : 'local');
      throw err;
    }
  }

  async remove(cluster: string, resource?: string): Promise<void> {
    this.lease.assertHeld();
    await this.store.remove(cluster, resource);
  }

  /** The store is shared by every cluster of the pool: its owner closes it. */
  async close(): Promise<void> {}
}

/** The fence of a cluster's shared cache writes: the same lease key and value as its enqueues and checkpoints. */
export function leaseCacheFence(lease: ForwarderLease, onRefused?: FenceRefusals): CacheFence {
  return {
    assertHeld: () => {
      try {
        lease.assertHeld();
      } catch (err) {
        onRefused?.('cache', 'local');
        throw err;
      }
    },
    leaseArgs: () => {
      const [key, value] = lease.fenceArgs();
      return [key as string, value as string];
    },
    refused: () => {
      onRefused?.('cache', 'redis');
      lease.markLost('cache write refused by the fence');
      return new ForwarderLeaseLost(lease.cluster, 'cache write refused by the fence');
    },
  };
}
