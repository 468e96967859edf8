// Only a holder that died counts towards quarantine (cluster-quarantine.ts), on real Redis, holder by holder: the
// lease scripts (forwarder-lease.ts) and the membership heartbeat (pool-membership.ts) as a pool member runs them.
//   - a holder that keeps heartbeating but lets a syncing cluster's lease lapse, again and again, is not dying: no
//     death is counted, the cluster is never quarantined, and each lapse is reported (to the lapsed holder);
//   - a holder that stops heartbeating (dies) while syncing counts one death each time, and the cluster is
//     quarantined at the threshold, even when its membership is still live when its lease is taken over (the
//     death is counted by the heartbeat that finds the membership expired);
//   - a pending suspicion is settled by the next takeover that finds a later holder's mark.
import { afterAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '../../infra/sandbox/process.js';
import { readDeathRecords, type LargestObject } from '../../shared/forwarder/cluster-quarantine.js';
import { forwarderSuspectsKey, queuePrefixOf } from '../../shared/forwarder/forwarder-keys.js';
import { ForwarderLease, type AcquireResult } from '../../shared/forwarder/forwarder-lease.js';
import { PoolMembership, type SettledSuspicion } from '../../shared/forwarder/pool-membership.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const redis = redisClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await deleteQueueKeys(redis, p);
  await redis.quit();
});

const LEASE_MS = 300;
const DEATHS = 3;

function fixture(membershipMs: number) {
  const prefix = queuePrefixOf(testQueueName());
  prefixes.push(prefix);
  const lease = (holder: string) =>
    new ForwarderLease({
      redis,
      queuePrefix: prefix,
      cluster: 'c1',
      holder,
      leaseMs: LEASE_MS,
      quarantineDeaths: DEATHS,
      quarantineMs: 600_000,
    });
  const member = (holder: string) =>
    new PoolMembership(redis, prefix, holder, membershipMs, { deaths: DEATHS, ms: 600_000 });
  const records = async () => (await readDeathRecords(redis, prefix)).records;
  const suspicion = () => redis.hget(forwarderSuspectsKey(prefix), 'c1');
  return { prefix, lease, member, records, suspicion };
}

/** Waits for the lease to expire in Redis while `alive` members keep heartbeating (the settled suspicions). */
async function lapse(l: ForwarderLease, alive: PoolMembership[]): Promise<SettledSuspicion[]> {
  const settled: SettledSuspicion[] = [];
  await waitFor(
    async () => {
      for (const m of alive) settled.push(...(await m.heartbeat('d')).settled);
      return (await redis.exists(l.key)) === 0;
    },
    5_000,
    20,
    'lease expiry',
  );
  return settled;
}

const taken = (got: AcquireResult) => (got.acquired ? got : undefined);

describe('forwarder quarantine: only holders that died count', () => {
  it('a live holder whose syncing lease lapses three times (and more) is not quarantined; each lapse is said', async () => {
    const { lease, member, records, suspicion } = fixture(2_000);
    const a = member('A');
    const b = member('B');
    await a.heartbeat('d');
    await b.heartbeat('d');
    const settled: SettledSuspicion[] = [];
    let lapsesAtAcquire = 0;

    // A holds, syncing, lets it lapse (starved) while heartbeating; B takes it: a suspicion, no death.
    const a1 = lease('A');
    expect(await a1.acquire()).toMatchObject({ acquired: true, deaths: 0 });
    await a1.renew({ holder: 'A', resource: 'deployments', object: 'ns/big', bytes: 1_000 });
    settled.push(...(await lapse(a1, [a, b])));
    const b1 = lease('B');
    const gotB1 = taken(await b1.acquire());
    expect(gotB1).toMatchObject({ deaths: 0, suspected: 'A' });
    expect(gotB1?.died).toBeUndefined();
    expect(await suspicion()).toContain('"holder":"A"');
    // A's next heartbeat shows it alive: the suspicion is dropped as a lapse.
    settled.push(...(await a.heartbeat('d')).settled);
    expect(await suspicion()).toBeNull();

    // B lapses; A takes it back: a suspicion of B, which B's heartbeat drops.
    settled.push(...(await lapse(b1, [a, b])));
    const a2 = lease('A');
    expect(await a2.acquire()).toMatchObject({ acquired: true, deaths: 0, suspected: 'B' });
    settled.push(...(await b.heartbeat('d')).settled);

    // A lapses and takes its own cluster back (the same process: alive at once).
    settled.push(...(await lapse(a2, [a, b])));
    const a3 = lease('A');
    const gotA3 = taken(await a3.acquire());
    expect(gotA3).toMatchObject({ deaths: 0, lapses: 1 });
    lapsesAtAcquire += gotA3?.lapses ?? 0;

    // And once more through B.
    settled.push(...(await lapse(a3, [a, b])));
    expect(await lease('B').acquire()).toMatchObject({ acquired: true, deaths: 0, suspected: 'A' });
    settled.push(...(await a.heartbeat('d')).settled, ...(await b.heartbeat('d')).settled);

    expect(settled.filter((s) => s.outcome === 'died')).toEqual([]);
    expect(settled).toEqual([
      { outcome: 'lapsed', cluster: 'c1', holder: 'A' },
      { outcome: 'lapsed', cluster: 'c1', holder: 'B' },
      { outcome: 'lapsed', cluster: 'c1', holder: 'A' },
    ]);
    expect(lapsesAtAcquire).toBe(1);
    expect((await records()).has('c1')).toBe(false);
    expect((await a.heartbeat('d')).quarantined.size).toBe(0);
  });

  it('a holder that dies while syncing counts a death each time, even with its membership live at the takeover; quarantined at the threshold', async () => {
    // As in a pool, each holder's last heartbeat comes after its last renewal, and its membership (1.2 s) outlives
    // its lease (0.3 s): each takeover finds the dead holder still a member.
    const { lease, member, records, suspicion } = fixture(1_200);
    const watcher = member('W'); // a live member whose heartbeats settle the suspicions
    await watcher.heartbeat('d');
    const settled: SettledSuspicion[] = [];
    let lastView: Awaited<ReturnType<PoolMembership['heartbeat']>> | undefined;
    /** Heartbeats `alive` (renewing `holding` first) until a suspicion is settled. */
    const settle = (alive: PoolMembership[], holding?: { lease: ForwarderLease; report: LargestObject }) =>
      waitFor(
        async () => {
          if (holding) await holding.lease.renew(holding.report);
          const before = settled.length;
          for (const m of alive) {
            lastView = await m.heartbeat('d');
            settled.push(...lastView.settled);
          }
          return settled.length > before;
        },
        5_000,
        20,
        'a suspicion settled',
      );
    const holders = ['A', 'B', 'C'];
    let previous: ForwarderLease | undefined;
    for (const [i, holder] of holders.entries()) {
      const m = member(holder);
      await m.heartbeat('d');
      if (previous) await lapse(previous, [watcher, m]);
      const l = lease(holder);
      const got = await l.acquire();
      const report = { holder, resource: 'configmaps', object: `ns/cm-${i}`, bytes: 100 * (i + 1) };
      await l.renew(report);
      if (i === 0) expect(got).toMatchObject({ acquired: true, deaths: 0 });
      else {
        // The previous holder's membership is still live: a suspicion, not yet a death.
        expect(got).toMatchObject({ acquired: true, deaths: 0, suspected: holders[i - 1] });
        expect((await records()).get('c1')?.deaths ?? 0).toBe(i - 1);
        // It never heartbeats again: once its membership expires a heartbeat counts the death.
        await settle([watcher, m], { lease: l, report });
        expect(settled.at(-1)).toMatchObject({
          outcome: 'died',
          holder: holders[i - 1],
          record: { deaths: i },
          quarantined: false,
        });
      }
      // Its last signs of life (renewal, then heartbeat); then it dies while syncing.
      await l.renew(report);
      await m.heartbeat('d');
      previous = l;
    }
    // The third holder dies the same way: its death, counted by a heartbeat, quarantines the cluster.
    const d = member('D');
    await d.heartbeat('d');
    await lapse(previous as ForwarderLease, [watcher, d]);
    const dLease = lease('D');
    expect(await dLease.acquire()).toMatchObject({ acquired: true, deaths: 0, suspected: 'C' });
    await settle([watcher, d]);
    expect(settled.map((s) => s.outcome)).toEqual(['died', 'died', 'died']);
    expect(settled.at(-1)).toMatchObject({
      holder: 'C',
      quarantined: true,
      record: { deaths: 3, largest: { holder: 'C', object: 'ns/cm-2', bytes: 300 } },
    });
    expect(lastView?.quarantined.get('c1')).toMatchObject({ deaths: 3 });
    expect(await suspicion()).toBeNull();
    // D (which a pool releases once it sees the quarantine) lets it go; nobody takes it while quarantined.
    await dLease.release();
    expect(await lease('E').acquire()).toMatchObject({ acquired: false, quarantine: { now: false } });
  });

  it('a pending suspicion is counted by the next takeover that finds a later holder’s mark', async () => {
    const { lease, member, records, suspicion } = fixture(5_000);
    const a = member('A');
    await a.heartbeat('d');
    const a1 = lease('A');
    await a1.acquire();
    await lapse(a1, []); // A dies; its membership lives on for 5 s
    const b1 = lease('B'); // B is no member: its own death counts at once
    expect(await b1.acquire()).toMatchObject({ acquired: true, deaths: 0, suspected: 'A' });
    await lapse(b1, []);
    // C finds B's mark with A's suspicion pending: both are deaths (A cannot have heartbeated, or it would be gone).
    expect(await lease('C').acquire()).toMatchObject({ acquired: true, deaths: 2, died: { deaths: 2 } });
    expect(await suspicion()).toBeNull();
    expect((await records()).get('c1')).toMatchObject({ deaths: 2 });
  });

  it('a finished sync forgets a pending suspicion with the deaths', async () => {
    const { lease, member, suspicion, records } = fixture(5_000);
    await member('A').heartbeat('d');
    const a1 = lease('A');
    await a1.acquire();
    await lapse(a1, []);
    const b1 = lease('B');
    expect(await b1.acquire()).toMatchObject({ suspected: 'A' });
    expect(await b1.synced()).toBe('forgot-deaths');
    expect(await suspicion()).toBeNull();
    expect((await records()).has('c1')).toBe(false);
  });
});
