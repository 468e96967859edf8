// The stack's SQS queues as the Lambda handlers use them: by the URLs serverless.yml gives, never created.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SqsQueueUrls } from '../shared/queue/sqs/sqs-setup.js';
import { ConfigError, type FleetqConfig } from '../shared/runtime/config.js';

export function stackQueueUrls(config: FleetqConfig): SqsQueueUrls {
  const { SQS_WORK_URL: work, SQS_DELAY_URL: delay, SQS_DEAD_URL: dead } = config;
  if (work === undefined || delay === undefined || dead === undefined) {
    throw new ConfigError("SQS_WORK_URL, SQS_DELAY_URL and SQS_DEAD_URL must name the stack's queues");
  }
  return { work, delay, dead };
}

export function sqsClientFor(config: FleetqConfig): SQSClient {
  return new SQSClient({
    region: config.AWS_REGION,
    ...(config.SQS_ENDPOINT !== undefined && { endpoint: config.SQS_ENDPOINT }),
  });
}
