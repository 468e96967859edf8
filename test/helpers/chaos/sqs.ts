// The SQS path for the chaos suite: dead letters read from the SQS dead-letter queue (not Redis), how many
// messages the work queue still holds, and workers run in-process on a queue the test builds (the FIFO test
// double, for the one behaviour the emulator cannot show: several messages of one group per receive), with
// the same run log the harness builds from worker processes.
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ClusterRegistry, loadRegistry } from '../../../shared/kube/registry.js';
import { keyString } from '../../../shared/kube/key.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';
import { loadConfig } from '../../../shared/runtime/config.js';
import { makeDeps } from '../../../shared/runtime/deps.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { WorkerLoop } from '../../../shared/runtime/loop.js';
import { RELEASE_SKEW_MS, type RawDeadLetter, type Run } from './harness.js';

/** The SQS driver's dead-letter list in the harness's shape (id = the key string, null for a raw body). */
export async function sqsDeadLetters(queue: Pick<WorkQueue, 'deadLetters'>): Promise<RawDeadLetter[]> {
  return (await queue.deadLetters()).map((d) => ({
    id: d.key === null ? null : keyString(d.key),
    ...(d.raw === undefined ? {} : { raw: d.raw }),
    reason: d.reason,
    failures: d.failures,
  }));
}

/** Messages in a queue: visible, in flight and delayed (approximate, as SQS reports them). */
export async function sqsMessages(client: SQSClient, url: string): Promise<number> {
  const names = [
    'ApproximateNumberOfMessages',
    'ApproximateNumberOfMessagesNotVisible',
    'ApproximateNumberOfMessagesDelayed',
  ] as const;
  const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...names] }));
  return names.reduce((sum, n) => sum + Number(out.Attributes?.[n] ?? 0), 0);
}

/** Runs from one worker's JSON log lines ('Reconcile started' / 'Reconcile finished', by token). */
export function runsFromLines(proc: string, lines: readonly string[]): Run[] {
  const started = new Map<string, { id: string; start: number }>();
  const finished = new Map<string, { start: number; end: number; outcome: string }>();
  for (const raw of lines) {
    let l: Record<string, unknown>;
    try {
      l = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof l.token !== 'string') continue;
    if (l.message === 'Reconcile started') {
      started.set(l.token, {
        id: [l.cluster, l.kind, l.namespace, l.name].join('/'),
        start: Date.parse(String(l.time)),
      });
    } else if (l.message === 'Reconcile finished') {
      finished.set(l.token, { start: Number(l.startedAt), end: Number(l.endedAt), outcome: String(l.outcome) });
    }
  }
  return [...started].map(([token, s]) => {
    const f = finished.get(token);
    return {
      proc,
      id: s.id,
      token,
      start: f ? Math.min(f.start, s.start) : s.start,
      ...(f && { end: f.end, outcome: f.outcome }),
    };
  });
}

/** (a) over a run log: two runs of one key that overlap (a run without an end lasts until now). */
export function runOverlaps(runs: readonly Run[]): string[] {
  const byKey = new Map<string, Run[]>();
  for (const r of runs) if (r.outcome !== 'lease-lost') byKey.set(r.id, [...(byKey.get(r.id) ?? []), r]);
  const found: string[] = [];
  const now = Date.now();
  for (const [id, rs] of byKey) {
    const sorted = [...rs].sort((a, b) => a.start - b.start);
    sorted.forEach((later, i) => {
      for (const earlier of sorted.slice(0, i)) {
        const end = earlier.end ?? now;
        if (later.start >= end - RELEASE_SKEW_MS) continue;
        found.push(
          `${id}: run ${earlier.token} (${earlier.proc}, ${earlier.start}–${end}) overlaps ` +
            `${later.token} (${later.proc}, from ${later.start}) by ${end - later.start} ms`,
        );
      }
    });
  }
  return found;
}

export type InProcessWorker = { readonly name: string; readonly lines: string[]; readonly loop: WorkerLoop };

/**
 * One worker per queue, in this process: the same runtime as functions/worker.ts (makeDeps + WorkerLoop) on a
 * queue built by the test, logging at debug into `lines`. Each queue stands for one worker process.
 */
export async function startInProcessWorkers(o: {
  readonly registryPath: string;
  readonly queues: readonly WorkQueue[];
  readonly leaseMs: number;
  readonly concurrency: number;
}): Promise<{ readonly workers: InProcessWorker[]; runs(): Run[]; stop(): Promise<void> }> {
  const registry = new ClusterRegistry(loadRegistry(o.registryPath));
  const config = loadConfig({
    FLEETQ_REGISTRY: o.registryPath,
    FLEETQ_DRIVER: 'sqs',
    FLEETQ_LEASE_MS: String(o.leaseMs),
    FLEETQ_CONCURRENCY: String(o.concurrency),
    LOG_LEVEL: 'debug',
  });
  const workers = await Promise.all(
    o.queues.map(async (queue, i) => {
      const name = `in-process-worker-${i + 1}`;
      const lines: string[] = [];
      const deps = await makeDeps(config, { service: name, registry, queue });
      const logger = new Logger(name, 'debug', (line) => lines.push(line));
      const loop = new WorkerLoop(
        { ...deps, logger },
        { concurrency: o.concurrency, renewEveryMs: Math.floor(o.leaseMs / 3) },
      );
      loop.start();
      return { name, lines, loop };
    }),
  );
  return {
    workers,
    runs: () => workers.flatMap((w) => runsFromLines(w.name, w.lines)).sort((a, b) => a.start - b.start),
    stop: async () => void (await Promise.all(workers.map((w) => w.loop.stop()))),
  };
}
