// Doctor: the queue and the stores (Redis answers; the SQS work queue is there), and the signing secret where it
// is required. URLs are printed without their passwords.
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { redactText } from '../kube/redact-secrets.js';
import { connectFailFast, redactedUrl } from '../queue/redis/redis-connection.js';
import { sqsQueueNames } from '../queue/sqs/sqs-setup.js';
import { apiBudgetMode } from '../runtime/clients.js';
import { isLambda, readsMode, type FleetqConfig } from '../runtime/config.js';
import { CheckStatus, type Check } from './doctor-check.js';

/** What keeps state in Redis: the redis queue, the fleet-wide API budget, a shared cache, checkpoints, event log. */
export function redisUses(config: FleetqConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    ...(config.FLEETQ_DRIVER === 'redis' ? ['queue'] : []),
    ...(apiBudgetMode(config) === 'redis' ? ['API budget'] : []),
    ...(config.FLEETQ_DRIVER !== 'memory' && readsMode(config) === 'cache' ? ['object cache'] : []),
    ...(env.FLEETQ_CHECKPOINTS === 'redis' ? ['checkpoints'] : []),
    ...(env.FLEETQ_EVENT_LOG === 'redis' ? ['event log'] : []),
  ];
}

export async function checkStores(
  config: FleetqConfig,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Check[]> {
  const checks: Check[] = [];
  const uses = redisUses(config, env);
  const url = redactedUrl(config.REDIS_URL);
  if (uses.length === 0) {
    checks.push({ name: 'Redis', status: CheckStatus.ok, message: `not used (${config.FLEETQ_DRIVER} driver)` });
  } else {
    try {
      const redis = await connectFailFast(config, timeoutMs);
      try {
        await redis.ping();
      } finally {
        redis.disconnect();
      }
      checks.push({ name: 'Redis', status: CheckStatus.ok, message: `${url} answers (${uses.join(', ')})` });
    } catch (err) {
      checks.push({
        name: 'Redis',
        status: CheckStatus.fail,
        message: `${causeOf(err)} (needed for the ${uses.join(', ')})`,
        fix: 'start Redis or fix REDIS_URL (rediss://:<password>@host:port off this machine)',
      });
    }
  }
  if (config.FLEETQ_DRIVER === 'sqs') checks.push(await checkSqs(config, timeoutMs));
  return checks;
}

async function checkSqs(config: FleetqConfig, timeoutMs: number): Promise<Check> {
  const client = new SQSClient({
    region: config.AWS_REGION,
    ...(config.SQS_ENDPOINT !== undefined && { endpoint: config.SQS_ENDPOINT }),
    ...(config.SQS_ENDPOINT !== undefined &&
      !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  const where = config.SQS_ENDPOINT ?? `SQS in ${config.AWS_REGION}`;
  const name = 'SQS work queue';
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const queueUrl =
      config.SQS_WORK_URL ??
      (
        await client.send(new GetQueueUrlCommand({ QueueName: sqsQueueNames(config.FLEETQ_QUEUE).work }), {
          abortSignal: signal,
        })
      ).QueueUrl;
    await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }), {
      abortSignal: signal,
    });
    return { name, status: CheckStatus.ok, message: `${queueUrl} is there (${where})` };
  } catch (err) {
    const code = (err as { name?: string }).name ?? '';
    if (/QueueDoesNotExist|NonExistentQueue/.test(code) && config.SQS_WORK_URL === undefined)
      return {
        name,
        status: CheckStatus.warn,
        message: `${sqsQueueNames(config.FLEETQ_QUEUE).work} does not exist yet at ${where}`,
        fix: 'the sqs driver creates it at start (a Lambda never does: give SQS_WORK_URL, SQS_DELAY_URL, SQS_DEAD_URL)',
      };
    return {
      name,
      status: CheckStatus.fail,
      message: `${config.SQS_WORK_URL ?? sqsQueueNames(config.FLEETQ_QUEUE).work} at ${where} is not reachable: ${causeOf(err)}`,
      fix: 'check SQS_ENDPOINT / AWS_REGION, the queue URLs and the AWS credentials (sqs:GetQueueUrl, sqs:GetQueueAttributes)',
    };
  } finally {
    client.destroy();
  }
}

/**
 * FLEETQ_SIGNING_SECRET is required where others could write to the queue or the cache (docs/security.md "What a
 * handler acts on is authenticated"): in Lambda, and on a redis or sqs queue that is not on this machine. On a
 * local one it is a warning; the memory driver's messages never leave the process.
 */
export function checkSigningSecret(config: FleetqConfig, env: NodeJS.ProcessEnv = process.env): Check {
  const name = 'signing secret';
  const fix = 'set FLEETQ_SIGNING_SECRET (at least 16 characters, the same for every process of the queue)';
  if (config.FLEETQ_SIGNING_SECRET !== undefined)
    return {
      name,
      status: CheckStatus.ok,
      message: `set${config.FLEETQ_SIGNING_SECRET_PREVIOUS === undefined ? '' : ', with a previous one (rotation window)'}`,
    };
  if (config.FLEETQ_DRIVER === 'memory')
    return { name, status: CheckStatus.ok, message: 'not needed: the memory driver keeps messages in this process' };
  const shared = isLambda(env) || !isLocal(config);
  return {
    name,
    status: shared ? CheckStatus.fail : CheckStatus.warn,
    message: shared
      ? 'FLEETQ_SIGNING_SECRET is not set, and the queue and cache are reached over the network: whoever can write to them could make handlers act on any key'
      : 'FLEETQ_SIGNING_SECRET is not set: queue messages and cache entries are not authenticated (fine on a local test bed)',
    fix,
  };
}

/** The queue's stores are on this machine: Redis on loopback, SQS (if used) an emulator on loopback. */
function isLocal(config: FleetqConfig): boolean {
  const loopback = (url: string | undefined): boolean => {
    try {
      const host = new URL(url ?? '').hostname.replace(/^\[|\]$/g, '');
      return host === 'localhost' || host === '::1' || /^127\./.test(host) || host.endsWith('.127.0.0.1');
    } catch {
      return false;
    }
  };
  if (config.FLEETQ_DRIVER === 'sqs' && !loopback(config.SQS_ENDPOINT)) return false;
  return loopback(config.REDIS_URL);
}

/** The error's message, credentials hidden (connectFailFast's names the URL without its password). */
function causeOf(err: unknown): string {
  return redactText(err instanceof Error ? err.message : String(err));
}
