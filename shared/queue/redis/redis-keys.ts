// Key layout of the Redis driver. Every key of one queue shares the hash tag `{queueName}`, so all of them
// live in one slot and the Lua scripts work unchanged on Redis Cluster. The scripts build the per-cluster
// ready-list names from the prefix, the way BullMQ's scripts do; the routing key passed as KEYS[1] is in the
// same slot. Keys named after an id (`last:<id>`) put the id after the prefix: Redis hashes the text between the
// first `{` and the next `}`, which is the prefix's tag whatever braces the id holds.
import { scanAllNodes, type RedisClient } from './redis-connection.js';

export function redisKeyPrefix(queueName: string, prefix = 'fleetq'): string {
  if (/[{}]/.test(queueName)) throw new RangeError(`queue name ${JSON.stringify(queueName)} must not contain { or }`);
  return `${prefix}:{${queueName}}:`;
}

/** What each key holds; ids are keyString(key). */
export function redisKeys(p: string) {
  return {
    /** HASH id → ready time (ms): keys waiting, ready or delayed. */
    pending: `${p}pending`,
    /** ZSET id → ready time: the delayed part of pending. */
    delayed: `${p}delayed`,
    /** LIST of ids per cluster, oldest first. */
    ready: (cluster: string) => `${p}ready:${cluster}`,
    /** LIST of clusters that have (or recently had) ready ids: the round-robin rotation. */
    rotation: `${p}rot`,
    /** SET of the clusters in the rotation list (so a cluster is listed once). */
    rotationMembers: `${p}rotset`,
    /**
     * HASH id → "token|readyAt" of the current lease (readyAt for queue-duration metrics). The token is
     * `host/pid/random.call.n` (redis-queue.ts queueInstanceId): the process holding the lease, then its numbers.
     */
    held: `${p}held`,
    /** ZSET id → lease expiry (ms). */
    leases: `${p}leases`,
    /** HASH cluster → keys held. */
    heldPerCluster: `${p}hc`,
    /** HASH id → ready time requested while held. */
    dirty: `${p}dirty`,
    /** HASH id → consecutive failures. */
    failures: `${p}fail`,
    /** HASH id → consecutive conflict retries (their own backoff; not failures). */
    conflicts: `${p}conf`,
    /** HASH entry id → JSON dead letter {id | raw, reason, failures, at, seq}. */
    deadLetters: `${p}dl`,
    /**
     * STRING per id with a 24 h TTL: JSON {at, result, error?} of the key's last outcome (done | requeued |
     * retried | conflict | dead-lettered), set by the script of that outcome (lua/includes/last-run.lua); the error
     * redacted and capped by the client. Read by `fleetq describe`; the TTL drops the records of deleted objects.
     */
    lastOutcome: (id: string) => `${p}last:${id}`,
    /** STRING counter: dead-letter order. */
    sequence: `${p}seq`,
    /** LIST of wake-up marks for blocked get() calls. */
    wake: `${p}wake`,
    /** HASH id → HMAC-SHA256 of the id (only with a signingSecret), kept while the key is pending or held. */
    signatures: `${p}sig`,
    /** STRING with a TTL: present while the last rotation heal is recent (get heals at most once per TTL). */
    healCheck: `${p}healchk`,
    /** STRING: a random id written at start; its absence means the data was lost (see redis-loss.ts). */
    epoch: `${p}epoch`,
    /**
     * HASH {tokens, at}: an API token bucket, shared by every worker and Lambda of this queue
     * (kube/redis-token-bucket.ts); named `<cluster>/<controller>` for a controller's budget in a cluster, or
     * `<cluster>` for the cluster's cap (runtime/clients.ts). Expires once it would be full again, so a missing
     * key is a full bucket.
     */
    apiBucket: (name: string) => `${p}apibucket:${name}`,
    /** ZSET process id → last take (ms) per bucket: who shares the bucket, for a process's share in an outage. */
    apiBucketTakers: (name: string) => `${p}apibucket:${name}:takers`,
  };
}

/**
 * Deletes every key of one queue (tests, and `fleetq queue delete`). On a Redis Cluster the SCAN runs on every
 * primary (a SCAN sees only its own node's keys); each batch is deleted on the node that holds it.
 */
export async function deleteQueueKeys(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  await scanAllNodes(redis, pattern, async (keys, node) => {
    // One DEL per key: keys under a prefix without a hash tag may sit in several slots of the node.
    const pipeline = node.pipeline();
    for (const k of keys) pipeline.del(k);
    for (const [err, n] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      deleted += Number(n);
    }
  });
  return deleted;
}
