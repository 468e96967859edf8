// The JobSet handler killed between deleting an old attempt's Jobs and creating the new attempt's. A JobSet restart
// takes three runs: the one that sees a failed Job counts the restart (status.restarts + 1), the next deletes the
// Jobs of the earlier attempt (foreground), and a later one, once they are gone, creates the new attempt's Jobs
// under the same names. Here the second run dies right after its deletes, at every restart
// (test/helpers/chaos/jobset-faults.ts): its status write is not sent and its key waits for the lease to expire.
// One JobSet of 2 Jobs × 2 kwok pods, restarted 3 times by failing one pod each time, then run to completion.
// Asserted: the cut was hit at every restart; status.restarts went up by exactly one per failure; every attempt's
// Jobs were created once each, with that attempt's restart-attempt label; no Job of an earlier attempt is left;
// the JobSet completed. fleetq runs in this process (forwarder + workers, Redis queue, the handlers' ServiceAccount)
// on the suite's chaos-1 cluster (fleetq mode: no Job controller of its own, so fleetq owns Job and JobSet).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Job, JobSet } from '../../shared/controllers/jobset/types.js';
import { BenchClient, type RawEvent, type RunningWatch } from '../helpers/bench/client.js';
import {
  attemptOf,
  isChildOf,
  jobSetsPath,
  jobsPath,
  podOutcomePatch,
  podsPath,
  restartableJobSet,
  startJobSetFleetq,
  type JobSetFleetq,
} from '../helpers/bench/jobset.js';
import { chaosCluster, chaosNamespace, removeNamespace, type ChaosCluster } from '../helpers/chaos/harness.js';
import {
  CHAOS_FAULT_ANNOTATION,
  DIE_AFTER_OLD_ATTEMPT_DELETES,
  injectOldAttemptDeletesFault,
} from '../helpers/chaos/jobset-faults.js';
import { REDIS_URL } from '../helpers/queue/redis.js';

const NAME = 'restarted';
const JOBS = 2;
const PODS_PER_JOB = 2;
const RESTARTS = 3;
/** Short, so the killed run's key is handed out again soon. */
const LEASE_MS = 3_000;
const STEP_MS = 40_000;

type Pod = { metadata: { name?: string; labels?: Record<string, string> }; status?: { phase?: string } };
const MERGE_PATCH = 'application/merge-patch+json';

describe('chaos: the JobSet handler killed between the old attempt deletes and the new attempt creates', () => {
  let c: ChaosCluster | undefined;
  let ns: string | undefined;
  let fleetq: JobSetFleetq | undefined;
  const watches: RunningWatch[] = [];
  afterAll(async () => {
    for (const w of watches) w.stop();
    await fleetq?.stop();
    if (c && ns) await removeNamespace(c.kc, ns);
  });

  it('counts every restart once, creates every attempt, leaves no old Job, completes', async () => {
    const started = Date.now();
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    const namespace = ns;
    const client = BenchClient.fromKubeconfig(c.state.kubeconfig);
    fleetq = await startJobSetFleetq({
      cluster: 'chaos-1',
      kubeconfig: c.state.kubeconfig,
      limits: { qps: 50, burst: 100 },
      redisUrl: REDIS_URL,
      queue: `chaos-jobset-${randomUUID().slice(0, 8)}`,
      leaseMs: LEASE_MS,
      logLevel: 'warn',
    });
    const fault = injectOldAttemptDeletesFault(fleetq.app.deps.clients('chaos-1').rest, { maxKills: RESTARTS });

    // What the cluster showed: every Job created (uid → attempt), the JobSet's restarts in order, the pods now.
    const jobsCreated = new Map<string, { name: string; attempt: number | undefined }>();
    const jobs = new Map<string, Job>();
    const restartsSeen: number[] = [];
    let jobSet: JobSet | undefined;
    const pods = new Map<string, Pod>();
    const watch = async <T>(path: string, on: (e: RawEvent & { object: T }) => void): Promise<void> => {
      const list = await client.request<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`);
      watches.push(await client.watch(path, list.metadata.resourceVersion, (e) => on(e as RawEvent & { object: T })));
    };
    await watch<Job>(jobsPath(namespace), (e) => {
      const uid = e.object.metadata.uid ?? '';
      const name = e.object.metadata.name ?? '';
      if (!jobsCreated.has(uid)) jobsCreated.set(uid, { name, attempt: attemptOf(e.object) });
      if (e.type === 'DELETED') jobs.delete(uid);
      else jobs.set(uid, e.object);
    });
    await watch<JobSet>(jobSetsPath(namespace), (e) => {
      jobSet = e.object;
      const r = e.object.status?.restarts ?? 0;
      if (restartsSeen[restartsSeen.length - 1] !== r) restartsSeen.push(r);
    });
    await watch<Pod>(podsPath(namespace), (e) => {
      const name = e.object.metadata.name ?? '';
      if (e.type === 'DELETED') pods.delete(name);
      else pods.set(name, e.object);
    });

    await client.request(
      'POST',
      jobSetsPath(namespace),
      restartableJobSet({
        name: NAME,
        namespace,
        jobs: JOBS,
        podsPerJob: PODS_PER_JOB,
        maxRestarts: RESTARTS + 2,
        annotations: { [CHAOS_FAULT_ANNOTATION]: DIE_AFTER_OLD_ATTEMPT_DELETES },
      }),
    );
    const runningOf = (attempt: number): Pod[] =>
      [...pods.values()].filter((p) => isChildOf(p, NAME) && attemptOf(p) === attempt && p.status?.phase === 'Running');
    const liveJobsOf = (attempt: number): Job[] =>
      [...jobs.values()].filter((j) => attemptOf(j) === attempt && j.metadata.deletionTimestamp === undefined);
    const state = (): string =>
      `restarts seen ${JSON.stringify(restartsSeen)}, Jobs ${JSON.stringify(
        [...jobs.values()].map(
          (j) => `${j.metadata.name}@${attemptOf(j)}${j.metadata.deletionTimestamp ? '(deleting)' : ''}`,
        ),
      )}, kills ${JSON.stringify(Object.fromEntries(fault.kills))}`;

    const timings: number[] = [];
    for (let attempt = 0; attempt <= RESTARTS; attempt++) {
      await waitFor(
        async () => liveJobsOf(attempt).length === JOBS && runningOf(attempt).length === JOBS * PODS_PER_JOB,
        STEP_MS,
        100,
        `attempt ${attempt}: ${JOBS} Jobs and ${JOBS * PODS_PER_JOB} running pods (${state()})`,
      );
      if (attempt === RESTARTS) break;
      // One pod fails: its Job fails (backoffLimit 0), and the JobSet restarts.
      const victim = runningOf(attempt)[attempt % JOBS]?.metadata.name ?? '';
      const failedAt = Date.now();
      await client.request('PATCH', `${podsPath(namespace)}/${victim}`, podOutcomePatch('Failed'), MERGE_PATCH);
      await waitFor(
        async () => (jobSet?.status?.restarts ?? 0) === attempt + 1 && liveJobsOf(attempt + 1).length === JOBS,
        STEP_MS,
        100,
        `restart ${attempt + 1}: the new attempt's Jobs (${state()})`,
      );
      timings.push(Date.now() - failedAt);
    }

    // The last attempt runs to completion.
    for (const p of runningOf(RESTARTS)) {
      await client.request(
        'PATCH',
        `${podsPath(namespace)}/${p.metadata.name ?? ''}`,
        podOutcomePatch('Succeeded'),
        MERGE_PATCH,
      );
    }
    const completed = (): boolean =>
      (jobSet?.status?.conditions ?? []).some((x) => x.type === 'Completed' && x.status === 'True');
    await waitFor(async () => completed(), STEP_MS, 100, `the JobSet completed (${state()})`);
    const listed = await client.request<{ items: Job[] }>('GET', jobsPath(namespace));
    const byAttempt = (a: number): string[] =>
      [...jobsCreated.values()]
        .filter((j) => j.attempt === a)
        .map((j) => j.name)
        .sort();
    console.log(
      `jobset restart kill: ${RESTARTS} restarts, failure → new attempt's Jobs ${timings.map((t) => `${t} ms`).join(', ')}; ` +
        `${state()}; case ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    expect(fault.kills.get(`${namespace}/${NAME}`)).toEqual(Array.from({ length: RESTARTS }, (_, i) => i + 1));
    expect(restartsSeen).toEqual(Array.from({ length: RESTARTS + 1 }, (_, i) => i));
    expect(jobSet?.status?.restartsCountTowardsMax).toBe(RESTARTS);
    const names = Array.from({ length: JOBS }, (_, i) => `${NAME}-workers-${i}`);
    for (let a = 0; a <= RESTARTS; a++) expect({ attempt: a, jobs: byAttempt(a) }).toEqual({ attempt: a, jobs: names });
    expect(jobsCreated.size).toBe(JOBS * (RESTARTS + 1));
    expect(listed.items.filter((j) => attemptOf(j) !== RESTARTS).map((j) => j.metadata.name)).toEqual([]);
    expect(completed()).toBe(true);
  });
});
