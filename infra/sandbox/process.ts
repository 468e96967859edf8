// Process plumbing for the sandbox: detached children that outlive the CLI, free ports, waits with deadlines.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
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
