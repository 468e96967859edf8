// Redis is a cache that can vanish: FLUSHALL, a restart without persistence, a failover to an empty replica,
// eviction. The queue's state (waiting keys, backoffs, dead letters) is then gone, and no event will bring the
// lost keys back until the next periodic resync. This watcher notices the loss within one check interval so
// the forwarders can resync at once (every owned object re-enqueued; the controllers are level-triggered, so
// a re-enqueue costs a reconcile, never correctness).
//
// How: a marker key (`<prefix>{name}:epoch`, in the queue's hash slot) holds a random id, written on start
// if absent. Every intervalMs one GET: a missing marker means the dataset was lost; the watcher writes a new
// id (SET NX, so of several processes one id wins) and reports the loss. A marker holding another id than the
// one last seen means another process saw the loss first (and recreated it): that is a loss for this process
// too. Connection errors are not a loss; the next successful check decides.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisKeyPrefix, redisKeys } from './redis-keys.js';

export type RedisLoss = {
  /** The epoch the watcher knew, and the one now current. */
  readonly previousEpoch: string;
  readonly epoch: string;
  /** Whether the marker was missing (this process saw it first) or replaced by another process. */
  readonly how: 'missing' | 'replaced';
};

export type RedisLossWatcher = {
  /** The current epoch id. */
  readonly epoch: string;
  /** Runs one check now (tests; the timer does the same); true when a loss was found. */
  check(): Promise<boolean>;
  stop(): void;
};

export type WatchRedisLossOptions = {
  /** Default 2 000. */
  readonly intervalMs?: number;
  /** Told of a failed check (connection errors); the watcher keeps going. */
  readonly onError?: (err: unknown) => void;
};

/** The marker key of one queue: `<prefix>:{<name>}:epoch`. */
export function epochKey(queueName: string, prefix = 'fleetq'): string {
  return redisKeys(redisKeyPrefix(queueName, prefix)).epoch;
}

/**
 * Writes (or adopts) the epoch marker at `key`, then checks it every intervalMs and calls onLoss when the
 * dataset behind it was lost. The caller owns `redis`.
 */
export async function watchRedisLoss(
  redis: Redis,
  key: string,
  onLoss: (loss: RedisLoss) => void,
  options: WatchRedisLossOptions = {},
): Promise<RedisLossWatcher> {
  let epoch = await claim(redis, key);
  let checking: Promise<boolean> | undefined;
  const check = (): Promise<boolean> =>
    (checking ??= (async () => {
      try {
        const current = await redis.get(key);
        if (current === epoch) return false;
        const previousEpoch = epoch;
        epoch = current ?? (await claim(redis, key));
        onLoss({ previousEpoch, epoch, how: current === null ? 'missing' : 'replaced' });
        return true;
      } finally {
        checking = undefined;
      }
    })());
  const timer = setInterval(() => {
    check().catch((err: unknown) => options.onError?.(err));
  }, options.intervalMs ?? 2_000);
  timer.unref();
  return {
    get epoch() {
      return epoch;
    },
    check,
    stop: () => clearInterval(timer),
  };
}

/** SET NX a new id; if another process won the race, adopt its id. */
async function claim(redis: Redis, key: string): Promise<string> {
  const mine = randomUUID();
  if ((await redis.set(key, mine, 'NX')) === 'OK') return mine;
  const theirs = await redis.get(key);
  return theirs ?? (await claim(redis, key));
}
