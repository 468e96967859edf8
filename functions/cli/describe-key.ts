// `fleetq describe KEY`: one key's state (shared/ops/describe.ts), from the queue's Redis on a client that fails
// fast. The cached object's kind is what the key's controller reconciles (its descriptor's `for.kind`).
import { DESCRIPTORS } from '../../shared/controllers/index.js';
import { parseKey } from '../../shared/kube/key.js';
import { describeKey, formatDescription } from '../../shared/ops/describe.js';
import { verifyingSecrets } from '../../shared/queue/message-signing.js';
import { resolveQueueOptions } from '../../shared/queue/queue-options.js';
import { connectFailFast } from '../../shared/queue/redis/redis-connection.js';
import { signingOptions } from '../../shared/runtime/config.js';
import { terminalSafeJson } from '../../shared/ops/terminal-text.js';
import { keyArgument } from './queue-dlq.js';
import { inertYaml, queueCommandConfig, type QueueFlags } from './queue-open.js';

export type DescribeFlags = QueueFlags & { readonly output: 'text' | 'json' | 'yaml' };

export async function describe(keyText: string, flags: DescribeFlags): Promise<void> {
  const key = parseKey(keyArgument(keyText));
  const config = await queueCommandConfig(flags);
  if (config.FLEETQ_DRIVER !== 'redis')
    throw new Error(
      `describe reads the redis driver's queue; FLEETQ_DRIVER is ${config.FLEETQ_DRIVER} ` +
        '(run it with --driver redis where the queue is in Redis)',
    );
  const queueOptions = resolveQueueOptions(signingOptions(config));
  const redis = await connectFailFast(config);
  try {
    const d = await describeKey(redis, key, {
      queue: config.FLEETQ_QUEUE,
      shards: config.FLEETQ_QUEUE_SHARDS,
      prefix: config.FLEETQ_REDIS_PREFIX,
      baseDelayMs: queueOptions.baseDelayMs,
      maxDelayMs: queueOptions.maxDelayMs,
      objectKind: DESCRIPTORS.descriptor(key.kind)?.for.kind ?? key.kind,
      signingSecrets: verifyingSecrets(signingOptions(config)),
    });
    if (flags.output === 'json') console.log(terminalSafeJson(d, 2));
    else if (flags.output === 'yaml') process.stdout.write(await inertYaml(d));
    else console.log(formatDescription(d));
  } finally {
    redis.disconnect();
  }
}
