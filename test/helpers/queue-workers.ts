// Spawns queue worker child processes (test/helpers/queue-property-worker.ts under tsx) and stops them.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { QueueConfig } from '../../shared/queue/index.js';

const WORKER = fileURLToPath(new URL('./queue-property-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type WorkerOptions = {
  queue: QueueConfig;
  out?: string;
  maxWorkMs?: number;
  waitForGo?: boolean;
  concurrency?: number;
};
export type Workers = { go(): void; stop(): Promise<number[]> };

export async function spawnWorkers(count: number, options: (i: number) => WorkerOptions): Promise<Workers> {
  const children: Array<{ child: ChildProcess; output: string[] }> = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
        cwd: ROOT,
        env: { ...process.env, FLEETQ_QUEUE_WORKER: JSON.stringify(options(i)), NODE_OPTIONS: '' },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const output: string[] = [];
      children.push({ child, output });
      await new Promise<void>((resolve, reject) => {
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          output.push(...chunk.split('\n').filter(Boolean));
          if (output.includes('ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker ${i} exited early with ${code}`)));
      });
    }),
  );
  return {
    go: () => children.forEach(({ child }) => child.stdin?.write('go\n')),
    async stop() {
      return Promise.all(
        children.map(
          ({ child, output }) =>
            new Promise<number>((resolve) => {
              child.removeAllListeners('exit');
              child.once('exit', () => {
                const last = output.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { handled: number }) : null));
                resolve(last.find((l) => l !== null)?.handled ?? -1);
              });
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
