// Rotating the signing secret (docs/operations/signing-key-rotation.md) on the two shared drivers: Redis (real
// Redis at REDIS_URL) and SQS (a real fauxqs). Workers are separate queue instances over the same store, as
// separate processes would be: some still on the old secret, some switched to (new, previous = old).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import { BAD_SIGNATURE, keyId } from '../../shared/queue/message-signing.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import {
  deleteSqsQueues,
  ensureSqsQueues,
  sqsQueueNames,
  type SqsQueueUrls,
} from '../../shared/queue/sqs/sqs-setup.js';
import type { Lease, QueueOptions, WorkQueue } from '../../shared/queue/work-queue.js';
import { redriveDeadLetters, refusedMessage } from '../../shared/replay/dead-letters.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';
import '../helpers/long-timeout.js';

const OLD = 'old-secret-0123456789';
const NEW = 'new-secret-9876543210';
const STRANGER = 'nobody-we-know-secret';
const key = (name: string): ReconcileKey => ({ cluster: 'c1', kind: 'Deployment', namespace: 'ns', name });
const K1 = key('in-flight');
const K2 = key('waiting');
const K3 = key('after-the-window');

/** Opens workers of one queue (each its own instance, like a process of its own); dispose removes it all. */
type Store = { open(options: QueueOptions): WorkQueue; dispose(): Promise<void> };
type Driver = { name: string; start(): Promise<void>; stop(): Promise<void>; store(): Promise<Store> };

const redisDriver: Driver = {
  name: 'redis',
  start: async () => {},
  stop: async () => {},
  async store() {
    const name = testQueueName();
    const opened: RedisQueue[] = [];
    return {
      open(options) {
        const q = new RedisQueue({ ...options, baseDelayMs: 5, name, redis: REDIS_URL });
        opened.push(q);
        return q;
      },
      async dispose() {
        for (const q of opened) await q.close();
        const redis = redisClient();
        await deleteQueueKeys(redis, opened[0]?.prefix ?? `fleetq:{${name}}:`);
        await redis.quit();
      },
    };
  },
};

function sqsDriver(): Driver {
  let emulator: SqsEmulator | undefined;
  return {
    name: 'sqs',
    async start() {
      emulator = await startSqsEmulator();
    },
    async stop() {
      await emulator?.stop();
    },
    async store() {
      if (!emulator) throw new Error('sqs driver not started');
      const client = sqsClient(emulator.endpoint);
      const urls: SqsQueueUrls = await ensureSqsQueues(client, sqsQueueNames(testQueueName()));
      const opened: SqsQueue[] = [];
      return {
        open(options) {
          const q = new SqsQueue({ ...options, baseDelayMs: 1000, client, urls });
          opened.push(q);
          return q;
        },
        async dispose() {
          for (const q of opened) await q.close();
          await deleteSqsQueues(client, urls);
          client.destroy();
        },
      };
    },
  };
}

async function mustGet(queue: WorkQueue, ms = 15_000): Promise<Lease> {
  const lease = await queue.get(ms);
  if (lease) return lease;
  const parked = (await queue.deadLetters()).map((d) => `${d.raw ?? keyString(d.key!)}: ${d.reason}`);
  throw new Error(`no lease within ${ms} ms; dead letters: ${parked.join('; ') || 'none'}`);
}

/** Runs get() on `queue` until `count` dead letters are there (a bad signature is parked by a get). */
async function untilDeadLetters(queue: WorkQueue, count: number, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await queue.deadLetters()).length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} dead letters after ${ms} ms`);
    const lease = await queue.get(500);
    if (lease) throw new Error(`handed out ${lease.id}, expected it dead-lettered`);
  }
}

describe.each([redisDriver, sqsDriver()])('signing key rotation: $name', (driver) => {
  let store: Store | undefined;
  beforeAll(() => driver.start());
  afterAll(() => driver.stop());
  afterEach(async () => {
    await store?.dispose();
    store = undefined;
  });

  it('a key signed with the old secret, in flight while workers switch to (new, old), is reconciled, not dead-lettered', async () => {
    store = await driver.store();
    const oldWorker = store.open({ leaseMs: 30_000, signingSecret: OLD });
    await oldWorker.add(K1);
    await oldWorker.add(K2);
    const held = await mustGet(oldWorker);
    // The rollout: a worker on (new, previous = old) starts; the old one fails its run and stops.
    const newWorker = store.open({ leaseMs: 30_000, signingSecret: NEW, signingSecretPrevious: OLD });
    expect((await oldWorker.retry(held, new Error('shutting down'))).outcome).toBe('retried');
    await oldWorker.close();

    const handed = new Map<string, Lease>();
    while (handed.size < 2) {
      const lease = await mustGet(newWorker);
      handed.set(lease.id, lease);
    }
    expect([...handed.keys()].sort()).toEqual([keyString(K1), keyString(K2)].sort());
    expect(await newWorker.deadLetters()).toEqual([]);
    // One fails (a transient error), one asks to run again: both wait in the queue through the window, and a key the
    // new workers add is signed with the new secret.
    expect((await newWorker.retry(handed.get(keyString(K1))!, new Error('transient'))).outcome).toBe('retried');
    expect((await newWorker.done(handed.get(keyString(K2))!, 0)).outcome).toBe('done');
    await newWorker.add(K3);
    await newWorker.close();

    // The window closes (previous removed): none of them is dead-lettered.
    const afterWindow = store.open({ leaseMs: 30_000, signingSecret: NEW });
    const ran = new Set<string>();
    while (ran.size < 3) {
      const lease = await mustGet(afterWindow);
      ran.add(lease.id);
      await afterWindow.done(lease);
    }
    expect([...ran].sort()).toEqual([K1, K2, K3].map(keyString).sort());
    expect(await afterWindow.deadLetters()).toEqual([]);
  });

  it('redrive re-signs a key a known secret signed, and refuses one no known secret signed unless told', async () => {
    store = await driver.store();
    // A rotation done without a window: keys signed with the old secret meet a worker that knows only the new one.
    await store.open({ leaseMs: 30_000, signingSecret: OLD }).add(K1);
    await store.open({ leaseMs: 30_000, signingSecret: STRANGER }).add(K2);
    const strict = store.open({ leaseMs: 30_000, signingSecret: NEW });
    await untilDeadLetters(strict, 2);
    const parked = await strict.deadLetters();
    expect(parked.map((d) => [d.key, d.raw, d.reason]).sort()).toEqual(
      [
        [null, keyString(K1), BAD_SIGNATURE],
        [null, keyString(K2), BAD_SIGNATURE],
      ].sort(),
    );

    // The operator sets the old secret as previous and redrives: K1 goes back re-signed with NEW, K2 stays.
    const first = await redriveDeadLetters(strict, {}, Date.now(), { secrets: [NEW, OLD] });
    expect(first.moved).toBe(1);
    expect(first.refused.map((d) => d.raw)).toEqual([keyString(K2)]);
    expect(refusedMessage(first.refused)).toContain(keyId(STRANGER));
    expect(refusedMessage(first.refused)).toContain('--resign-unverified');
    const redriven = await mustGet(strict); // verifies with NEW alone: it was re-signed
    expect([redriven.id, redriven.failures]).toEqual([keyString(K1), 0]);
    await strict.done(redriven);
    expect((await strict.deadLetters()).map((d) => d.raw)).toEqual([keyString(K2)]);

    // Told to re-sign anyway, the refused one goes back too.
    const forced = await redriveDeadLetters(strict, {}, Date.now(), { secrets: [NEW, OLD], resignUnverified: true });
    expect(forced).toEqual({ moved: 1, refused: [] });
    const resigned = await mustGet(strict);
    expect(resigned.id).toBe(keyString(K2));
    await strict.done(resigned);
    expect(await strict.deadLetters()).toEqual([]);
  });
});
