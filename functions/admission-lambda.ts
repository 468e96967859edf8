// AWS Lambda handler for the JobSet admission function behind a Lambda function URL (payload format 2.0): the API
// server posts AdmissionReviews to <url>/mutate-jobset-x-k8s-io-v1alpha2-jobset and .../validate-...; the URL's
// public certificate needs no caBundle. It reads no cluster and holds no secret. With
// FLEETQ_ADMISSION_LEADERWORKERSET=true it answers LeaderWorkerSet's four webhooks too, on lws's paths
// (/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset, /validate-…, /mutate--v1-pod, /validate--v1-pod).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answerAdmissionReview, webhookForPath } from '../shared/admission/admission-review.js';
import { parseFeatureGates } from '../shared/admission/feature-gates.js';
import { answerLwsAdmissionReview, lwsWebhookForPath } from '../shared/admission/lws-admission-review.js';
import { parseServeLeaderWorkerSet } from '../shared/admission/serve-leaderworkerset.js';
import { Logger } from '../shared/runtime/logger.js';

const logger = new Logger('fleetq-admission');
const features = parseFeatureGates(process.env.FLEETQ_JOBSET_FEATURE_GATES);
const serveLeaderWorkerSet = parseServeLeaderWorkerSet(process.env.FLEETQ_ADMISSION_LEADERWORKERSET);

const json = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const jobSetWebhook = webhookForPath(event.rawPath ?? '');
  const lwsWebhook = serveLeaderWorkerSet ? lwsWebhookForPath(event.rawPath ?? '') : undefined;
  const webhook = jobSetWebhook ?? lwsWebhook;
  if (webhook === undefined) return json(404, { message: `no webhook at ${event.rawPath}` });
  if (event.requestContext?.http?.method !== 'POST') return json(405, { message: 'use POST' });
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const answer =
    jobSetWebhook !== undefined
      ? answerAdmissionReview(jobSetWebhook, body, { features })
      : answerLwsAdmissionReview(lwsWebhook!, body, { features });
  logger.info('Admission request answered', { webhook, ...answer.summary, status: answer.statusCode });
  return json(answer.statusCode, answer.body);
};
