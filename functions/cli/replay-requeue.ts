// `fleetq replay requeue`: the keys of a cluster's events in a window (mapped as the forwarder maps them), added
// to the live queue once each. The memory queue lives only inside `fleetq run`, so it is refused: keys added to
// it here would go with this process.
import { keyString } from '../../shared/kube/key.js';
import { requeue, windowKeys } from '../../shared/replay/requeue.js';
import { registryFrom } from '../../shared/runtime/deps.js';
import { configFromFlags, nearest, oneOf, UsageError } from './common.js';
import { openQueue } from './queue-open.js';
import { malformedReporter, openStoreFlag, requireCluster, windowFlags } from './replay-common.js';

export type ReplayRequeueFlags = {
  readonly cluster: string;
  readonly since: string;
  readonly until?: string;
  readonly kind?: string;
  readonly dryRun: boolean;
  readonly store?: string;
  readonly registry?: string;
  readonly driver?: string;
};

export async function replayRequeue(flags: ReplayRequeueFlags): Promise<void> {
  const config = await configFromFlags(flags, { registry: 'FLEETQ_REGISTRY', driver: 'FLEETQ_DRIVER' });
  if (config.FLEETQ_DRIVER === 'memory' && !flags.dryRun) {
    throw new UsageError(
      'replay requeue on the memory queue: that queue lives only inside `fleetq run`, and keys added here would ' +
        'vanish with this process. Use --driver redis or sqs (the queue your workers read), or --dry-run to list the keys',
    );
  }
  if (!config.FLEETQ_REGISTRY) {
    throw new UsageError('replay requeue needs --registry FILE (or FLEETQ_REGISTRY): the kinds the cluster owns');
  }
  const { fromMs, toMs } = await windowFlags(flags.since, flags.until);
  const registry = registryFrom(config);
  const entry = registry.get(flags.cluster);
  if (!entry) {
    const names = registry.clusters.map((c) => c.name);
    const near = nearest(flags.cluster, names);
    throw new UsageError(
      `--cluster ${JSON.stringify(flags.cluster)}: not in the registry ${config.FLEETQ_REGISTRY}` +
        `${near === undefined ? '' : `; did you mean ${near}?`} (it has ${names.join(', ') || 'no cluster'})`,
    );
  }
  const kind =
    flags.kind === undefined ? undefined : oneOf('--kind', flags.kind, [...entry.owns], 'kind this cluster owns');
  const store = await openStoreFlag(flags.store);
  const malformed = malformedReporter();
  let found;
  try {
    await requireCluster(store, flags.cluster);
    found = await windowKeys(store.read(flags.cluster, 0, toMs, malformed.on), {
      cluster: flags.cluster,
      fromMs,
      toMs,
      ...(kind && { kind }),
      owns: new Set(entry.owns),
      ...(entry.handOver && { handOver: new Set(entry.handOver) }),
    });
  } finally {
    await store.close();
  }
  malformed.summary();
  const window = `${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}`;
  if (flags.dryRun) {
    for (const key of found.keys) console.log(keyString(key));
    console.error(`fleetq: would requeue ${found.keys.length} key(s) from ${found.events} event(s) in ${window}`);
    return;
  }
  // A Redis that does not answer fails here within seconds, naming its URL (queue-open.ts).
  const { queue, close } = await openQueue(config);
  try {
    const n = await requeue(queue, found.keys);
    console.log(
      `requeued ${n} key(s) from ${found.events} event(s) in ${window} into the ${config.FLEETQ_DRIVER} queue ${config.FLEETQ_QUEUE}`,
    );
  } finally {
    await close();
  }
}
