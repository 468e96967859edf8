// The work of `fleetq ui` (ui.ts defines the command): checks the flags, opens the queue, starts the server
// (shared/ops/ui/server.ts), prints its URL and runs until SIGINT or SIGTERM.
import { isIP } from 'node:net';
import { ClusterHealthProbe } from '../../shared/ops/ui/cluster-health.js';
import { startUiServer } from '../../shared/ops/ui/server.js';
import { collectSnapshot } from '../../shared/ops/ui/snapshot.js';
import { createQueue } from '../../shared/queue/index.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { listDeadLetters } from '../../shared/replay/dead-letters.js';
import { queueConfig, registryFrom } from '../../shared/runtime/deps.js';
import { registryDigest } from '../../shared/runtime/registry-reload.js';
import { configFromFlags, durationFlag, oneOf, UsageError } from './common.js';

/** The flags of `fleetq ui` (ui.ts), as commander gives them. */
export type UiFlags = {
  readonly registry?: string;
  readonly driver?: string;
  readonly queue?: string;
  readonly port: string;
  readonly host: string;
  readonly refresh: string;
};

const DRIVERS = ['redis', 'sqs'] as const;
const MEMORY_REFUSED =
  'the memory driver keeps its queue inside the process that runs it (fleetq run): the ui needs a shared store, ' +
  'redis or sqs';

export async function serveUi(flags: UiFlags): Promise<void> {
  const port = parsePort(flags.port);
  const host = parseHost(flags.host);
  const refreshMs = parseRefresh(flags.refresh);
  if (flags.driver === 'memory') throw new UsageError(`--driver memory: ${MEMORY_REFUSED}`);
  if (flags.driver !== undefined) oneOf('--driver', flags.driver, DRIVERS, 'driver');
  const config = await configFromFlags(flags, {
    registry: 'FLEETQ_REGISTRY',
    driver: 'FLEETQ_DRIVER',
    queue: 'FLEETQ_QUEUE',
  });
  if (config.FLEETQ_DRIVER === 'memory') throw new UsageError(`FLEETQ_DRIVER=memory: ${MEMORY_REFUSED}`);
  const registry = config.FLEETQ_REGISTRY ? registryFrom(config) : undefined;
  const clusters = registry?.clusters.map((c) => c.name) ?? [];
  // Reading the SQS dead-letter list is a peek that hides it from other readers for a moment (sqs-dead-letters.ts),
  // and opening the SQS driver creates missing queues: on sqs the page shows the dead-letter count only.
  const queue: WorkQueue | undefined =
    config.FLEETQ_DRIVER === 'redis' ? await createQueue(queueConfig(config)) : undefined;
  const health = registry && new ClusterHealthProbe(registry);
  const digest = registry && registryDigest(registry.clusters);
  const server = await startUiServer({
    host,
    port,
    refreshMs,
    snapshot: () =>
      collectSnapshot({
        config,
        statusOptions: { clusters, ...(digest && { registryDigest: digest }) },
        deadLetters: async () => (queue ? listDeadLetters(queue, {}, Date.now()) : []),
        deadLettersListed: queue !== undefined,
        ...(health && { health }),
        refreshMs,
      }),
  }).catch(async (err: unknown) => {
    await queue?.close();
    throw listenError(err, host, port);
  });
  console.log(`fleetq ui: ${server.url} (read-only, refreshes every ${flags.refresh}; Ctrl-C to stop)`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  console.log(`fleetq ui: ${signal}: stopped`);
  await server.close();
  await queue?.close();
}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new UsageError(`--port ${JSON.stringify(text)}: a port number, 0 to 65535 (0: any free port)`);
  return port;
}

function parseHost(text: string): string {
  if (text === 'localhost' || isIP(text) !== 0) return text;
  throw new UsageError(
    `--host ${JSON.stringify(text)}: an IP address to listen on (127.0.0.1, ::1, 0.0.0.0) or localhost`,
  );
}

function parseRefresh(text: string): number {
  const ms = durationFlag(text, '--refresh');
  if (ms < 1_000)
    throw new UsageError(`--refresh ${JSON.stringify(text)}: at least 1s (every read asks Redis and every cluster)`);
  return ms;
}

/** A port in use or an address not on this machine, said with the flag to change. */
function listenError(err: unknown, host: string, port: number): Error {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new Error(`port ${port} on ${host} is in use: choose another with --port (0: any free port)`);
  if (code === 'EADDRNOTAVAIL')
    return new Error(`${host} is not an address of this machine: choose another with --host`);
  if (code === 'EACCES') return new Error(`port ${port} needs privileges: choose one above 1023 with --port`);
  return err instanceof Error ? err : new Error(String(err));
}
