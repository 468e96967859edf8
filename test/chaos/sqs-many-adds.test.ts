// Fault 8: 50 adds of one key on the SQS path. A Deployment on chaos-1 is scaled, and its key is added 50 times
// at once through the SQS driver (a producer in the test, as the forwarder adds), with two workers taking keys.
// Never two runs of that key at once, a successful run of it after the last add, far fewer runs than adds
// (coalesced), nothing dead-lettered (read from the SQS dead-letter queue: the SQS driver keeps none in
// Redis), and the Deployment converges.
//
// Where each SQS behaviour comes from:
//   1. The process-level test runs the real pipeline processes (forwarder + 2 worker processes, FLEETQ_DRIVER=sqs)
//      against fauxqs, the SQS emulator (test/helpers/queue/sqs.ts), on a free loopback port. fauxqs returns at most
//      one message per FIFO group per receive, so it shows the cross-process side: the group lock, coalescing
//      of messages sent before a run, nothing counted as a failure.
//   2. Real SQS returns as many messages of one group as it can in one receive; fauxqs cannot show that. The
//      same 50 adds then run against the FIFO TEST DOUBLE (test/helpers/queue/sqs-fifo-double.ts, which follows the
//      AWS docs for exactly this), in-process: the same runtime as functions/worker.ts (makeDeps + WorkerLoop),
//      two workers (one SqsQueue each, as two processes would have) of 4 slots each, and the forwarder, on
//      the real chaos-1 apiserver. The double is used for that path only.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { parseKey } from '../../shared/kube/key.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { ensureSqsQueues, sqsQueueNames } from '../../shared/queue/sqs/sqs-setup.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';
import { SqsFifoDouble } from '../helpers/queue/sqs-fifo-double.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  deadLettersWithoutRun,
  followReport,
  percentile,
  removeNamespace,
  spineReport,
  type ChaosCluster,
  type Run,
} from '../helpers/chaos/harness.js';
import { runOverlaps, sqsDeadLetters, sqsMessages, startInProcessWorkers } from '../helpers/chaos/sqs.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';

const ADDS = 50;
/** "Far below 50": at most a fifth of the adds run. */
const MAX_RUNS = ADDS / 5;
const LEASE_MS = 10_000;
const FROM = 2;
const TO = 6;

/** Scales `name` to TO, then adds its key ADDS times as fast as the queue takes them; returns the add window. */
async function scaleAndAdd(
  c: ChaosCluster,
  namespace: string,
  name: string,
  producer: SqsQueue,
): Promise<{ key: string; firstAddAt: number; lastAddAt: number; addsMs: number }> {
  await c.kc.makeApiClient(AppsV1Api).patchNamespacedDeploymentScale({
    namespace,
    name,
    body: [{ op: 'replace', path: '/spec/replicas', value: TO }],
  });
  const key = `chaos-1/Deployment/${namespace}/${name}`;
  const k = parseKey(key);
  const firstAddAt = Date.now();
  let lastAddAt = firstAddAt;
  for (let i = 0; i < ADDS; i++) {
    lastAddAt = Date.now();
    await producer.add(k);
  }
  return { key, firstAddAt, lastAddAt, addsMs: Date.now() - firstAddAt };
}

/** What the runs of `key` from the first add on say. */
function keyRuns(runs: readonly Run[], key: string, firstAddAt: number, lastAddAt: number) {
  const ofKey = runs.filter((r) => r.id === key && r.start >= firstAddAt);
  const ok = (r: Run): boolean => r.outcome === 'done' || r.outcome === 'requeued';
  const last = ofKey.at(-1);
  // A run that ended requeued (requeueAfter) or in a conflict schedules the next run itself, whatever the adds
  // did: those follow-ups are the controller's, not the adds'. Only the rest can come from the 50 adds.
  const followUps = ofKey.slice(0, -1).filter((r) => r.outcome === 'requeued' || r.outcome === 'conflict').length;
  return {
    count: ofKey.length,
    fromAdds: ofKey.length - followUps,
    afterLastAdd: ofKey.filter((r) => r.start >= lastAddAt && ok(r)).length,
    lastFollowsLastAdd: last !== undefined && ok(last) && last.start >= lastAddAt,
    outcomes: ofKey.map((r) => `${r.proc}:${r.outcome ?? 'no end'}`),
  };
}

describe('chaos: 50 adds of one key on the SQS path', () => {
  let c: ChaosCluster;
  const namespaces: string[] = [];
  const watchers: NamespaceWatcher[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const w of watchers) w.stop();
    for (const f of cleanups.reverse()) await f().catch(() => undefined);
    await Promise.all(namespaces.map((n) => removeNamespace(c.kc, n)));
  });

  it('worker processes on fauxqs: no overlap, a run after the last add, coalesced, nothing dead-lettered', async () => {
    c = await chaosCluster('chaos-1');
    const ns = await chaosNamespace(c.kc);
    namespaces.push(ns);
    const sqs: SqsEmulator = await startSqsEmulator();
    const client: SQSClient = sqsClient(sqs.endpoint);
    cleanups.push(
      () => sqs.stop(),
      async () => client.destroy(),
    );
    const w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    watchers.push(w);
    await w.start();
    const p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig }],
      driver: 'sqs',
      // The cache lives here (FLEETQ_READS below); checkpoints stay in memory and there is no event log on SQS.
      redisUrl: REDIS_URL,
      workers: 2,
      leaseMs: LEASE_MS,
      env: {
        // Split workers on SQS reading a cache the forwarder fills in Redis (the SQS default is live reads; the
        // in-process test below reads live). Its forwarder once exited mid-list here: nothing held it open.
        FLEETQ_READS: 'cache',
        SQS_ENDPOINT: sqs.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    });
    cleanups.push(() => p.stop());
    await p.start();
    const urls = await ensureSqsQueues(client, sqsQueueNames(p.queue));
    const producer = new SqsQueue({ client, urls, leaseMs: LEASE_MS });
    cleanups.push(() => producer.close());

    await createDeployments(c.kc, ns, [deployment('many', FROM)]);
    await waitRolledOut(w, ['many'], 90_000);
    const { key, firstAddAt, lastAddAt, addsMs } = await scaleAndAdd(c, ns, 'many', producer);
    const converged = await waitRolledOut(w, ['many'], 90_000).then(
      () => true,
      () => false,
    );
    // Quiet: the work queue holds nothing and no run of the key is open.
    const quiet = await waitFor(
      async () =>
        (await sqsMessages(client, urls.work)) === 0 && p.runs().every((r) => r.id !== key || r.end !== undefined),
      60_000,
      250,
      'the work queue drained',
    ).then(
      () => true,
      () => false,
    );
    const runs = keyRuns(p.runs(), key, firstAddAt, lastAddAt);
    const letters = await sqsDeadLetters(producer);
    console.log(
      `sqs (fauxqs, 2 worker processes): ${ADDS} adds in ${addsMs} ms; ${runs.count} runs of the key from the ` +
        `first add (${runs.afterLastAdd} after the last; ${runs.fromAdds} not follow-ups of a requeue or conflict, at most ${MAX_RUNS} allowed): ${runs.outcomes.join(', ')}; ` +
        `converged=${converged}, quiet=${quiet}; ${letters.length} SQS dead letters ${JSON.stringify(letters)}`,
    );
    const report = await spineReport(p, w, { boundMs: 30_000 });
    expect(report.overlaps).toEqual([]);
    expect(runs.afterLastAdd).toBeGreaterThanOrEqual(1);
    expect(runs.lastFollowsLastAdd).toBe(true);
    expect(runs.fromAdds).toBeLessThanOrEqual(MAX_RUNS);
    expect(letters).toEqual([]);
    expect(deadLettersWithoutRun(letters, p.runs())).toEqual([]);
    expect(converged).toBe(true);
    expect(quiet).toBe(true);
    expect(report.unfollowed).toEqual([]);
    expect(report.invariants).toEqual([]);
  });

  it('in-process workers on the FIFO double (several messages of one group per receive): the same holds', async () => {
    c = await chaosCluster('chaos-1');
    const ns = await chaosNamespace(c.kc);
    namespaces.push(ns);
    const w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    watchers.push(w);
    await w.start();
    const double = new SqsFifoDouble();
    const urls = double.createQueues(`many-${randomUUID().slice(0, 8)}`, LEASE_MS / 1000);
    const queue = (): SqsQueue => new SqsQueue({ client: double.asClient(), urls, leaseMs: LEASE_MS });
    const [producer, q1, q2] = [queue(), queue(), queue()];
    const registryPath = writeRegistry([
      {
        name: 'chaos-1',
        kubeconfig: c.state.kubeconfig,
        owns: ['Deployment', 'ReplicaSet', 'ConfigMap'],
        limits: { qps: 100, burst: 200 },
      },
    ]);
    const forwarder = new FleetForwarder(new ClusterRegistry(loadRegistry(registryPath)), {
      queue: producer,
      checkpoints: new MemoryCheckpointStore(),
      resyncMs: 0,
      logger: new Logger('forwarder', 'error', () => undefined),
    });
    const workers = await startInProcessWorkers({ registryPath, queues: [q1, q2], leaseMs: LEASE_MS, concurrency: 4 });
    // Run in reverse: workers first (a closed queue would make their slots spin), then the forwarder.
    cleanups.push(
      () => Promise.all([producer, q1, q2].map((q) => q.close())),
      () => forwarder.stop(),
      () => workers.stop(),
    );
    await forwarder.start();

    await createDeployments(c.kc, ns, [deployment('many', FROM)]);
    await waitRolledOut(w, ['many'], 90_000);
    const { key, firstAddAt, lastAddAt, addsMs } = await scaleAndAdd(c, ns, 'many', producer);
    const converged = await waitRolledOut(w, ['many'], 90_000).then(
      () => true,
      () => false,
    );
    // Quiet: the work queue holds nothing, no run of the key is open, and every event was followed by a run.
    const quiet = await waitFor(
      async () =>
        double.messages(urls.work).length === 0 &&
        workers.runs().every((r) => r.id !== key || r.end !== undefined) &&
        followReport(w.events, workers.runs(), { boundMs: 30_000 }).misses.every(
          (m) => !m.includes('no successful run'),
        ),
      60_000,
      250,
      'the work queue drained',
    ).then(
      () => true,
      () => false,
    );
    const all = workers.runs();
    const runs = keyRuns(all, key, firstAddAt, lastAddAt);
    const letters = await sqsDeadLetters(producer);
    const overlaps = runOverlaps(all);
    const follow = followReport(w.events, all, { boundMs: 30_000 });
    const invariants = w.allViolations();
    console.log(
      `sqs (FIFO double, 2 in-process workers × 4 slots): ${ADDS} adds in ${addsMs} ms; up to ` +
        `${double.maxSameGroupPerReceive} messages of one group in one receive; ${runs.count} runs of the key from ` +
        `the first add (${runs.afterLastAdd} after the last; ${runs.fromAdds} not follow-ups of a requeue or conflict, at most ${MAX_RUNS} allowed): ${runs.outcomes.join(', ')}; ` +
        `converged=${converged}, quiet=${quiet}; ${all.length} runs, ${w.events.length} events, event→run p99 ` +
        `${percentile(follow.latencies, 0.99)} ms; ${overlaps.length} overlaps, ${follow.misses.length} unfollowed, ` +
        `${invariants.length} invariant violations, ${letters.length} SQS dead letters ${JSON.stringify(letters)}\n` +
        [...overlaps, ...follow.misses, ...invariants].slice(0, 20).join('\n'),
    );
    expect(double.maxSameGroupPerReceive).toBeGreaterThan(1);
    expect(overlaps).toEqual([]);
    expect(runs.afterLastAdd).toBeGreaterThanOrEqual(1);
    expect(runs.lastFollowsLastAdd).toBe(true);
    expect(runs.fromAdds).toBeLessThanOrEqual(MAX_RUNS);
    expect(letters).toEqual([]);
    expect(deadLettersWithoutRun(letters, all)).toEqual([]);
    expect(converged).toBe(true);
    expect(quiet).toBe(true);
    expect(follow.misses).toEqual([]);
    expect(invariants).toEqual([]);
  });
});
