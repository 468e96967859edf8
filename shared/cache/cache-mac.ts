// Message authentication of what a shared cache keeps in Redis (redis-cache-store.ts): entries, watermarks, write
// records and kept states are read back by handlers that act on them, and Redis is outside the trust boundary (DESIGN.md).
// HMAC-SHA256 under a key derived from the queue's signing secret (FLEETQ_SIGNING_SECRET), so a cache MAC is
// never a valid key signature or the other way round. The MAC covers what the value is for (entry, watermark or
// write record), the cluster, the value's id within it (entry id, kind, reconcile key) and its exact bytes: a
// value moved to another id or cluster does not verify. The first secret signs; every one verifies (rotation).
import { createHmac, timingSafeEqual } from 'node:crypto';

export type MacPurpose = 'entry' | 'watermark' | 'record' | 'alive' | 'kept';

/** 64 lowercase hex characters. */
export const MAC_HEX_LENGTH = 64;

const DERIVATION_LABEL = 'fleetq cache mac v1';

export class CacheMac {
  private readonly keys: readonly Buffer[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new RangeError('CacheMac needs at least one secret');
    this.keys = secrets.map((s) => createHmac('sha256', s).update(DERIVATION_LABEL, 'utf8').digest());
  }

  /** The MAC (hex) of `body` stored as `purpose` under `id` of `cluster`, with the signing (first) secret. */
  sign(purpose: MacPurpose, cluster: string, id: string, body: string): string {
    return this.macWith(this.keys[0] as Buffer, purpose, cluster, id, body).toString('hex');
  }

  /** True when `mac` is the MAC of body under one of the secrets; constant time per secret. */
  verify(purpose: MacPurpose, cluster: string, id: string, body: string, mac: string): boolean {
    if (!/^[0-9a-f]{64}$/.test(mac)) return false;
    const given = Buffer.from(mac, 'hex');
    let ok = false;
    for (const key of this.keys) ok = timingSafeEqual(this.macWith(key, purpose, cluster, id, body), given) || ok;
    return ok;
  }

  private macWith(key: Buffer, purpose: MacPurpose, cluster: string, id: string, body: string): Buffer {
    // JSON framing: no choice of cluster, id or body can make two different triples read the same.
    return createHmac('sha256', key)
      .update(JSON.stringify([purpose, cluster, id]), 'utf8')
      .update('\n', 'utf8')
      .update(body, 'utf8')
      .digest();
  }
}
