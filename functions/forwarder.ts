// The forwarder as a process or a scheduled Lambda. Parses configuration and calls shared/forwarder.
//   long-running:  npx tsx functions/forwarder.ts --registry fleet.yaml --driver memory|redis|sqs
//                  (or FLEETQ_REGISTRY / FLEETQ_DRIVER; SIGTERM/SIGINT stop it and write the checkpoints)
//   Lambda:        `tick` (EventBridge schedule) runs every cluster's forwarder for FORWARDER_RUN_MS (default
//                  50 000, capped by the invocation's remaining time) from the checkpoints in Redis, into the
//                  stack's queues (SQS_*_URL). A cluster whose run failed (checkpoints unreadable or not
//                  written, e.g. Redis down) fails the invocation: it throws ForwarderTickError.
//   pool:          --pool (or FLEETQ_FORWARDER_POOL=true): one of several forwarder processes sharing the
//                  registry's clusters under leases in the queue's Redis (shared/forwarder/forwarder-pool.ts;
//                  redis driver and redis checkpoints); the registry file is re-read every round.
// Other settings: shared/runtime/config.ts (queue, Redis) and shared/forwarder/forwarder-deps.ts (stores).
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { Registry } from 'prom-client';
import { FleetForwarder, type ClusterRunResult } from '../shared/forwarder/fleet-forwarder.js';
import { ForwarderPool } from '../shared/forwarder/forwarder-pool.js';
import { RegistryReload } from '../shared/runtime/registry-reload.js';
import { RedisCheckpointStore } from '../shared/queue/history/checkpoint-store.js';
import { connectRedis } from '../shared/queue/redis/redis-connection.js';
import { redisKeyPrefix } from '../shared/queue/redis/redis-keys.js';
import { shardQueueNameOf } from '../shared/queue/queue-shards.js';
import { ForwarderMemory } from '../shared/forwarder/forwarder-memory.js';
import { withProcessMetrics } from '../shared/forwarder/metrics.js';
import {
  forwarderQueue,
  forwarderStores,
  loadForwarderConfig,
  type ForwarderConfig,
} from '../shared/forwarder/forwarder-deps.js';
import { AddFoldQueue } from '../shared/queue/sqs/sqs-add-fold.js';
import { createQueue } from '../shared/queue/index.js';
import type { WorkQueue } from '../shared/queue/work-queue.js';
import { isLambda, loadConfig, readsMode, type FleetqConfig } from '../shared/runtime/config.js';
import { queueConfig, redisCaches, registryFrom } from '../shared/runtime/deps.js';
import { EmfExporter } from '../shared/runtime/emf.js';
import { LambdaDeps } from '../shared/runtime/lambda-deps.js';
import { Logger } from '../shared/runtime/logger.js';
import { serveMetrics } from '../shared/runtime/metrics.js';
import { redactText } from '../shared/kube/redact-secrets.js';
import { resyncOnRedisLoss } from '../shared/runtime/redis-loss-resync.js';

/** Time left for stopping cleanly (flushing checkpoints) before Lambda's deadline. */
const STOP_MARGIN_MS = 5_000;

type FleetDeps = {
  readonly config: FleetqConfig;
  readonly fwd: ForwarderConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly newFleet: () => FleetForwarder;
  /** A pool member instead of a fleet (FLEETQ_FORWARDER_POOL). */
  readonly newPool: () => ForwarderPool;
  /** The work queue the forwarders enqueue into (its enqueues tell of a Redis data loss: resyncOnRedisLoss). */
  readonly queue: WorkQueue;
  /**
   * Whether the queue, the checkpoints or the cache live in REDIS_URL: a data loss there is then watched for
   * (resyncOnRedisLoss), on the SQS driver too, whose cache and checkpoints a flush or a lagging failover loses.
   */
  readonly usesRedis: boolean;
  close(): Promise<void>;
};

/** Queue, stores, logger and metrics: built once, shared by every FleetForwarder of this process. */
async function makeFleetDeps(config: FleetqConfig, fwd: ForwarderConfig): Promise<FleetDeps> {
  const logger = new Logger('fleetq-forwarder', config.LOG_LEVEL);
  const registry = new Registry();
  const clusters = registryFrom(config);
  // The stack's queues by URL in Lambda (never created there: config.ts refuses a Lambda without them).
  // On SQS, a key's adds within FLEETQ_ADD_FOLD_MS are one message (forwarder-deps.ts forwarderQueue).
  const queue = forwarderQueue(await createQueue({ ...queueConfig(config), metrics: { registry } }), fwd);
  const stores = forwarderStores(config, fwd);
  // Handlers that read from the cache read what this forwarder materializes in the queue's Redis.
  const caches =
    readsMode(config) === 'cache' && config.FLEETQ_DRIVER !== 'memory' ? redisCaches(config, clusters) : undefined;
  // Each cluster's index and previous state, kept from tick to tick while the container is warm: a tick that
  // resumes where the last one checkpointed needs no warm list, and a long warm list goes on (forwarder-memory.ts).
  const memories = new Map<string, ForwarderMemory>();
  const memoryFor = (cluster: string): ForwarderMemory => {
    let memory = memories.get(cluster);
    if (!memory) memories.set(cluster, (memory = new ForwarderMemory()));
    return memory;
  };
  const newFleet = (): FleetForwarder =>
    new FleetForwarder(clusters, {
      memoryFor,
      queue,
      checkpoints: stores.checkpoints,
      ...(stores.eventLog === undefined ? {} : { eventLog: stores.eventLog }),
      logger,
      registry,
      resyncMs: fwd.FLEETQ_RESYNC_MS,
      ...(caches && { cacheFor: (cluster: string) => caches.storeFor(cluster) }),
    });
  let poolRedis: ReturnType<typeof connectRedis> | undefined;
  const newPool = (): ForwarderPool => {
    if (config.FLEETQ_DRIVER !== 'redis' || !(stores.checkpoints instanceof RedisCheckpointStore))
      throw new Error(
        'a forwarder pool needs FLEETQ_DRIVER=redis and FLEETQ_CHECKPOINTS=redis (leases and fences live there)',
      );
    poolRedis ??= connectRedis(
      config.REDIS_URL,
      { tlsCaFile: config.FLEETQ_REDIS_TLS_CA },
      { maxRetriesPerRequest: 3 },
    );
    return new ForwarderPool({
      redis: poolRedis,
      queuePrefix: redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX),
      // With shards a cluster's keys go to its shard's queue: its writes are fenced there by the lease's token.
      ...(config.FLEETQ_QUEUE_SHARDS > 1 && {
        clusterQueuePrefix: (cluster: string) =>
          redisKeyPrefix(
            shardQueueNameOf(config.FLEETQ_QUEUE, config.FLEETQ_QUEUE_SHARDS, cluster),
            config.FLEETQ_REDIS_PREFIX,
          ),
      }),
      // The Redis queue: the pool's enqueues go through its fenced add (addFenced).
      queue,
      checkpoints: stores.checkpoints,
      registry: new RegistryReload(config.FLEETQ_REGISTRY, clusters, logger),
      leaseMs: fwd.FLEETQ_FORWARDER_LEASE_MS,
      quarantineDeaths: config.FLEETQ_FORWARDER_QUARANTINE_DEATHS,
      quarantineMs: config.FLEETQ_FORWARDER_QUARANTINE_MS,
      logger,
      metrics: registry,
      ...(caches && { cacheFor: (cluster: string) => caches.storeFor(cluster) }),
      forwarder: {
        ...(stores.eventLog === undefined ? {} : { eventLog: stores.eventLog }),
        resyncMs: fwd.FLEETQ_RESYNC_MS,
      },
    });
  };
  return {
    config,
    fwd,
    logger,
    registry,
    newFleet,
    newPool,
    queue,
    usesRedis:
      config.FLEETQ_DRIVER === 'redis' || caches !== undefined || stores.checkpoints instanceof RedisCheckpointStore,
    close: async () => {
      await Promise.all([queue.close(), stores.close(), caches?.close()]);
      await poolRedis?.quit();
    },
  };
}

// Lambda: dependencies are built on the first invocation and reused while the container is warm; a failed
// build is not kept, and a rotated secret rebuilds them (lambda-deps.ts).
const lambda = new LambdaDeps<FleetDeps & { readonly emf: EmfExporter }>(
  'fleetq-forwarder',
  async (env) => {
    const deps = await makeFleetDeps(loadConfig(env), loadForwarderConfig(env));
    return { ...deps, emf: new EmfExporter(deps.registry, { namespace: 'fleetq', service: 'forwarder' }) };
  },
  (deps) => deps.close(),
);

/** A tick in which some cluster's run failed: thrown, so that Lambda counts an error and alarms can fire. */
export class ForwarderTickError extends Error {
  constructor(readonly failed: readonly ClusterRunResult[]) {
    super(`forwarder tick failed for ${failed.map((r) => `${r.cluster} (${r.error ?? 'failed'})`).join(', ')}`);
    this.name = new.target.name;
  }
}

export type TickContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Pick<Context, 'awsRequestId'>>;

export const tick = async (event: ScheduledEvent, context?: TickContext) => {
  const { deps, coldStart } = await lambda.get();
  const { fwd, newFleet, emf } = deps;
  const logger = deps.logger.child({ requestId: context?.awsRequestId, coldStart });
  const remaining = context ? context.getRemainingTimeInMillis() - STOP_MARGIN_MS : Infinity;
  const runMs = Math.max(0, Math.min(fwd.FORWARDER_RUN_MS, remaining));
  // A fresh FleetForwarder per tick: its forwarders resume from the checkpoints the last tick wrote.
  const fleet = newFleet();
  logger.info('Forwarder tick', { id: event.id, time: event.time, runMs });
  try {
    const results: ClusterRunResult[] = await fleet.runFor(runMs);
    const stats = Object.fromEntries([...fleet.forwarders].map(([name, f]) => [name, f.stats]));
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0) {
      logger.error('Forwarder tick failed', { results, stats });
      throw new ForwarderTickError(failed);
    }
    logger.info('Forwarder tick done', { results, stats });
    return { results, stats };
  } finally {
    // Every add was awaited by its forwarder; a key still folded would wait out a frozen container: sent now.
    if (deps.queue instanceof AddFoldQueue) await deps.queue.flush();
    if (isLambda(process.env)) await emf.flush();
    // `osls invoke local` waits for the event loop to empty: close the connections so it exits with the tick.
    if (process.env.IS_LOCAL === 'true') await lambda.dispose();
  }
};

/** Closes what warm invocations kept open (tests; a Lambda container is simply frozen). */
export const closeTickDeps = (): Promise<void> => lambda.dispose();

/** The flags of `fleetq forwarder` (functions/cli/processes.ts); each overrides its variable. */
export type ForwarderFlags = {
  readonly registry?: string;
  readonly driver?: string;
  readonly queue?: string;
  readonly metricsPort?: string;
  readonly pool?: boolean;
};

/** `fleetq forwarder [--pool]`: the long-running forwarder (or pool member) until SIGTERM or SIGINT. */
export async function main(flags: ForwarderFlags): Promise<void> {
  // Loaded here, not at the top: the Lambda bundle carries no command-line code.
  const { configFromFlags } = await import('./cli/common.js');
  const config = await configFromFlags(flags, {
    registry: 'FLEETQ_REGISTRY',
    driver: 'FLEETQ_DRIVER',
    queue: 'FLEETQ_QUEUE',
    metricsPort: 'FLEETQ_METRICS_PORT',
  });
  const fwd = loadForwarderConfig(process.env);
  const { logger, registry, newFleet, newPool, queue, usesRedis, close } = await makeFleetDeps(config, fwd);
  const fleet = flags.pool === true || fwd.FLEETQ_FORWARDER_POOL ? newPool() : newFleet();
  const server =
    config.FLEETQ_METRICS_PORT === undefined
      ? undefined
      : // Node's process metrics beside the forwarder's: CPU per event, RSS, heap (not in the Lambda's EMF).
        await serveMetrics(withProcessMetrics(registry), config.FLEETQ_METRICS_PORT, config.FLEETQ_METRICS_HOST);
  // A service holds itself open until it is told to stop; it must not depend on some connection being
  // ref'd. On the SQS driver nothing else was: the cache's Redis socket is unref'd (so a Lambda or a test never
  // hangs on it), and the process exited silently mid-list, its log ending at 'Watching'.
  const keepAlive = setInterval(() => undefined, 60_000);
  await fleet.start();
  // Redis is a cache that can vanish: on a data loss of the queue's Redis every forwarder resyncs (README).
  const lossWatch = usesRedis
    ? // A pool member enqueues through its fenced script, which tells the pool (not the queue) of a loss.
      await resyncOnRedisLoss(fleet, config, logger, {
        queue: fleet instanceof ForwarderPool ? fleet : queue,
        registry,
      })
    : undefined;
  logger.info('Forwarder running', {
    driver: config.FLEETQ_DRIVER,
    pid: process.pid,
    ...(fleet instanceof ForwarderPool && { pool: fleet.holder, leaseMs: fleet.leaseMs }),
  });
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info('Forwarder stopping', { signal });
  clearInterval(keepAlive);
  await lossWatch?.stop();
  await fleet.stop();
  await close();
  server?.close();
  logger.info('Forwarder exited', { signal });
}

// As a script of its own (split deployments, tests): `fleetq forwarder`'s flags; its help is `fleetq forwarder --help`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fail = (code: number, message: string): void => {
    process.stderr.write(`fleetq-forwarder: ${redactText(message)}\n`);
    process.exit(code);
  };
  let flags: ForwarderFlags & { help?: boolean };
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        registry: { type: 'string' },
        driver: { type: 'string' },
        queue: { type: 'string' },
        'metrics-port': { type: 'string' },
        pool: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const { 'metrics-port': metricsPort, ...rest } = values;
    flags = { ...rest, ...(metricsPort !== undefined && { metricsPort }) };
  } catch (err) {
    fail(2, `${err instanceof Error ? err.message : String(err)} (flags: fleetq forwarder --help)`);
    throw err;
  }
  if (flags.help === true) {
    process.stdout.write(
      'functions/forwarder.ts runs `fleetq forwarder`: [--pool] [--registry F] [--driver D] [--queue Q] [--metrics-port P]\n' +
        'Its help, with examples: fleetq forwarder --help\n',
    );
    process.exit(0);
  }
  main(flags).then(
    () => process.exit(0),
    (err: unknown) =>
      fail(err instanceof Error && err.name === 'UsageError' ? 2 : 1, err instanceof Error ? err.message : String(err)),
  );
}
