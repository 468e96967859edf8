// Pod tracking when the handler dies between its finalizer-removal patches and its status write, on
// the pure planner: a small world applies each pass's writes in the writer's order (creates, then patches, then
// status) and, where asked, drops a pass's status write when that pass removed a finalizer, as a handler that
// died there would. Every terminated pod must be counted exactly once in the end, and never more than once along
// the way. The same world run with a planner that counts a pod as it removes its finalizer (no record in
// status.uncountedTerminatedPods first) loses the count at the first kill: the check below catches that.
import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import type { Action } from '../../../../shared/kube/actions.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import type { Job } from '../../../../shared/controllers/job/types.js';
import { FINALIZER, NOW, aJob, aPod, ago, observed } from './builders.js';

type World = { job: Job; pods: Pod[]; kills: number };
type Planner = (job: Job, pods: Pod[]) => PlanResult;

const upstreamLike: Planner = (job, pods) => planJob(observed(job, pods), NOW);

/** Runs passes until one writes nothing; `kill` drops the status write of each pass that removed a finalizer. */
function run(world: World, planner: Planner, kill: boolean, check: (w: World) => void): World {
  for (let pass = 0; pass < 50; pass++) {
    const { actions } = planner(world.job, world.pods);
    const rank = (a: Action) => (a.type === 'create' ? 0 : a.type === 'updateStatus' ? 2 : 1); // the writer's order
    const writes = actions.filter((a) => a.type !== 'event').sort((x, y) => rank(x) - rank(y));
    if (writes.length === 0) return world;
    let removed = false;
    for (const a of writes) removed = apply(world, a, kill && removed) || removed;
    check(world);
  }
  throw new Error('no fixed point after 50 passes');
}

/** Applies one write; returns true when it removed a tracking finalizer. `dead`: the handler died, skip status. */
function apply(world: World, a: Action, dead: boolean): boolean {
  switch (a.type) {
    case 'create': {
      const pod = structuredClone(a.object as Pod);
      const name = `created-${world.pods.length}`;
      pod.metadata = { ...pod.metadata, name, uid: `uid-${name}` };
      pod.status = { phase: 'Running' };
      world.pods.push(pod);
      return false;
    }
    case 'patch': {
      const pod = world.pods.find((p) => p.metadata?.name === a.target.name);
      if (!pod?.metadata?.finalizers?.includes(FINALIZER)) return false;
      pod.metadata.finalizers = pod.metadata.finalizers.filter((f) => f !== FINALIZER);
      return true;
    }
    case 'updateStatus':
      if (dead) {
        world.kills++;
        return false;
      }
      world.job = { ...world.job, status: structuredClone((a.object as Job).status) };
      return false;
    default:
      throw new Error(`unexpected write ${a.type}`);
  }
}

const started = { startTime: ago(60), active: 3 };
const terminal = (phase: 'Succeeded' | 'Failed') => (p: Pod) => p.status?.phase === phase;

function scenario(o: { indexed?: boolean } = {}): World {
  const job = aJob({ completions: 3, parallelism: 3, backoffLimit: 6, ...o, status: started });
  const ix = (i: number) => (o.indexed ? { index: i } : {});
  return {
    job,
    pods: [
      aPod('a', { phase: 'Succeeded', ...ix(0) }),
      aPod('b', { phase: 'Failed', ...ix(1) }),
      aPod('c', { phase: 'Succeeded', ...ix(2) }),
    ],
    kills: 0,
  };
}

/** status.succeeded never exceeds the succeeded pods; status.failed never the failed ones. */
function countedOnce(w: World): void {
  expect(w.job.status?.succeeded ?? 0).toBeLessThanOrEqual(w.pods.filter(terminal('Succeeded')).length);
  expect(w.job.status?.failed ?? 0).toBeLessThanOrEqual(w.pods.filter(terminal('Failed')).length);
}

describe('Job pod tracking: the handler dies between finalizer removal and status write', () => {
  for (const indexed of [false, true]) {
    it(`${indexed ? 'Indexed' : 'NonIndexed'}: every pod counted once, kills or not`, () => {
      const calm = run(scenario({ indexed }), upstreamLike, false, countedOnce);
      const killed = run(scenario({ indexed }), upstreamLike, true, countedOnce);
      expect(killed.kills).toBeGreaterThan(0);
      expect(calm.job.status).toMatchObject({ succeeded: 2, failed: 1, uncountedTerminatedPods: {} });
      expect(killed.job.status).toMatchObject({ succeeded: 2, failed: 1, uncountedTerminatedPods: {} });
      expect(
        killed.pods.filter((p) => p.metadata?.finalizers?.includes(FINALIZER) && p.status?.phase !== 'Running'),
      ).toEqual([]);
    });
  }

  it('the check catches a planner that counts a pod as it removes its finalizer (no uncounted record first)', () => {
    // Counts every terminated pod that still has its finalizer and removes the finalizer in the same pass.
    const countsAtRemoval: Planner = (job, pods) => {
      const done = pods.filter((p) => p.metadata?.finalizers?.includes(FINALIZER) && p.status?.phase !== 'Running');
      if (done.length === 0) return { actions: [] };
      const status = { ...job.status };
      status.succeeded = (status.succeeded ?? 0) + done.filter(terminal('Succeeded')).length;
      status.failed = (status.failed ?? 0) + done.filter(terminal('Failed')).length;
      const patches = done.map((p): Action => ({
        type: 'patch',
        target: { kind: 'Pod', namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' },
        patch: {},
        reason: 'RemoveTrackingFinalizer',
      }));
      return { actions: [...patches, { type: 'updateStatus', object: { ...job, status } }] };
    };
    const calm = run(scenario(), countsAtRemoval, false, countedOnce);
    expect(calm.job.status).toMatchObject({ succeeded: 2, failed: 1 });
    const killed = run(scenario(), countsAtRemoval, true, countedOnce);
    expect(killed.kills).toBe(1);
    expect(killed.job.status).not.toMatchObject({ succeeded: 2, failed: 1 }); // the kill lost the counts
  });
});
