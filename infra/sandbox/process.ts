// Process plumbing for the sandbox: detached children that outlive the CLI, free ports, waits with deadlines.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createServer } from 'node:net';

/** Starts `bin args` detached from this process, stdout+stderr appended to logFile; returns its pid. */
export function spawnDetached(bin: string, args: readonly string[], logFile: string, env?: NodeJS.ProcessEnv): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd], env: env ?? process.env });
    if (child.pid === undefined) throw new Error(`could not start ${bin}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM the process group, then SIGKILL whatever is left after graceMs. */
export async function stopProcess(pid: number, graceMs = 5_000): Promise<void> {
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  if (!isAlive(pid)) return;
  signal('SIGTERM');
  const gone = await waitFor(async () => !isAlive(pid), graceMs, 50).then(
    () => true,
    () => false,
  );
  if (!gone) signal('SIGKILL');
  await waitFor(async () => !isAlive(pid), 5_000, 50).catch(() => undefined);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Polls `check` until it returns true, or throws TimeoutError(describe) after timeoutMs. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 200,
  describe = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: last error ${lastError.message}` : '';
      throw new TimeoutError(`timed out after ${timeoutMs} ms waiting for ${describe}${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** How many times a component is started on new ports when a port it was given was taken before it listened. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a listening component on ports picked free a moment before (freePort). Another process can take one of
 * them in between (another cluster's component starting beside it, an outgoing connection's ephemeral port); the
 * component then logs "address already in use" and exits. Its ports are then picked again and it is started again,
 * up to PORT_ATTEMPTS times; any other failure to become ready within timeoutMs is thrown as it was.
 */
export async function startListening(o: {
  readonly what: string;
  readonly log: string;
  readonly timeoutMs: number;
  readonly pickPorts: () => Promise<void>;
  readonly spawn: () => number;
  readonly ready: () => Promise<boolean>;
}): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await o.pickPorts();
    const from = existsSync(o.log) ? statSync(o.log).size : 0;
    const pid = o.spawn();
    let taken = false;
    await waitFor(
      async () => {
        taken = logSince(o.log, from).includes('address already in use');
        return taken || (await o.ready());
      },
      o.timeoutMs,
      100,
      `${o.what} (log ${o.log})`,
    );
    if (!taken) return;
    await stopProcess(pid, 1_000);
    if (attempt >= PORT_ATTEMPTS) {
      throw new Error(`${o.what}: a port it was given was taken before it listened, ${attempt} times (log ${o.log})`);
    }
  }
}

/** What a log file gained past byte `from` (at most 1 MiB of it). */
function logSince(file: string, from: number): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  const length = Math.min(size - from, 1 << 20);
  if (length <= 0) return '';
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, from);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
