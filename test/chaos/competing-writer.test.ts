// Fault 10: a persistent 409 from a competing writer: the key backs off, and others are unaffected.
// What gives fleetq a 409 at all: its writes carry the resourceVersion of a fresh, consistent read, so only a
// write by someone else between that read and fleetq's write conflicts. The competitor
// (helpers/chaos-competitor.ts) disagrees about the Deployment `contested`'s status and writes its own each time
// a worker logs a plan with a status write for that key, i.e. after fleetq read and before it writes; the
// cluster is registered at 4 qps / burst 1, so fleetq's PUT waits ~250 ms for a token and the competitor gets
// in first. Every status write of fleetq for that key is then answered 409 for the 90 s of the fault. The
// competitor's write lands while the key is held (its event only marks the key dirty, and the retry drops that:
// the contract's "the backoff wins over an add made during the failed run"), so between runs only the backoff
// brings the key back. Three other Deployments of the same namespace are scaled 2 <-> 3 every 5 s throughout.
// Asserted, besides the four spine checks (the contested key's (b) bounded from the competitor's stop):
//   - the 409 is persistent: >= 8 conflicts, and >= 75 % of the key's runs in the fault end in one;
//   - the key backs off: each conflict is logged 'Conflict; re-reading after backoff' with a delay twice the
//     previous one (5 ms doubling), reaching >= 5 s; no run comes sooner after a conflict than its delay (unless
//     an event of the key came in meanwhile); at most 30 runs in the 90 s (one doubling sequence is ~14), and
//     the second half of the fault has fewer than half the runs of the first;
//   - nothing of this namespace is dead-lettered;
//   - the others are unaffected: every one of their changes converges, and their event->run p99 during the fault
//     stays within max(2 x baseline, baseline + 2 000 ms), the baseline being 60 s of the same activity before
//     (a shared, noisy 2-core machine; a key spending the API budget would show as seconds of token waits);
//   - after the competitor stops, the key converges within its last backoff delay + 30 s.
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { competingStatusWriter, type Competitor } from '../helpers/chaos/competitor.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  followReport,
  ownRedis,
  percentile,
  removeNamespace,
  spineReport,
  waitFollowed,
  type ChaosCluster,
  type OwnRedis,
} from '../helpers/chaos/harness.js';
import { createDeployments, deployment, rolledOut, waitRolledOut } from '../helpers/chaos/workloads.js';
import { jsonLines } from '../helpers/processes.js';

/**
 * Not the shared chaos-1: a pipeline reconciles every namespace of the clusters it registers, so there every
 * other chaos test's pipeline would be one more writer of these objects, outside this test's control (seen:
 * another pipeline fixing the status between two of ours ended the fight; two pipelines creating pods for one
 * ReplicaSet broke the surge bound). A Redis of its own: test/run-all.sh runs it beside the tests that use the
 * shared one, with chaos-2 served by another apiserver (FLEETQ_CHAOS_CLUSTER_MAP), as apiserver-unreachable
 * faults chaos-2.
 */
const CLUSTER = 'chaos-2';
const CONTESTED = 'contested';
const OTHERS = ['other-0', 'other-1', 'other-2'];
const BASELINE_MS = 60_000;
const FAULT_MS = 90_000;
const TICK_MS = 5_000;
const TICK_DEADLINE_MS = 60_000;
/** Twice the ~14 runs of one doubling sequence over the fault (the competitor may lose a race and reset it). */
const MAX_RUNS_IN_FAULT = 30;
/** How long before a conflict's log line an event may still have reached the queue after the retry. */
const WAKE_SLACK_MS = 50;
const SUCCESS = new Set(['done', 'requeued']);

type Tick = { readonly name: string; readonly at: number; readonly convergedMs: number | undefined };

const specReplicas = (w: NamespaceWatcher, name: string): number | undefined =>
  (w.objects.Deployment.get(name)?.spec as { replicas?: number } | undefined)?.replicas;

/** The other Deployments' activity: every TICK_MS one of them is scaled 2 ↔ 3 and must converge. */
async function activity(kc: KubeConfig, w: NamespaceWatcher, until: number, first: number): Promise<Tick[]> {
  const apps = kc.makeApiClient(AppsV1Api);
  const ticks: Tick[] = [];
  for (let i = first; i < first + 1_000 && Date.now() < until; i++) {
    const name = OTHERS[i % OTHERS.length] ?? '';
    const replicas = specReplicas(w, name) === 2 ? 3 : 2;
    const at = Date.now();
    await apps.patchNamespacedDeploymentScale({
      namespace: w.namespace,
      name,
      body: [{ op: 'replace', path: '/spec/replicas', value: replicas }],
    });
    let convergedMs: number | undefined;
    await waitFor(
      async () => {
        if (convergedMs === undefined && specReplicas(w, name) === replicas && rolledOut(w, [name]))
          convergedMs = Date.now() - at;
        return convergedMs !== undefined && Date.now() >= at + TICK_MS;
      },
      TICK_DEADLINE_MS,
      50,
      `${name} scaled to ${replicas}`,
    ).catch(() => undefined);
    ticks.push({ name, at, convergedMs });
  }
  return ticks;
}

/** The contested Deployment rolled out with the status fleetq computes (unavailableReplicas 0). */
function contestedConverged(w: NamespaceWatcher): boolean {
  const status = w.objects.Deployment.get(CONTESTED)?.status as { unavailableReplicas?: number } | undefined;
  return rolledOut(w, [CONTESTED]) && (status?.unavailableReplicas ?? 0) === 0;
}

describe('chaos: a persistent 409 from a competing writer', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  let competitor: Competitor | undefined;
  let redis: OwnRedis | undefined;
  afterAll(async () => {
    await competitor?.stop();
    w?.stop();
    if (p) console.log(`logs: test/chaos/.logs/${p.queue}`);
    await p?.stop(); // keeps every process's log there
    await redis?.stop();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it(
    'the conflicted key backs off, the others are unaffected, and it converges once the competitor stops',
    async () => {
      c = await chaosCluster(CLUSTER);
      ns = await chaosNamespace(c.kc);
      redis = await ownRedis();
      const namespace = ns;
      const key = `${CLUSTER}/Deployment/${namespace}/${CONTESTED}`;
      w = new NamespaceWatcher(c.kc, CLUSTER, ns);
      await w.start();
      p = new Pipeline({
        clusters: [{ name: CLUSTER, kubeconfig: c.state.kubeconfig, qps: 4, burst: 1 }],
        driver: 'redis',
        redisUrl: redis.url,
        workers: 2,
        concurrency: 4,
        leaseMs: 10_000,
        // Live reads: each run's GETs use the 4 qps budget, so fleetq's PUT waits for a token and the competitor
        // gets in first. Reading from the cache, a run makes its PUT at once and often wins the race (seen in CI:
        // 12 of 93 runs won), which is no persistent 409. The backoff under test is the queue's, not the reads'.
        env: { FLEETQ_READS: 'live' },
      });
      await p.start();
      await createDeployments(c.kc, ns, [deployment(CONTESTED, 2), ...OTHERS.map((n) => deployment(n, 2))]);
      await waitRolledOut(w, [CONTESTED, ...OTHERS], 120_000);

      const baseFrom = Date.now();
      const baseTicks = await activity(c.kc, w, baseFrom + BASELINE_MS, 0);
      const baseTo = Date.now();

      const faultFrom = Date.now();
      const faultTo = faultFrom + FAULT_MS;
      competitor = competingStatusWriter(p, c.kc, namespace, CONTESTED, { untilMs: faultTo });
      const ticks = await activity(c.kc, w, faultTo, baseTicks.length);
      // The fault's stated duration (the competitor stops by itself at faultTo; the last tick may end before it).
      await waitFor(async () => Date.now() >= faultTo, FAULT_MS, 100, 'the end of the fault');
      await competitor.stop();
      const stoppedAt = Date.now();

      // The conflicts of the contested key, as the workers logged them, and its runs during the fault.
      const conflictLines = p.workers
        .flatMap(([, proc]) => jsonLines(proc))
        .filter((l) => l.message === 'Conflict; re-reading after backoff' && l.name === CONTESTED)
        .map((l) => ({ at: Date.parse(String(l.time)), delayMs: Number(l.delayMs) }))
        .filter((l) => l.at >= faultFrom && l.at <= stoppedAt)
        .sort((a, b) => a.at - b.at);
      const inFault = (): ReturnType<Pipeline['runs']> =>
        p!.runs().filter((r) => r.id === key && r.start >= faultFrom && r.start <= stoppedAt);
      const faultRuns = inFault();
      const conflictRuns = faultRuns.filter((r) => r.outcome === 'conflict');
      const wonRuns = faultRuns.filter((r) => SUCCESS.has(r.outcome ?? ''));
      const gaps = faultRuns.slice(1).map((r, i) => r.start - (faultRuns[i]?.start ?? r.start));
      const half = faultFrom + (stoppedAt - faultFrom) / 2;
      const firstHalf = faultRuns.filter((r) => r.start < half).length;
      const secondHalf = faultRuns.length - firstHalf;
      // Consecutive conflicts (no successful run between) must double their delay (5 ms doubling, capped 1000 s).
      const notDoubled = conflictLines.slice(1).flatMap((l, i) => {
        const prev = conflictLines[i];
        if (!prev) return [];
        const reset = wonRuns.some((r) => r.start > prev.at && r.start < l.at);
        return reset || l.delayMs === Math.min(2 * prev.delayMs, 1_000_000) ? [] : [`${prev.delayMs} → ${l.delayMs}`];
      });
      // The backoff is honoured: after a conflict with delay d, the key runs again no sooner than d later, unless
      // an event of the key came in after the conflict (an add wakes a waiting key, as in client-go). The worker
      // logs the conflict after the queue's retry returned, and the watcher sees an event apart from the
      // forwarder, so an event seen up to WAKE_SLACK_MS before the log line may still have been added after the
      // retry (seen once in CI: a run 3 ms after a 1280 ms conflict, woken by an event at the same instant).
      const early = conflictLines.flatMap((l) => {
        const next = faultRuns.find((r) => r.start > l.at);
        if (!next || next.start >= l.at + l.delayMs - 100) return [];
        const woken = w!.events.some((e) => e.keys.includes(key) && e.at > l.at - WAKE_SLACK_MS && e.at < next.start);
        return woken ? [] : [`conflict at ${l.at} (delay ${l.delayMs} ms): next run ${next.start - l.at} ms later`];
      });
      const maxDelay = Math.max(0, ...conflictLines.map((l) => l.delayMs));
      const lastDelay = conflictLines.at(-1)?.delayMs ?? 0;

      const convergeBound = lastDelay + 30_000;
      const converged = await waitFor(
        async () => contestedConverged(w!),
        convergeBound,
        100,
        'contested converged',
      ).then(
        () => true,
        () => false,
      );
      const convergedMs = Date.now() - stoppedAt;

      const runs = p.runs();
      const othersP99 = (from: number, to: number): { p99: number; n: number } => {
        const { latencies } = followReport(w!.events, runs, { boundMs: 30_000, from, to, keyFilter: (k) => k !== key });
        return { p99: percentile(latencies, 0.99), n: latencies.length };
      };
      const base = othersP99(baseFrom, baseTo);
      const during = othersP99(faultFrom, stoppedAt);
      const tolerance = Math.max(2 * base.p99, base.p99 + 2_000);
      const conv = (ts: readonly Tick[]): string => {
        const ok = ts.flatMap((t) => (t.convergedMs === undefined ? [] : [t.convergedMs]));
        return `${ok.length}/${ts.length} converged, p50 ${percentile(ok, 0.5)} ms, max ${Math.max(0, ...ok)} ms`;
      };
      const failedWrites = competitor.writes.filter((x) => x.error !== undefined);
      const runMs = (from: number, to: number): string => {
        const ds = runs
          .filter((r) => r.id !== key && r.start >= from && r.start <= to && r.end !== undefined)
          .map((r) => (r.end ?? r.start) - r.start);
        return `p50 ${percentile(ds, 0.5)} ms, p90 ${percentile(ds, 0.9)} ms over ${ds.length} runs`;
      };
      console.log(
        `competing writer: ${competitor.writes.length} competitor writes (${failedWrites.length} failed) in ${stoppedAt - faultFrom} ms\n` +
          `${key}: ${faultRuns.length} runs during the fault (${conflictRuns.length} conflict, ${wonRuns.length} won by fleetq; ` +
          `first half ${firstHalf}, second half ${secondHalf}); ${conflictLines.length} conflict lines, delays ` +
          `${conflictLines.map((l) => l.delayMs).join(', ')} ms; gaps between runs ${gaps.join(', ')} ms\n` +
          `converged=${converged} ${convergedMs} ms after the competitor stopped (bound ${convergeBound} ms)\n` +
          `others event→run p99: baseline ${base.p99} ms (${base.n} samples), fault ${during.p99} ms (${during.n}), ` +
          `tolerance ${tolerance} ms; ticks: baseline ${conv(baseTicks)}; fault ${conv(ticks)}\n` +
          `others' run durations: baseline ${runMs(baseFrom, baseTo)}; fault ${runMs(faultFrom, stoppedAt)}\n` +
          `tick convergence (ms): baseline ${baseTicks.map((t) => t.convergedMs ?? 'none').join(', ')}; ` +
          `fault ${ticks.map((t) => t.convergedMs ?? 'none').join(', ')}; backoff not honoured: ${early.join('; ')}`,
      );

      const report = await spineReport(p, w, { boundMs: 30_000, keyFilter: (k) => k !== key });
      // (b) for the contested key, bounded from the competitor's stop (its last run may still be going).
      const contested = await waitFollowed(w, p, {
        boundMs: convergeBound,
        timeoutMs: 30_000,
        boundFrom: stoppedAt,
        keyFilter: (k) => k === key,
      });
      expect(conflictLines.length).toBeGreaterThanOrEqual(8);
      expect(conflictRuns.length).toBeGreaterThanOrEqual(0.75 * faultRuns.length);
      expect(notDoubled).toEqual([]);
      expect(early).toEqual([]);
      expect(maxDelay).toBeGreaterThanOrEqual(5_000);
      expect(faultRuns.length).toBeLessThanOrEqual(MAX_RUNS_IN_FAULT);
      expect(secondHalf * 2).toBeLessThan(firstHalf);
      // Only this namespace's (the cluster is the suite's, but a poison object of another test could be there).
      expect(report.deadLetters.filter((d) => JSON.stringify(d).includes(namespace))).toEqual([]);
      expect(converged).toBe(true);
      expect(contested.misses).toEqual([]);
      expect(ticks.filter((t) => t.convergedMs === undefined)).toEqual([]);
      expect(during.n).toBeGreaterThan(0);
      expect(during.p99).toBeLessThanOrEqual(tolerance);
      expect(report.overlaps).toEqual([]);
      expect(report.unfollowed).toEqual([]);
      expect(report.invariants).toEqual([]);
      expect(report.deadLettersWithoutRun).toEqual([]);
    },
    15 * 60_000,
  );
});
