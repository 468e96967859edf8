// A cluster whose forwarder holders keep dying while they sync it is quarantined, not handed on to the next
// member for ever. Real `fleetq forwarder --pool` processes on real Redis share two registry entries:
//   stuck    its server is a TCP listener this test runs that accepts connections and never answers, so its
//            forwarder never finishes its first list (it stays "syncing");
//   healthy  the sandbox's fleetq-1, when the sandbox is up: it must stay held throughout.
// The test SIGKILLs whichever process holds `stuck` (read from its lease in Redis) and starts a replacement, as a
// Deployment would, three times (FLEETQ_FORWARDER_QUARANTINE_DEATHS=3). Then `stuck` stays unheld for several
// lease periods while members are alive, `fleetq status --json` lists it with its three deaths, a member's metrics
// show the quarantined-clusters gauge at 1, and `fleetq forwarder unquarantine stuck` makes a member take it again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readState } from '../../infra/sandbox/sandbox.js';
import { parseDeathRecord, parseSyncingMark } from '../../shared/forwarder/cluster-quarantine.js';
import { forwarderDeathsKey, forwarderMembersKey, queuePrefixOf } from '../../shared/forwarder/forwarder-keys.js';
import { readLeaseHolders } from '../../shared/forwarder/forwarder-lease.js';
import { deleteAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { writeRegistry, type RegistryEntry } from '../helpers/pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../helpers/processes.js';
import { REDIS_URL } from '../helpers/queue/redis.js';

const LEASE_MS = 3_000;
const DEATHS = 3;

describe('forwarder pool: a cluster whose holders keep dying while syncing it', () => {
  const queue = `quarantine-${randomUUID().slice(0, 8)}`;
  const prefix = queuePrefixOf(queue);
  const redis = new Redis(REDIS_URL);
  const sockets = new Set<Socket>();
  let silent: Server;
  const procs: Proc[] = [];
  const ports = new Map<Proc, number>();
  let env: NodeJS.ProcessEnv;
  let healthy = false;

  /** A pool member with its own metrics port. */
  const member = async (): Promise<Proc> => {
    const port = await freePort();
    const p = spawnTsx('functions/cli.ts', { ...env, FLEETQ_METRICS_PORT: String(port) }, `member-${procs.length}`, [
      'forwarder',
      '--pool',
    ]);
    procs.push(p);
    ports.set(p, port);
    return p;
  };
  const alive = (): Proc[] => procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  const procOf = (holder: string | undefined): Proc | undefined =>
    holder === undefined ? undefined : alive().find((p) => String(p.child.pid) === holder.split('/')[1]);
  const liveMembers = async (): Promise<number> => {
    const [sec] = await redis.time();
    return redis.zcount(forwarderMembersKey(prefix), `(${Number(sec) * 1000}`, '+inf');
  };
  /** The last lines of every member, for a failure's message. */
  const tails = (): string =>
    procs.map((p, i) => `--- member-${i} (pid ${p.child.pid}) ---\n${p.lines.slice(-6).join('\n')}`).join('\n');
  const metric = async (p: Proc, name: string): Promise<number | undefined> => {
    const text = await fetch(`http://127.0.0.1:${ports.get(p)}/metrics`).then((r) => r.text());
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };

  beforeAll(async () => {
    silent = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port for the silent server');
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'fleetq-quarantine-')), 'token');
    writeFileSync(tokenFile, 'no-such-token');
    const entries: RegistryEntry[] = [
      {
        name: 'stuck',
        server: `http://127.0.0.1:${address.port}`,
        tokenFile,
        allowInsecure: true,
        owns: ['Deployment'],
      },
    ];
    // The sandbox is optional here: its cluster is only the bystander that must stay watched.
    const fleetq1 = readState().clusters.find((c) => c.name === 'fleetq-1');
    if (fleetq1) {
      healthy = true;
      entries.push({ name: 'healthy', kubeconfig: fleetq1.kubeconfig, owns: ['Deployment'] });
    } else {
      console.log('forwarder-quarantine: no sandbox cluster fleetq-1; running without the healthy bystander');
    }
    env = {
      FLEETQ_REGISTRY: writeRegistry(entries),
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL,
      FLEETQ_FORWARDER_LEASE_MS: String(LEASE_MS),
      FLEETQ_FORWARDER_QUARANTINE_DEATHS: String(DEATHS),
      FLEETQ_FORWARDER_QUARANTINE_MS: '600000',
      FLEETQ_RESYNC_MS: '0',
      FLEETQ_EVENT_LOG: 'none',
      FLEETQ_READS: 'live',
      LOG_LEVEL: 'info',
    };
    for (let i = 0; i < 3; i++) await member();
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await deleteQueueKeys(redis, prefix);
    await deleteAllCheckpoints(redis, `fleetq:${queue}`);
    redis.disconnect();
  });

  /**
   * The bystander is held by a live member and synced. A change of members or of the assignment (a member killed
   * or joining, `stuck` leaving or rejoining it) may hand it from one member to another: the release and the next
   * member's take are a round apart, so this waits up to two lease periods for it.
   */
  const healthyWatched = (when: string): Promise<void> =>
    waitFor(
      async () =>
        procOf((await readLeaseHolders(redis, prefix)).get('healthy')?.holder) !== undefined &&
        (await redis.hexists(`${prefix}fwd:syncing`, 'healthy')) === 0,
      2 * LEASE_MS + 30_000,
      200,
      `healthy held by a live member and synced ${when}`,
    );

  it('is quarantined after three deaths while syncing, reported, and taken again once lifted', async () => {
    const syncingKey = `${prefix}fwd:syncing`;
    const deathsNow = async (): Promise<number> => {
      const v = await redis.hget(forwarderDeathsKey(prefix), 'stuck');
      return v === null ? 0 : (parseDeathRecord(v)?.deaths ?? 0);
    };
    // Kill the holder of `stuck` until three deaths are counted. A kill counts only if the victim still held the
    // cluster (and was syncing it): a member that joins meanwhile can make the holder hand it on first, so the
    // count in Redis, not the number of kills, says when to stop.
    let lastToken = 0;
    let kills = 0;
    while ((await deathsNow()) < DEATHS) {
      if (kills >= DEATHS + 3) throw new Error(`${kills} kills counted only ${await deathsNow()} deaths\n${tails()}`);
      let victim: Proc | undefined;
      await waitFor(
        async () => {
          const h = (await readLeaseHolders(redis, prefix)).get('stuck');
          victim = procOf(h?.holder);
          // The holder is syncing it under this very token, and the bystander is not mid-sync (a death while
          // syncing would count against it too).
          const mark = await redis.hget(syncingKey, 'stuck');
          const bystanderSyncing = healthy && (await redis.hexists(syncingKey, 'healthy')) === 1;
          if (!h || !victim || h.token <= lastToken || bystanderSyncing) return false;
          if (mark === null || parseSyncingMark(mark)?.token !== h.token) return false;
          lastToken = h.token;
          return true;
        },
        // The first wait includes the members' start (tens of seconds on a loaded machine).
        kills === 0 ? 180_000 : 90_000,
        100,
        `stuck held and syncing under a new token before kill ${kills + 1}`,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${tails()}`);
      });
      const before = await deathsNow();
      (victim as Proc).child.kill('SIGKILL');
      await (victim as Proc).exited;
      kills++;
      await member();
      // The next member to take it counts the death (and at the third refuses it instead).
      await waitFor(
        async () =>
          (await deathsNow()) > before ||
          ((await readLeaseHolders(redis, prefix)).get('stuck')?.token ?? 0) > lastToken,
        90_000,
        100,
        `stuck taken again or its death counted after kill ${kills}`,
      );
    }
    expect(await deathsNow()).toBe(DEATHS);

    // The next member to try it finds the third death and quarantines it: the lease stays free while members run.
    await waitFor(async () => (await liveMembers()) >= 2, 120_000, 200, 'two live pool members');
    const freeSince = Date.now();
    let takenBy: string | undefined;
    await waitFor(
      async () => {
        takenBy = (await readLeaseHolders(redis, prefix)).get('stuck')?.holder;
        return takenBy !== undefined || Date.now() - freeSince >= 4 * LEASE_MS;
      },
      8 * LEASE_MS,
      200,
      'stuck left free for four lease periods',
    );
    expect({ stuckTakenAgainBy: takenBy }).toEqual({ stuckTakenAgainBy: undefined });
    expect(await liveMembers()).toBeGreaterThanOrEqual(2);
    const logged = alive()
      .flatMap((p) => jsonLines(p))
      .find((l) => l.level === 'error' && l.message === 'Cluster quarantined' && l.cluster === 'stuck');
    expect(logged).toMatchObject({
      deaths: DEATHS,
      remedy: expect.stringContaining('fleetq forwarder unquarantine stuck'),
    });

    // A member's metrics: one quarantined cluster; the member that quarantined it counted a death while syncing.
    await waitFor(
      async () => {
        const gauges = await Promise.all(alive().map((p) => metric(p, 'fleetq_forwarder_quarantined_clusters')));
        return gauges.some((g) => g === 1);
      },
      20_000,
      250,
      'fleetq_forwarder_quarantined_clusters 1 on a live member',
    );
    const deaths = await Promise.all(alive().map((p) => metric(p, 'fleetq_forwarder_deaths_while_syncing_total')));
    expect(deaths.some((d) => (d ?? 0) >= 1)).toBe(true);

    // `fleetq status --json` lists it with its deaths and until when.
    const status = spawnTsx('functions/cli.ts', env, 'status --json', ['status', '--json']);
    expect(await status.exited).toBe(0);
    const printed = JSON.parse(status.lines.find((l) => l.startsWith('{')) ?? 'null') as {
      quarantined?: Array<{ cluster: string; deaths: number; untilMs: number; sinceMs: number }>;
      clusters: Array<{ cluster: string; forwarder: string | null }>;
    };
    const q = printed.quarantined?.find((c) => c.cluster === 'stuck');
    expect(q).toMatchObject({ deaths: DEATHS });
    expect((q?.untilMs ?? 0) - (q?.sinceMs ?? 0)).toBe(600_000);
    expect(printed.clusters.find((c) => c.cluster === 'stuck')?.forwarder ?? null).toBeNull();
    if (healthy) await healthyWatched('after the quarantine');

    // Lifted: a member takes it again within a round or two.
    const lift = spawnTsx('functions/cli.ts', env, 'unquarantine', ['forwarder', 'unquarantine', 'stuck']);
    expect(await lift.exited).toBe(0);
    expect(lift.lines.join('\n')).toMatch(/stuck: quarantine lifted/);
    await waitFor(
      async () => procOf((await readLeaseHolders(redis, prefix)).get('stuck')?.holder) !== undefined,
      6 * LEASE_MS,
      200,
      'stuck taken again after unquarantine',
    );
    if (healthy) await healthyWatched('after the unquarantine');

    // Lifting a second time finds nothing to lift; no cluster named is bad usage (exit 2), said by the command.
    const again = spawnTsx('functions/cli.ts', env, 'unquarantine again', ['forwarder', 'unquarantine', 'stuck']);
    expect(await again.exited).toBe(0);
    expect(again.lines.join('\n')).toMatch(/stuck: not quarantined \(no deaths recorded\); nothing to lift/);
    const bare = spawnTsx('functions/cli.ts', env, 'unquarantine (no cluster)', ['forwarder', 'unquarantine']);
    expect(await bare.exited).toBe(2);
    expect(bare.lines.join('\n')).toMatch(/missing required argument 'cluster'/);
  });
});
