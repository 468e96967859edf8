// The writes a pooled forwarder makes for a cluster, behind that cluster's lease (forwarder-lease.ts): enqueues
// through the Redis queue driver's fenced add (RedisQueue.addFenced, given the lease's fence) and checkpoint saves
// in Redis (ForwarderLease.fencedSave), each one Lua script that compares the lease first. Cache writes (a shared
// cache's Lua scripts compare the same lease: cache-fence.ts) go through leaseCacheFence.
// A refused write throws ForwarderLeaseLost: the forwarder's batch fails (its watch would start again from
// before the event, so nothing is skipped) and the pool stops that cluster's forwarder.
import type { CacheFence } from '../cache/cache-fence.js';
import type { ReconcileKey } from '../kube/key.js';
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { ForwarderLeaseLost, type ForwarderLease } from './forwarder-lease.js';

export type FenceRefusals = (operation: 'enqueue' | 'checkpoint' | 'cache', where: 'local' | 'redis') => void;

/** The queue a pool member enqueues into: the Redis driver (it has the fenced add). */
export type FencingQueue = Required<Pick<WorkQueue, 'addFenced' | 'parkInvalid'>>;

/** queue.add and addAfter for one cluster's forwarder, through the queue's fenced add with that cluster's lease. */
export class FencedQueue implements Pick<WorkQueue, 'add' | 'addAfter' | 'parkInvalid'> {
  constructor(
    private readonly o: {
      /** The Redis queue (its addFenced; parkInvalid is not fenced: a dead letter is a record, not work). */
      readonly queue: FencingQueue;
      readonly lease: ForwarderLease;
      readonly onRefused?: FenceRefusals;
      /** Called when an add finds the queue's data-loss marker gone (as RedisQueue.onEpochMissing's listeners). */
      readonly onEpochMissing?: () => void;
    },
  ) {}

  add(key: ReconcileKey): Promise<void> {
    return this.addAfter(key, 0);
  }

  /** add() when delayMs is 0; the delay goes to the queue in the same fenced script. */
  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    const lease = this.o.lease;
    try {
      lease.assertHeld();
    } catch (err) {
      this.o.onRefused?.('enqueue', 'local');
      throw err;
    }
    const outcome = await this.o.queue.addFenced(key, lease.fence(), delayMs);
    if (outcome === 'added-epoch-missing') this.o.onEpochMissing?.();
    if (outcome === 'refused') {
      this.o.onRefused?.('enqueue', 'redis');
      lease.markLost('enqueue refused by the fence');
      throw new ForwarderLeaseLost(lease.cluster, 'enqueue refused by the fence');
    }
  }

  parkInvalid(raw: string, reason: string): Promise<void> {
    return this.o.queue.parkInvalid(raw, reason);
  }
}

/** A checkpoint store whose saves go through the lease (loads and removals as the store's own). */
export class FencedCheckpoints implements CheckpointStore {
  constructor(
    private readonly store: CheckpointStore & {
      keyFor(cluster: string): string;
      dropLegacy?(cluster: string, resources: readonly string[]): Promise<void>;
    },
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
      await this.lease.fencedSave(this.store.keyFor(cluster), checkpoints);
    } catch (err) {
      if (err instanceof ForwarderLeaseLost) this.onRefused?.('checkpoint', wasHeld ? 'redis' : 'local');
      throw err;
    }
    // Saved in the cluster's own hash: the pre-upgrade hash's fields of these resources are not needed again.
    await this.store.dropLegacy?.(cluster, [...checkpoints.keys()]);
  }

  async remove(cluster: string, resource?: string): Promise<void> {
    this.lease.assertHeld();
    await this.store.remove(cluster, resource);
  }

  /** The store is shared by every cluster of the pool: its owner closes it. */
  async close(): Promise<void> {}
}

/** The fence of a cluster's shared cache writes: the lease's, as its enqueues' and checkpoints' (fenceArgs). */
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
    leaseArgs: (slotPrefix) => lease.fenceArgs(slotPrefix),
    refused: () => {
      onRefused?.('cache', 'redis');
      lease.markLost('cache write refused by the fence');
      return new ForwarderLeaseLost(lease.cluster, 'cache write refused by the fence');
    },
  };
}
