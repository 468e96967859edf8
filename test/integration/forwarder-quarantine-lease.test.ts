// The lease scripts' side of the quarantine (forwarder-lease.ts, cluster-quarantine.ts) on real Redis, holder by
// holder: a holder that "dies" here simply stops renewing (its lease expires, as a killed process's does).
//   - a death counts only while the holder was syncing: one that released, or whose first lists finished, does not;
//   - the largest object a dead holder reported is kept; at the threshold the acquire refuses, atomically;
//   - a finished sync forgets the deaths; after the quarantine's time one more death re-quarantines at once;
//   - garbage in the two HASHes is treated as absent, never thrown on; unquarantine removes the record.
import { afterAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '../../infra/sandbox/process.js';
import { liftQuarantine, readDeathRecords } from '../../shared/forwarder/cluster-quarantine.js';
import { forwarderDeathsKey, forwarderSyncingKey, queuePrefixOf } from '../../shared/forwarder/forwarder-keys.js';
import { ForwarderLease } from '../../shared/forwarder/forwarder-lease.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const redis = redisClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await deleteQueueKeys(redis, p);
  await redis.quit();
});

const LEASE_MS = 300;

function fixture(quarantineMs = 600_000) {
  const prefix = queuePrefixOf(testQueueName());
  prefixes.push(prefix);
  const lease = (holder: string) =>
    new ForwarderLease({
      redis,
      queuePrefix: prefix,
      cluster: 'c1',
      holder,
      leaseMs: LEASE_MS,
      quarantineDeaths: 3,
      quarantineMs,
    });
  /** The holder stops renewing (killed): wait for its lease to expire in Redis. */
  const die = (l: ForwarderLease) => waitFor(async () => (await redis.exists(l.key)) === 0, 5_000, 20, 'lease expiry');
  return { prefix, lease, die };
}

describe('forwarder lease: deaths while syncing and the quarantine', () => {
  it('counts holders dying mid-sync, keeps the largest object, quarantines at the third, refuses after', async () => {
    const { prefix, lease, die } = fixture();
    const a = lease('A');
    expect(await a.acquire()).toMatchObject({ acquired: true });
    expect(await a.renew({ holder: 'A', resource: 'deployments', object: 'tenant/big-1', bytes: 900_000 })).toBe(true);
    await die(a);

    const b = lease('B');
    const gotB = await b.acquire();
    expect(gotB).toMatchObject({ acquired: true, died: { deaths: 1, untilMs: 0 } });
    expect(gotB.acquired && gotB.died?.largest).toEqual({
      holder: 'A',
      resource: 'deployments',
      object: 'tenant/big-1',
      bytes: 900_000,
    });
    // A smaller object reported by the next dead holder does not replace the larger one.
    await b.renew({ holder: 'B', resource: 'pods', object: 'tenant/p', bytes: 10 });
    await die(b);
    const c = lease('C');
    const gotC = await c.acquire();
    expect(gotC).toMatchObject({ acquired: true, died: { deaths: 2, largest: { object: 'tenant/big-1' } } });
    await die(c);

    const d = lease('D');
    const gotD = await d.acquire();
    expect(gotD).toMatchObject({
      acquired: false,
      quarantine: {
        now: true,
        record: { deaths: 3, largest: { holder: 'A', object: 'tenant/big-1', bytes: 900_000 } },
      },
    });
    const q = gotD.acquired ? undefined : gotD.quarantine?.record;
    expect((q?.untilMs ?? 0) - (q?.sinceMs ?? 0)).toBe(600_000);
    expect(await redis.exists(d.key)).toBe(0);
    expect(await redis.hexists(forwarderSyncingKey(prefix), 'c1')).toBe(0);
    // Everyone after is refused too, without another death.
    expect(await lease('E').acquire()).toMatchObject({
      acquired: false,
      quarantine: { now: false, record: { deaths: 3 } },
    });

    // Lifted: the next holder takes it, and no death is counted.
    expect(await liftQuarantine(redis, prefix, 'c1')).toMatchObject({ removed: true, record: { deaths: 3 } });
    const f = lease('F');
    const gotF = await f.acquire();
    expect(gotF).toMatchObject({ acquired: true });
    expect(gotF.acquired && gotF.died).toBeUndefined();
    expect(await liftQuarantine(redis, prefix, 'c2')).toEqual({ removed: false });
  });

  it('a holder that released, or whose first lists finished, did not die while syncing', async () => {
    const { prefix, lease, die } = fixture();
    const a = lease('A');
    await a.acquire();
    expect(await a.release()).toBe(true);
    const b = lease('B');
    const gotB = await b.acquire();
    expect(gotB.acquired && gotB.died).toBeUndefined();
    await die(b); // one death while syncing
    const c = lease('C');
    expect(await c.acquire()).toMatchObject({ acquired: true, died: { deaths: 1 } });
    // C syncs: its mark goes and the count is forgotten; then it is killed, synced: no death.
    expect(await c.synced()).toBe('forgot-deaths');
    expect(await c.synced()).toBe('not-marked');
    expect(await redis.hexists(forwarderDeathsKey(prefix), 'c1')).toBe(0);
    await die(c);
    const d = lease('D');
    const gotD = await d.acquire();
    expect(gotD.acquired && gotD.died).toBeUndefined();
    // A holder whose lease already expired still clears its own mark when it releases (it shut down, it did not die).
    await die(d);
    await d.release();
    const e = lease('E');
    const gotE = await e.acquire();
    expect(gotE.acquired && gotE.died).toBeUndefined();
  });

  it('after the quarantine ends one more death re-quarantines at once (the count kept)', async () => {
    const { prefix, lease, die } = fixture(1_000);
    for (const holder of ['A', 'B', 'C']) {
      const l = lease(holder);
      await l.acquire();
      await die(l);
    }
    expect(await lease('D').acquire()).toMatchObject({ acquired: false, quarantine: { now: true } });
    let again: ForwarderLease | undefined;
    await waitFor(
      async () => {
        const l = lease('E');
        return (await l.acquire()).acquired && (again = l) !== undefined;
      },
      5_000,
      50,
      'the quarantine over',
    );
    await die(again as ForwarderLease);
    expect(await lease('F').acquire()).toMatchObject({
      acquired: false,
      quarantine: { now: true, record: { deaths: 4 } },
    });
    await waitFor(async () => (await lease('G').acquire()).acquired, 5_000, 50, 'the quarantine over again');
    const records = await readDeathRecords(redis, prefix);
    expect(records.records.get('c1')).toMatchObject({ deaths: 4 });
  });

  it('garbage in the syncing and deaths HASHes is treated as absent', async () => {
    const { prefix, lease, die } = fixture();
    await redis.hset(forwarderDeathsKey(prefix), 'c1', '99999999999999999999|0|99999999999999999999|x|y');
    await redis.hset(forwarderSyncingKey(prefix), 'c1', 'not a mark');
    const a = lease('A');
    const gotA = await a.acquire();
    expect(gotA).toMatchObject({ acquired: true });
    expect(gotA.acquired && gotA.died).toBeUndefined();
    expect((await readDeathRecords(redis, prefix)).unreadable).toEqual(['c1']);
    // A's own mark replaced the garbage; its death overwrites the unreadable record with a fresh count.
    await die(a);
    expect(await lease('B').acquire()).toMatchObject({ acquired: true, died: { deaths: 1 } });
    expect((await readDeathRecords(redis, prefix)).unreadable).toEqual([]);
  });
});
