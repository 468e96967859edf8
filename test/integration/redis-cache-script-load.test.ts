// The cache's writes take effect in the order the forwarder sends them, also on a Redis that has not yet loaded
// their script. A forwarder sends a batch's events together (event-pipeline.ts onEvents); before, each went as
// EVALSHA and, on NOSCRIPT, as EVAL after the reply: when another client loaded the script between two of them
// (another forwarder's first event on that node), the first came back NOSCRIPT, the second ran, and the first's
// EVAL ran after it. Its object was then below the watermark the second had moved, read as deleted since, and
// never filed: in a 1,000-cluster bench, two Deployments created right after their cluster's sync (the first
// events anyone sent to the nodes) were never reconciled (docs/benchmarks.md). Here the other client's load is
// made to fall between them: a BLPOP on the forwarder's connection holds it between the two writes until the
// other client has loaded the script. A redis-server of the test's own, so no script is loaded at the start.
// The forwarder now sends a batch's events as one call (applyEvents: one applyMany script call), so a NOSCRIPT at
// any time, a script cache emptied by SCRIPT FLUSH or a failover included, re-sends the batch whole.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { applyEvent, applyEvents } from '../../shared/cache/apply-event.js';
import { entryId } from '../../shared/cache/cache-entry.js';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { CACHE_SCRIPTS } from '../../shared/cache/redis-cache-scripts.js';
import { startOwnRedis, type OwnRedis } from '../helpers/queue/redis.js';

let own: OwnRedis;
beforeAll(async () => {
  own = await startOwnRedis();
});
afterAll(() => own.stop());

const deployment = (name: string, resourceVersion: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion },
  spec: { replicas: 1 },
});

/**
 * Runs `test` with a cache store on a forwarder's connection, after the cluster's first list (no Deployment yet, at
 * resourceVersion 100), and another client of the same server.
 */
async function afterFirstList(
  cluster: string,
  test: (store: RedisCacheStore, forwarder: Redis, other: Redis) => Promise<void>,
): Promise<void> {
  const forwarder = new Redis(own.url, { maxRetriesPerRequest: 1 });
  const other = new Redis(own.url, { maxRetriesPerRequest: 1 });
  try {
    const store = new RedisCacheStore({ redis: forwarder, cluster });
    await store.heartbeat(60_000);
    await applyEvent(store, { type: 'LISTED', kind: 'Deployment', objects: [], resourceVersion: '100' });
    await test(store, forwarder, other);
  } finally {
    forwarder.disconnect();
    other.disconnect();
  }
}

it('two ADDED events sent together are both filed when another client loads the put script between them', () =>
  afterFirstList('sim-55', async (store, forwarder, other) => {
    expect(await other.script('EXISTS', sha1Of('applyMany'))).toEqual([0]);

    // One batch: app-0 (rv 101), then app-1 (rv 102), sent together; the BLPOP between them on the same
    // connection holds the second until the other client has loaded the script.
    const first = applyEvent(store, { type: 'ADDED', kind: 'Deployment', object: deployment('app-0', '101') });
    const gate = forwarder.blpop('gate', 0);
    const second = applyEvent(store, { type: 'ADDED', kind: 'Deployment', object: deployment('app-1', '102') });
    await waitUntilBlocked(other);
    await other.script('LOAD', CACHE_SCRIPTS.applyMany);
    await other.lpush('gate', 'open');
    await Promise.all([first, second, gate]);

    expect(await store.get(entryId('Deployment', 'default', 'app-1'))).not.toBeNull();
    expect(await store.get(entryId('Deployment', 'default', 'app-0'))).not.toBeNull();
    expect(await store.watermark('Deployment')).toBe('102');
  }));

it("a batch sent after the node's script cache was emptied (SCRIPT FLUSH, a failover) is filed whole, in order", () =>
  afterFirstList('sim-111', async (store, _forwarder, other) => {
    await applyEvent(store, { type: 'ADDED', kind: 'Deployment', object: deployment('app-0', '101') });
    // The runner has sent the script: its next call goes as EVALSHA and comes back NOSCRIPT.
    await other.script('FLUSH');
    const batch = applyEvents(store, 'Deployment', [
      { type: 'ADDED', kind: 'Deployment', object: deployment('app-1', '102') },
      { type: 'ADDED', kind: 'Deployment', object: deployment('app-2', '103') },
      { type: 'DELETED', kind: 'Deployment', object: deployment('app-0', '104') },
    ]);
    await other.script('LOAD', CACHE_SCRIPTS.applyMany);
    await batch;
    expect(await store.get(entryId('Deployment', 'default', 'app-1'))).not.toBeNull();
    expect(await store.get(entryId('Deployment', 'default', 'app-2'))).not.toBeNull();
    expect(await store.get(entryId('Deployment', 'default', 'app-0'))).toBeNull();
    expect(await store.watermark('Deployment')).toBe('104');
  }));

/** The SHA1 the server knows the cache's `name` script by. */
function sha1Of(name: keyof typeof CACHE_SCRIPTS): string {
  return createHash('sha1').update(CACHE_SCRIPTS[name]).digest('hex');
}

async function waitUntilBlocked(client: Redis): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const info = await client.info('clients');
    if (/blocked_clients:1\b/.test(info)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the forwarder connection never blocked on the gate');
}
