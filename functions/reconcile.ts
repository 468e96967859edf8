// AWS Lambda handler for the SQS FIFO work queue: each key of a batch through reconcileOne, partial batch
// failures. Fences never shorten a message's visibility below the queue's (SQS_VISIBILITY_MS, which must equal
// the work queue's VisibilityTimeout) or the invocation's remaining time.
// Configuration comes from the environment (README "Configuration"): SQS_WORK_URL, SQS_DELAY_URL and
// SQS_DEAD_URL name the stack's queues; credentials (the cluster registry and its kubeconfigs, REDIS_URL,
// FLEETQ_SIGNING_SECRET) come from the secret FLEETQ_SECRET_ID names, read at cold start and cached with a TTL.
// Dependencies are built once per container and reused while warm (a failed build is not kept). Each
// invocation logs with its request id and cold-start flag, and writes its metrics as CloudWatch EMF lines.
import type { Context, SQSEvent } from 'aws-lambda';
import { isLambda, loadConfig, signingOptions } from '../shared/runtime/config.js';
import { closeDeps, makeDeps, type Deps } from '../shared/runtime/deps.js';
import { EmfExporter } from '../shared/runtime/emf.js';
import { LambdaDeps } from '../shared/runtime/lambda-deps.js';
import { MeteredSqsQueue } from '../shared/runtime/lambda-metrics.js';
import { runtimeMetrics } from '../shared/runtime/metrics.js';
import { processWorkBatch, type SqsBatchResponse } from '../shared/runtime/sqs-batch.js';
import { sqsClientFor, stackQueueUrls } from './lambda-queue.js';

type ReconcileDeps = Deps & { readonly queue: MeteredSqsQueue; readonly emf: EmfExporter };

const lambda = new LambdaDeps<ReconcileDeps>(
  'fleetq-reconcile',
  async (env) => {
    const config = loadConfig(env, { FLEETQ_DRIVER: 'sqs' });
    // The worker's metrics, in one registry: reconcile outcomes and API requests (runtimeMetrics), and the
    // workqueue_* ones from the queue's Lambda path (lambda-metrics.ts); each invocation writes them as EMF.
    const metrics = runtimeMetrics();
    const queue = new MeteredSqsQueue(
      {
        client: sqsClientFor(config),
        ownsClient: true,
        urls: stackQueueUrls(config),
        leaseMs: config.FLEETQ_LEASE_MS,
        ...signingOptions(config),
      },
      metrics.registry,
    );
    const deps = await makeDeps(config, { service: 'fleetq-reconcile', queue, metrics });
    return {
      ...deps,
      queue,
      emf: new EmfExporter(deps.metrics.registry, { namespace: 'fleetq', service: 'reconcile' }),
    };
  },
  (deps) => closeDeps(deps),
);

export type InvocationContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Pick<Context, 'awsRequestId'>>;

export const handler = async (event: SQSEvent, context: InvocationContext): Promise<SqsBatchResponse> => {
  const { deps, coldStart } = await lambda.get();
  const logger = deps.logger.child({ requestId: context.awsRequestId, coldStart });
  const response = await processWorkBatch({ ...deps, logger }, event.Records, {
    visibilityMs: Number(process.env.SQS_VISIBILITY_MS ?? 900_000),
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
  if (isLambda(process.env)) await deps.emf.flush();
  if (process.env.IS_LOCAL === 'true') await lambda.dispose();
  return response;
};

/** Closes what warm invocations kept open (tests; a Lambda container is simply frozen). */
export const closeReconcileDeps = (): Promise<void> => lambda.dispose();
