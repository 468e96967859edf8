// Child processes for e2e tests: a TypeScript entry point run through tsx, its stderr/stdout lines
// collected so a test can wait for a log line, and killed in afterAll.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort, waitFor } from '../../infra/sandbox/process.js';

export type Proc = {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Resolves with the first line (seen so far or later) matching re. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends the signal and waits for the process to exit; resolves with its exit code (null if killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  readonly exited: Promise<number | null>;
};

export function spawnTsx(script: string, env: NodeJS.ProcessEnv, name = script, args: readonly string[] = []): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (l) => lines.push(l));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    async waitForLine(re, timeoutMs = 60_000) {
      let found: string | undefined;
      await waitFor(
        async () => (found = lines.find((l) => re.test(l))) !== undefined,
        timeoutMs,
        50,
        `${name}: a line matching ${re}`,
      ).catch((err: unknown) => {
        throw new Error(
          `${err instanceof Error ? err.message : String(err)}\n--- last lines of ${name} ---\n${lines.slice(-20).join('\n')}`,
        );
      });
      return found ?? '';
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Parses the JSON log lines of a process (others are ignored). Lines are parsed once and kept (the array only
 * grows): a chaos test polls this every few hundred ms over tens of thousands of lines, and parsing them all
 * each time held its event loop long enough to stamp watch events late.
 */
export function jsonLines(p: Proc): Array<Record<string, unknown>> {
  let c = parsedLines.get(p.lines);
  if (!c) parsedLines.set(p.lines, (c = { seen: 0, parsed: [] }));
  for (; c.seen < p.lines.length; c.seen++) {
    try {
      const v: unknown = JSON.parse(p.lines[c.seen] as string);
      if (typeof v === 'object' && v !== null) c.parsed.push(v as Record<string, unknown>);
    } catch {
      // not a JSON line
    }
  }
  return [...c.parsed];
}

const parsedLines = new WeakMap<string[], { seen: number; parsed: Array<Record<string, unknown>> }>();

/**
 * spawnTsx with a free metrics port (FLEETQ_METRICS_PORT from `envFor(port)`), resolved once the process serves
 * /healthz there; fleetq's processes log at warn in the benches, so no start line is waited for. tsx compiles the
 * sources at start: minutes at a load of 20+ on 2 cores, hence the 6-minute deadline.
 */
export async function spawnServing(
  name: string,
  script: string,
  envFor: (metricsPort: number) => NodeJS.ProcessEnv,
  started?: (proc: Proc, metricsPort: number) => void,
): Promise<{ proc: Proc; metricsPort: number }> {
  const metricsPort = await freePort();
  const proc = spawnTsx(script, envFor(metricsPort), name);
  started?.(proc, metricsPort);
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).ok,
    360_000,
    250,
    `${name} serving /healthz`,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n--- ${name} ---\n${proc.lines.slice(-20).join('\n')}`);
  });
  return { proc, metricsPort };
}
