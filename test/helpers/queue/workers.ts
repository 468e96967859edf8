// Spawns queue worker child processes under tsx and stops them: fleetq's drivers
// (test/helpers/queue/property-worker.ts) or raw BullMQ (test/helpers/bench/bullmq-worker.ts), which speak
// one protocol on stdout: "ready", then {"progress": n} lines, then {"handled": n} after SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { QueueConfig } from '../../../shared/queue/index.js';

const FLEETQ_WORKER = fileURLToPath(new URL('./property-worker.ts', import.meta.url));
const BULLMQ_WORKER = fileURLToPath(new URL('../bench/bullmq-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export type WorkerOptions = {
  queue: QueueConfig;
  out?: string;
  maxWorkMs?: number;
  /** Every key takes exactly this long (a handler that sleeps); overrides maxWorkMs. */
  workMs?: number;
  waitForGo?: boolean;
  concurrency?: number;
};
export type BullmqWorkerOptions = {
  queue: string;
  redisUrl: string;
  concurrency?: number;
  workMs?: number;
  waitForGo?: boolean;
  out?: string;
};
export type Workers = {
  go(): void;
  /** Keys (jobs) finished so far, summed over the processes, from their last progress lines. */
  handled(): number;
  stop(): Promise<number[]>;
};

type Child = { child: ChildProcess; output: string[]; progress: number; partial: string };

async function spawnProcesses(count: number, script: string, env: (i: number) => Record<string, string>) {
  const children: Child[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: ROOT,
        env: { ...process.env, ...env(i), NODE_OPTIONS: '' },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const entry: Child = { child, output: [], progress: 0, partial: '' };
      children.push(entry);
      await new Promise<void>((resolve, reject) => {
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          // A line can arrive in two chunks: the tail after the last newline waits for the next one.
          const lines = (entry.partial + chunk).split('\n');
          entry.partial = lines.pop() ?? '';
          for (const line of lines.filter(Boolean)) {
            const progress = line.startsWith('{"progress"') ? (JSON.parse(line) as { progress: number }) : undefined;
            if (progress) entry.progress = progress.progress;
            else entry.output.push(line);
          }
          if (entry.output.includes('ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker ${i} exited early with ${code}`)));
      });
    }),
  );
  return {
    go: () => children.forEach(({ child }) => child.stdin?.write('go\n')),
    handled: () => children.reduce((sum, c) => sum + c.progress, 0),
    async stop() {
      return Promise.all(
        children.map(
          ({ child, output }) =>
            new Promise<number>((resolve) => {
              child.removeAllListeners('exit');
              child.once('exit', () => {
                const final = output.find((l) => l.startsWith('{"handled"'));
                resolve(final ? (JSON.parse(final) as { handled: number }).handled : -1);
              });
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

export async function spawnWorkers(count: number, options: (i: number) => WorkerOptions): Promise<Workers> {
  return spawnProcesses(count, FLEETQ_WORKER, (i) => ({ FLEETQ_QUEUE_WORKER: JSON.stringify(options(i)) }));
}

export async function spawnBullmqWorkers(count: number, options: (i: number) => BullmqWorkerOptions): Promise<Workers> {
  return spawnProcesses(count, BULLMQ_WORKER, (i) => ({ FLEETQ_BULLMQ_WORKER: JSON.stringify(options(i)) }));
}
