// What the Lambda cost bench (test/bench/lambda-cost.ts) reports from what it measured: Lambda's figures
// (wall time per record and per reconcile, memory), SQS requests by action and component, and the JSON document.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { NODE22, type Finished, type InvocationStat, type Memory } from './lambda-container.js';
import type { CountingProxy } from '../queue/sqs-counting-proxy.js';
import { mean, median, percentile } from '../stats.js';

export const COMPONENTS = ['forwarder', 'mapping', 'reconcile', 'delay'] as const;
export type Component = (typeof COMPONENTS)[number];
/** Per queue the event source mapping polls. */
export type QueueCounts = { work: number; delay: number };

const summary = (xs: readonly number[]) => ({
  n: xs.length,
  median: round(median(xs) ?? NaN),
  p90: round(percentile(xs, 0.9) ?? NaN),
  mean: round(mean(xs) ?? 0),
});
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const mib = (bytes: number): number => round(bytes / 1024 / 1024);

export type LambdaCostRun = {
  readonly date: string;
  readonly cluster: string;
  readonly deployments: number;
  readonly replicas: number;
  readonly loadBefore: number[];
  readonly loadAfter: number[];
  readonly createdMs: number;
  readonly rolledMs: number;
  readonly drained: boolean;
  readonly delayedLeft: number;
  /** The reconcile function's configured memory (MB) and timeout (ms), from the packaged template. */
  readonly memorySize: number;
  readonly timeoutMs: number;
  readonly container: { readonly initMs: number; readonly finished: readonly Finished[] };
  readonly stats: { memory: Memory; vmHwmKiB: number | null };
  readonly invocations: readonly InvocationStat[];
  readonly proxies: Record<Component, CountingProxy>;
  /** The mapping's receives, empty receives, and invocations after which it deleted something. */
  readonly receives: QueueCounts;
  readonly empty: QueueCounts;
  readonly deletingInvocations: QueueCounts;
  readonly foreignRecords: number;
  readonly json?: string;
};

export async function reportLambdaCost(run: LambdaCostRun): Promise<void> {
  const { date, cluster: CLUSTER, deployments: N, replicas: REPLICAS, loadBefore, loadAfter } = run;
  const { createdMs, rolledMs, drained, delayedLeft, memorySize, timeoutMs, container, stats, invocations } = run;
  const { proxies, receives, empty, deletingInvocations, foreignRecords } = run;
  // Lambda's figures.
  const records = invocations.reduce((a, i) => a + i.records, 0);
  const billedMs = invocations.reduce((a, i) => a + i.durationMs, 0);
  const byRequest = new Map<string, number>();
  for (const f of container.finished) byRequest.set(f.requestId ?? '', (byRequest.get(f.requestId ?? '') ?? 0) + 1);
  const reconciles = container.finished.length;
  const cold = invocations[0];
  const warm = invocations.slice(1);
  const peakRssKiB = Math.max(stats.memory.maxRssKiB, stats.vmHwmKiB ?? 0);
  const smallestMb = Math.max(128, Math.ceil(peakRssKiB / 1024));

  // SQS: requests by action and component.
  const actions = [...new Set(Object.values(proxies).flatMap((p) => [...p.counts.keys()]))].sort();
  const byAction = Object.fromEntries(
    actions.map((action) => {
      const row = Object.fromEntries(COMPONENTS.map((c) => [c, proxies[c].counts.get(action)?.requests ?? 0]));
      const total = COMPONENTS.reduce((a, c) => a + (proxies[c].counts.get(action)?.requests ?? 0), 0);
      const messages = COMPONENTS.reduce((a, c) => a + (proxies[c].counts.get(action)?.messages ?? 0), 0);
      return [action, { ...row, total, messages }];
    }),
  ) as Record<string, Record<Component | 'total' | 'messages', number>>;
  const total = Object.values(byAction).reduce((a, r) => a + r.total, 0);
  const emptyReceives = COMPONENTS.reduce(
    (a, c) => a + (proxies[c].counts.get('ReceiveMessage')?.emptyReceives ?? 0),
    0,
  );
  const mappingReceives = proxies.mapping.counts.get('ReceiveMessage');
  // The same pipeline if the mapping deleted each invocation's messages with one DeleteMessageBatch.
  const batchedTotal =
    total -
    emptyReceives -
    (proxies.mapping.counts.get('DeleteMessage')?.requests ?? 0) +
    deletingInvocations.work +
    deletingInvocations.delay;
  const perKey = (x: number) => round(x / Math.max(1, records), 2);
  const perReconcile = (x: number) => round(x / Math.max(1, reconciles), 2);

  const result = {
    date,
    cluster: CLUSTER,
    deployments: N,
    replicas: REPLICAS,
    node: { bench: process.version, container: (await promisify(execFile)(NODE22, ['-v'])).stdout.trim() },
    load: { before: loadBefore.map((x) => round(x, 2)), after: loadAfter.map((x) => round(x, 2)) },
    phasesMs: { createConverge: createdMs, rollConverge: rolledMs },
    drained,
    delayedLeft,
    lambda: {
      configuredMemoryMb: memorySize,
      timeoutS: timeoutMs / 1000,
      initMs: round(container.initMs),
      coldInvocationMs: cold ? round(cold.durationMs) : null,
      coldInvocationRecords: cold?.records ?? null,
      invocations: invocations.length,
      failedInvocations: invocations.filter((i) => i.error !== undefined).length,
      records,
      reconciles,
      billedMsTotal: round(billedMs),
      invocationMs: summary(invocations.map((i) => i.durationMs)),
      recordsPerInvocation: summary(invocations.map((i) => i.records)),
      perRecordMs: summary(warm.map((i) => i.durationMs / i.records)),
      perReconcileMs: summary(
        warm
          .filter((i) => (byRequest.get(i.requestId) ?? 0) > 0)
          .map((i) => i.durationMs / (byRequest.get(i.requestId) ?? 1)),
      ),
      meanBilledMsPerRecord: round(billedMs / Math.max(1, records)),
      meanBilledMsPerReconcile: round(billedMs / Math.max(1, reconciles)),
      loggedReconcileMs: summary(container.finished.map((f) => f.endedAt - f.startedAt)),
      loggedReconcileWithReleaseMs: summary(container.finished.map((f) => f.releasedAt - f.startedAt)),
      outcomes: Object.fromEntries(
        [...new Set(container.finished.map((f) => f.outcome))].map((o) => [
          o,
          container.finished.filter((f) => f.outcome === o).length,
        ]),
      ),
    },
    memory: {
      peakRssMiB: round(peakRssKiB / 1024),
      maxRssMiB: round(stats.memory.maxRssKiB / 1024),
      vmHwmMiB: stats.vmHwmKiB === null ? null : round(stats.vmHwmKiB / 1024),
      rssAfterMiB: mib(stats.memory.rss),
      heapUsedAfterMiB: mib(stats.memory.heapUsed),
      heapTotalAfterMiB: mib(stats.memory.heapTotal),
      externalAfterMiB: mib(stats.memory.external),
      smallestLambdaMb: smallestMb,
    },
    sqs: {
      byAction,
      total,
      emptyReceives,
      totalWithoutEmptyReceives: total - emptyReceives,
      mappingReceives: {
        work: receives.work,
        delay: receives.delay,
        emptyWork: empty.work,
        emptyDelay: empty.delay,
        withMessages: (mappingReceives?.requests ?? 0) - (mappingReceives?.emptyReceives ?? 0),
        empty: mappingReceives?.emptyReceives ?? 0,
      },
      mappingDeletingInvocations: deletingInvocations,
      perKeyIfMappingBatchesDeletes: perKey(batchedTotal),
      keysHandedOut: records,
      foreignRecords,
      perKey: perKey(total - emptyReceives),
      perReconcile: perReconcile(total - emptyReceives),
      perKeyWithEmptyReceives: perKey(total),
    },
  };

  const pad = (s: string | number, w: number) => String(s).padStart(w);
  const lines = [
    `Lambda + SQS reconcile cost — ${date}, ${N} Deployments × ${REPLICAS} replicas on ${CLUSTER}, created then rolled`,
    `node ${result.node.container} (container), ${process.version} (bench); load ${result.load.before.join(' ')} → ${result.load.after.join(' ')}`,
    `converged: create ${(createdMs / 1000).toFixed(1)} s, roll ${(rolledMs / 1000).toFixed(1)} s; queues drained: ${drained}` +
      (delayedLeft > 0 ? ` (${delayedLeft} delayed keys left)` : ''),
    '',
    'Lambda (reconcile function, one warm container)        median      p90     mean',
    `  invocation duration (ms)                          ${pad(result.lambda.invocationMs.median, 8)} ${pad(result.lambda.invocationMs.p90, 8)} ${pad(result.lambda.invocationMs.mean, 8)}`,
    `  records per invocation                            ${pad(result.lambda.recordsPerInvocation.median, 8)} ${pad(result.lambda.recordsPerInvocation.p90, 8)} ${pad(result.lambda.recordsPerInvocation.mean, 8)}`,
    `  billed ms per record (warm)                       ${pad(result.lambda.perRecordMs.median, 8)} ${pad(result.lambda.perRecordMs.p90, 8)} ${pad(result.lambda.perRecordMs.mean, 8)}`,
    `  billed ms per reconcile (warm)                    ${pad(result.lambda.perReconcileMs.median, 8)} ${pad(result.lambda.perReconcileMs.p90, 8)} ${pad(result.lambda.perReconcileMs.mean, 8)}`,
    `  logged reconcile ms (endedAt − startedAt)         ${pad(result.lambda.loggedReconcileMs.median, 8)} ${pad(result.lambda.loggedReconcileMs.p90, 8)} ${pad(result.lambda.loggedReconcileMs.mean, 8)}`,
    `  logged reconcile ms incl. release                 ${pad(result.lambda.loggedReconcileWithReleaseMs.median, 8)} ${pad(result.lambda.loggedReconcileWithReleaseMs.p90, 8)} ${pad(result.lambda.loggedReconcileWithReleaseMs.mean, 8)}`,
    `  invocations ${invocations.length} (failed ${result.lambda.failedInvocations}), records ${records}, reconciles ${reconciles}, billed ${(billedMs / 1000).toFixed(1)} s: ` +
      `${result.lambda.meanBilledMsPerRecord} ms/record, ${result.lambda.meanBilledMsPerReconcile} ms/reconcile overall`,
    `  init (bundle import) ${result.lambda.initMs} ms; cold invocation ${result.lambda.coldInvocationMs} ms (${result.lambda.coldInvocationRecords} records)`,
    `  outcomes ${JSON.stringify(result.lambda.outcomes)}`,
    '',
    `Memory: peak RSS ${result.memory.peakRssMiB} MiB (maxRSS ${result.memory.maxRssMiB}, VmHWM ${result.memory.vmHwmMiB}); after the run RSS ${result.memory.rssAfterMiB} MiB, heap used ${result.memory.heapUsedAfterMiB} / ${result.memory.heapTotalAfterMiB} MiB`,
    `  smallest Lambda memory size that holds the peak: ${smallestMb} MB (serverless.yml: ${memorySize} MB)`,
    '',
    `SQS requests        ${COMPONENTS.map((c) => pad(c, 9)).join(' ')}     total  messages`,
    ...actions.map((a) => {
      const r = byAction[a] ?? ({} as Record<string, number>);
      return `  ${a.padEnd(26)}${COMPONENTS.map((c) => pad(r[c] ?? 0, 9)).join(' ')} ${pad(r.total ?? 0, 9)} ${pad(r.messages ?? 0, 9)}`;
    }),
    `  total ${total}, of which empty receives ${emptyReceives} (the simulated mapping's short polls: ${result.sqs.mappingReceives.empty} empty, ${result.sqs.mappingReceives.withMessages} with messages)`,
    `  without empty receives: ${result.sqs.totalWithoutEmptyReceives} = ${result.sqs.perKey} per key handed out (${records}), ${result.sqs.perReconcile} per reconcile (${reconciles}); with them ${result.sqs.perKeyWithEmptyReceives} per key`,
    `  if the mapping deleted with one DeleteMessageBatch per invocation: ${batchedTotal} = ${result.sqs.perKeyIfMappingBatchesDeletes} per key`,
    `  mapping receives: work ${receives.work} (${empty.work} empty), delay ${receives.delay} (${empty.delay} empty); ` +
      `records of other namespaces deleted unhandled: ${foreignRecords}`,
  ];
  console.log(lines.join('\n'));
  if (run.json !== undefined) await writeFile(run.json, JSON.stringify(result, null, 2) + '\n');
}
