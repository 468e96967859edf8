// Builds what a handler needs from its configuration: registry, queue, per-cluster clients, metrics.
import { controllersFor } from '../controllers/index.js';
import { ClusterRegistry, loadRegistry, type ClusterConfig } from '../kube/registry.js';
import { createQueue, type QueueConfig } from '../queue/index.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { clusterClients } from './clients.js';
import type { FleetqConfig } from './config.js';
import { Logger } from './logger.js';
import { runtimeMetrics, type RuntimeMetrics } from './metrics.js';
import type { ReconcileDeps } from './reconcile-one.js';

export type Deps = ReconcileDeps & { readonly metrics: RuntimeMetrics };

export function queueConfig(
  config: FleetqConfig,
  metrics?: RuntimeMetrics,
  logger?: Logger,
  registry?: ClusterRegistry,
): QueueConfig {
  // Per-cluster `limits.concurrency` of the registry: keys of that cluster held at once, fleet-wide.
  const caps = Object.fromEntries(
    (registry?.clusters ?? []).flatMap((c) =>
      c.limits.concurrency === undefined ? [] : [[c.name, c.limits.concurrency]],
    ),
  );
  const common = {
    name: config.FLEETQ_QUEUE,
    options: {
      leaseMs: config.FLEETQ_LEASE_MS,
      ...(config.FLEETQ_SIGNING_SECRET !== undefined && { signingSecret: config.FLEETQ_SIGNING_SECRET }),
      ...(Object.keys(caps).length > 0 && { clusterConcurrencyOverrides: caps }),
      ...(logger && {
        onMalformed: (raw: string, reason: string) =>
          logger.error('Malformed message dead-lettered', { body: raw.slice(0, 200), reason }),
      }),
    },
    ...(metrics && { metrics: { registry: metrics.registry } }),
  };
  switch (config.FLEETQ_DRIVER) {
    case 'memory':
      return { ...common, driver: 'memory' };
    case 'bullmq':
      return {
        ...common,
        driver: 'bullmq',
        redisUrl: config.REDIS_URL,
        prefix: config.FLEETQ_REDIS_PREFIX,
        ...(config.FLEETQ_REDIS_TLS_CA !== undefined && { redisTlsCaFile: config.FLEETQ_REDIS_TLS_CA }),
      };
    case 'sqs':
      return { ...common, driver: 'sqs', endpoint: config.SQS_ENDPOINT, region: config.AWS_REGION };
  }
}

export function registryFrom(config: FleetqConfig, clusters?: readonly ClusterConfig[]): ClusterRegistry {
  if (clusters) return new ClusterRegistry(clusters);
  if (!config.FLEETQ_REGISTRY) throw new Error('FLEETQ_REGISTRY (the cluster registry file) is not set');
  return new ClusterRegistry(loadRegistry(config.FLEETQ_REGISTRY));
}

export async function makeDeps(
  config: FleetqConfig,
  o: {
    readonly service: string;
    readonly registry?: ClusterRegistry;
    readonly queue?: WorkQueue;
    readonly metrics?: RuntimeMetrics;
  },
): Promise<Deps> {
  const metrics = o.metrics ?? runtimeMetrics();
  const registry = o.registry ?? registryFrom(config);
  const logger = new Logger(o.service, config.LOG_LEVEL);
  const queue = o.queue ?? (await createQueue(queueConfig(config, metrics, logger, registry)));
  return {
    registry,
    queue,
    metrics,
    clients: clusterClients(registry, metrics.onRequest),
    controllers: controllersFor(registry),
    logger,
    now: () => new Date(),
    leaseMs: config.FLEETQ_LEASE_MS,
    onOutcome: metrics.onOutcome,
  };
}
