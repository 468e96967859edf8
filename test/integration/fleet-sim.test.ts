// fleetq on 50 simulated clusters (test/cluster-sim): a forwarder pool of two members and two workers on the Redis
// driver (the machine's Redis, a queue and key prefix of this test's own), 3 Deployments of 2 replicas in every
// cluster created and then rolled to a new image. Every Deployment must converge both times, and nothing may be
// left behind: no dead letter, an empty queue, every old ReplicaSet scaled to 0.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { waitFor } from '../../infra/sandbox/process.js';
import { createQueue } from '../../shared/queue/index.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { REDIS_URL, deleteQueueKeys } from '../helpers/queue/redis.js';
import { ensureNamespace, isRolledOut, kwokDeployment, setImage, SimFleet } from '../helpers/cluster-sim/sim-fleet.js';

const CLUSTERS = 50;
const DEPLOYMENTS = 3;
const REPLICAS = 2;
const NS = 'apps';

let fleet: SimFleet;
let queue: WorkQueue;

beforeAll(async () => {
  fleet = await SimFleet.start({
    clusters: CLUSTERS,
    forwarders: 2,
    workers: 2,
    redisUrl: REDIS_URL,
    sim: { podScheduleMs: 10, podReadyMs: 50, podDeleteMs: 10 },
  });
  queue = await createQueue({ driver: 'redis', redisUrl: REDIS_URL, name: fleet.queue, prefix: fleet.prefix });
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  await queue?.close();
  if (fleet) await deleteQueueKeys(REDIS_URL, fleet.queue);
});

function allRolledOut(image: string): { done: number; total: number } {
  let done = 0;
  for (const c of fleet.clusters) {
    const res = c.resource('apps', 'deployments');
    for (const d of c.list(res, NS).items) {
      const containers = (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
        .containers;
      if (containers[0]?.image === image && isRolledOut(d)) done++;
    }
  }
  return { done, total: CLUSTERS * DEPLOYMENTS };
}

async function converged(image: string): Promise<void> {
  await waitFor(
    async () => allRolledOut(image).done === CLUSTERS * DEPLOYMENTS,
    120_000,
    200,
    `every Deployment rolled out to ${image}`,
  ).catch((err: unknown) => {
    const lines = [...fleet.procs.values()].flatMap((p) => p.proc.lines.slice(-5).map((l) => `${p.name}: ${l}`));
    throw new Error(`${String(err)} (${allRolledOut(image).done}/${CLUSTERS * DEPLOYMENTS})\n${lines.join('\n')}`);
  });
}

it('converges 50 clusters × 3 Deployments on create and on a new image, losing no key', async () => {
  for (const c of fleet.clusters) {
    ensureNamespace(c, NS);
    const res = c.resource('apps', 'deployments');
    for (let i = 0; i < DEPLOYMENTS; i++) c.create(res, NS, kwokDeployment(`app-${i}`, REPLICAS, 'app:1'));
  }
  await converged('app:1');
  for (const c of fleet.clusters) for (let i = 0; i < DEPLOYMENTS; i++) setImage(c, NS, `app-${i}`, 'app:2');
  await converged('app:2');

  // The old ReplicaSets are scaled down and every pod runs the new image.
  for (const c of fleet.clusters) {
    const rs = c.list(c.resource('apps', 'replicasets'), NS).items;
    expect(rs).toHaveLength(DEPLOYMENTS * 2);
    const pods = c.list(c.resource('', 'pods'), NS).items;
    expect(pods).toHaveLength(DEPLOYMENTS * REPLICAS);
    for (const p of pods)
      expect((p.spec as { containers: Array<{ image: string }> }).containers[0]?.image).toBe('app:2');
  }
  // Nothing lost or parked: no dead letter, and the queue drains.
  expect(await queue.deadLetters()).toEqual([]);
  await waitFor(async () => (await queue.depth()) === 0, 30_000, 200, 'the queue drained');
  // Every process stayed up.
  for (const p of fleet.procs.values()) expect(p.proc.child.exitCode).toBeNull();
});
