// Queue shards (FLEETQ_QUEUE_SHARDS, Redis driver only): a fleet's keys spread over N queues, each its own hash
// tag and so its own Redis Cluster slot, so N queues can sit on N shards of a cluster. A cluster's keys all go to
// one queue, chosen by a stable hash of the cluster name: every producer (forwarder, replay requeue, the CLI,
// rollouts) and every consumer computes the same assignment from the cluster name and N alone.
//
// Names: shard 1 is the queue name itself (`fleetq`), shards 2..N are `<queue>-s<i>` (`fleetq-s2`, `fleetq-s3`).
// N = 1 is exactly the single queue of before: the same name, the same keys.
//
// ShardRotation is the consumer's choice of which shard to ask next: weighted fair queuing over the shards, a
// shard's weight the number of clusters with ready keys it reported, so each cluster gets about an equal share of
// hand-outs whichever shard it hashes to (each shard's own get() already rotates over its clusters).
import { createHash } from 'node:crypto';

/** Most shards FLEETQ_QUEUE_SHARDS accepts. */
export const MAX_QUEUE_SHARDS = 64;

/** The queue name of shard `index` (0-based): the name itself for shard 0, `<queue>-s<index+1>` after. */
export function shardQueueName(queueName: string, index: number): string {
  return index === 0 ? queueName : `${queueName}-s${index + 1}`;
}

/** The N queue names, shard 0 first. */
export function shardQueueNames(queueName: string, shards: number): string[] {
  checkShardCount(shards);
  return Array.from({ length: shards }, (_, i) => shardQueueName(queueName, i));
}

/**
 * The shard (0-based) of a cluster's keys: the first four bytes of SHA-256 of the cluster name, modulo N. Stable
 * across processes, versions and platforms; depends on nothing but the name and N.
 */
export function shardIndexOf(cluster: string, shards: number): number {
  checkShardCount(shards);
  if (shards === 1) return 0;
  return createHash('sha256').update(cluster, 'utf8').digest().readUInt32BE(0) % shards;
}

/** The queue name a cluster's keys go to. */
export function shardQueueNameOf(queueName: string, shards: number, cluster: string): string {
  return shardQueueName(queueName, shardIndexOf(cluster, shards));
}

function checkShardCount(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_QUEUE_SHARDS)
    throw new RangeError(`queue shards must be an integer from 1 to ${MAX_QUEUE_SHARDS}, got ${shards}`);
}

/**
 * Which shard a consumer asks first. Each shard has a virtual time that a hand-out from it advances by
 * 1 / weight, the weight being the clusters with ready keys the shard reported (at least 1): the shard with the
 * smallest virtual time is asked first, ties going round from the shard after the last one served. A shard found
 * empty is idle and is asked again one full turn after the busy shards' smallest time (so a probe of an idle shard
 * costs at most one extra round trip per turn, and an idle spell earns no burst); when it serves again it starts
 * from the busy shards' smallest time. A shard with ready keys is never starved: its time stays put while the
 * others' grow.
 */
export class ShardRotation {
  private readonly virtualTime: number[];
  private readonly idle: boolean[];
  private last: number;

  constructor(readonly shards: number) {
    checkShardCount(shards);
    this.virtualTime = new Array<number>(shards).fill(0);
    this.idle = new Array<boolean>(shards).fill(true);
    this.last = shards - 1;
  }

  /** Every shard, in the order to ask. */
  order(): number[] {
    const n = this.shards;
    const after = (i: number) => (i - this.last - 1 + n) % n;
    return Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => this.virtualTime[a]! - this.virtualTime[b]! || after(a) - after(b),
    );
  }

  /** Shard `shard` handed out a key, reporting `readyClusters` clusters with ready keys (itself included). */
  served(shard: number, readyClusters: number): void {
    if (this.idle[shard]) {
      const busy = this.busyFloor(shard);
      if (busy !== undefined) this.virtualTime[shard] = busy;
      this.idle[shard] = false;
    }
    this.virtualTime[shard]! += 1 / Math.max(1, readyClusters);
    this.last = shard;
    // Only differences matter: keep the numbers small.
    const floor = Math.min(...this.virtualTime);
    if (floor > 1e6) for (let i = 0; i < this.shards; i++) this.virtualTime[i]! -= floor;
  }

  /** Shard `shard` had no key to hand out: idle, asked again one turn after the busy shards' smallest time. */
  empty(shard: number): void {
    this.idle[shard] = true;
    const busy = this.busyFloor(shard);
    this.virtualTime[shard] = (busy ?? this.virtualTime[shard]!) + 1;
  }

  /** The smallest virtual time among the busy shards other than `except`; undefined when none is busy. */
  private busyFloor(except: number): number | undefined {
    let floor: number | undefined;
    for (let i = 0; i < this.shards; i++)
      if (i !== except && !this.idle[i]) floor = Math.min(floor ?? Infinity, this.virtualTime[i]!);
    return floor;
  }

  /** The shard asked first now. */
  first(): number {
    return this.order()[0]!;
  }
}
