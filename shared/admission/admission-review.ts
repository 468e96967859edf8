// AdmissionReview v1 in and out, for JobSet's mutating and validating webhooks. The request body is hostile input:
// it is size-limited, parsed once, and anything that is not an AdmissionReview v1 about a jobset.x-k8s.io/v1alpha2
// JobSet gets a clear answer (HTTP 400 when there is no review to answer; a denial when there is), never a throw.
// The answers are upstream's (controller-runtime's webhook over jobset v0.12.0's Default/Validate*): a JSONPatch
// (base64) for defaults, and for an invalid JobSet the Status of apierrors.NewInvalid (code 422, reason Invalid),
// which the API server shows as `admission webhook "<name>" denied the request: <message>`.
import type { JobSet } from '../controllers/jobset/types.js';
import { invalidStatus } from './field-errors.js';
import { defaultJobSet } from './jobset-defaults.js';
import { validateJobSetUpdate } from './jobset-update-validation.js';
import type { JobSetFeatures } from './jobset-validation.js';
import { exclusivePlacementRefusal, validateJobSetCreate } from './jobset-validation.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const MUTATE_JOBSET_PATH = '/mutate-jobset-x-k8s-io-v1alpha2-jobset';
export const VALIDATE_JOBSET_PATH = '/validate-jobset-x-k8s-io-v1alpha2-jobset';
/** The API server sends at most an object and its old version, each at most etcd's 1.5 MiB: 7 MiB is ample. */
export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;

export const WebhookKind = { Mutate: 'mutate', Validate: 'validate' } as const;
export type WebhookKind = (typeof WebhookKind)[keyof typeof WebhookKind];

export function webhookForPath(urlPath: string): WebhookKind | undefined {
  const p = urlPath.split('?')[0];
  if (p === MUTATE_JOBSET_PATH) return WebhookKind.Mutate;
  if (p === VALIDATE_JOBSET_PATH) return WebhookKind.Validate;
  return undefined;
}

type Status = { code: number; message?: string; reason?: string; status?: string; [other: string]: unknown };
export type AdmissionResponse = {
  uid: string;
  allowed: boolean;
  status?: Status;
  patch?: string;
  patchType?: 'JSONPatch';
};
export type AdmissionReviewResponse = { apiVersion: string; kind: 'AdmissionReview'; response: AdmissionResponse };

/** What to send back: an HTTP status and a JSON body (an AdmissionReview, or `{message}` when there is none). */
export type HttpAnswer = { statusCode: number; body: AdmissionReviewResponse | { message: string }; summary: Summary };
export type Summary = { uid?: string; operation?: string; namespace?: string; name?: string; outcome: string };

export type ReviewOptions = { features?: JobSetFeatures; maxBodyBytes?: number };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const badRequest = (message: string, outcome = 'bad-request'): HttpAnswer => ({
  statusCode: 400,
  body: { message },
  summary: { outcome },
});

/** Go's json decoding into the JobSet type would refuse these; the first problem found, or undefined. */
export function jobSetShapeError(obj: unknown): string | undefined {
  if (!isObject(obj)) return 'object: expected a JSON object';
  if (obj.metadata !== undefined && !isObject(obj.metadata)) return 'metadata: expected an object';
  const meta = (obj.metadata ?? {}) as Json;
  if (meta.name !== undefined && typeof meta.name !== 'string') return 'metadata.name: expected a string';
  if (meta.annotations !== undefined && meta.annotations !== null && !isObject(meta.annotations)) {
    return 'metadata.annotations: expected an object';
  }
  if (obj.spec === undefined || obj.spec === null) return undefined;
  if (!isObject(obj.spec)) return 'spec: expected an object';
  const spec = obj.spec;
  for (const key of ['network', 'successPolicy', 'failurePolicy', 'startupPolicy', 'coordinator']) {
    if (spec[key] !== undefined && spec[key] !== null && !isObject(spec[key])) return `spec.${key}: expected an object`;
  }
  if (spec.managedBy !== undefined && spec.managedBy !== null && typeof spec.managedBy !== 'string') {
    return 'spec.managedBy: expected a string';
  }
  for (const key of ['replicatedJobs', 'volumeClaimPolicies']) {
    if (spec[key] !== undefined && spec[key] !== null && !Array.isArray(spec[key]))
      return `spec.${key}: expected a list`;
  }
  const rJobs = (spec.replicatedJobs ?? []) as unknown[];
  for (let i = 0; i < rJobs.length; i++) {
    const r = rJobs[i];
    const at = `spec.replicatedJobs[${i}]`;
    if (!isObject(r)) return `${at}: expected an object`;
    if (r.name !== undefined && typeof r.name !== 'string') return `${at}.name: expected a string`;
    if (r.groupName !== undefined && typeof r.groupName !== 'string') return `${at}.groupName: expected a string`;
    if (r.replicas !== undefined && !Number.isInteger(r.replicas)) return `${at}.replicas: expected an integer`;
    if (r.dependsOn !== undefined && r.dependsOn !== null && !Array.isArray(r.dependsOn)) {
      return `${at}.dependsOn: expected a list`;
    }
    if (r.template !== undefined && !isObject(r.template)) return `${at}.template: expected an object`;
    const tSpec = isObject(r.template) ? r.template.spec : undefined;
    if (tSpec !== undefined && tSpec !== null && !isObject(tSpec)) return `${at}.template.spec: expected an object`;
    if (isObject(tSpec)) {
      for (const key of ['parallelism', 'completions', 'backoffLimit']) {
        if (tSpec[key] !== undefined && tSpec[key] !== null && !Number.isInteger(tSpec[key])) {
          return `${at}.template.spec.${key}: expected an integer`;
        }
      }
      if (tSpec.template !== undefined && tSpec.template !== null && !isObject(tSpec.template)) {
        return `${at}.template.spec.template: expected an object`;
      }
    }
  }
  return undefined;
}

/** An AdmissionReview v1 with a request to answer: the request, its operation, and how to answer it. */
export type OpenedReview = {
  request: Record<string, unknown>;
  operation: string;
  /** The AdmissionReview answer carrying `response` for this request's uid (HTTP 200). */
  answer: (response: Omit<AdmissionResponse, 'uid'>, outcome: string) => HttpAnswer;
  /** Not allowed, with `code` and `message` as the status. */
  errored: (code: number, message: string) => HttpAnswer;
};

/**
 * Reads one HTTP request body as an AdmissionReview v1. When there is no review to answer (too large, not JSON, not
 * an AdmissionReview v1, no request uid) the HTTP answer to send is `rejected`; otherwise the opened review.
 */
export function openAdmissionReview(
  body: Buffer | string,
  options: ReviewOptions = {},
): { rejected: HttpAnswer } | OpenedReview {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size > limit) {
    return {
      rejected: {
        statusCode: 413,
        body: { message: `request body of ${size} bytes exceeds ${limit}` },
        summary: { outcome: 'too-large' },
      },
    };
  }
  let review: unknown;
  try {
    review = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (err) {
    return { rejected: badRequest(`request body is not JSON: ${(err as Error).message}`) };
  }
  if (!isObject(review)) return { rejected: badRequest('request body is not an AdmissionReview object') };
  if (review.kind !== 'AdmissionReview' || review.apiVersion !== ADMISSION_API_VERSION) {
    return {
      rejected: badRequest(
        `expected kind AdmissionReview, apiVersion ${ADMISSION_API_VERSION}; got kind ${JSON.stringify(review.kind)}, apiVersion ${JSON.stringify(review.apiVersion)}`,
      ),
    };
  }
  const request = review.request;
  if (!isObject(request) || typeof request.uid !== 'string' || request.uid === '') {
    return { rejected: badRequest('AdmissionReview has no request with a uid') };
  }
  const uid = request.uid;
  const operation = typeof request.operation === 'string' ? request.operation : '';
  const summary: Summary = {
    uid,
    operation,
    namespace: typeof request.namespace === 'string' ? request.namespace : undefined,
    name: typeof request.name === 'string' ? request.name : undefined,
    outcome: 'allowed',
  };
  const answer = (response: Omit<AdmissionResponse, 'uid'>, outcome: string): HttpAnswer => ({
    statusCode: 200,
    body: { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid, ...response } },
    summary: { ...summary, outcome },
  });
  const errored = (code: number, message: string) => answer({ allowed: false, status: { code, message } }, 'errored');
  return { request, operation, answer, errored };
}

/** Answers one HTTP request body sent to `webhook`. Never throws. */
export function answerAdmissionReview(
  webhook: WebhookKind,
  body: Buffer | string,
  options: ReviewOptions = {},
): HttpAnswer {
  const opened = openAdmissionReview(body, options);
  if ('rejected' in opened) return opened.rejected;
  const { request, operation, answer, errored } = opened;

  const kind = request.kind;
  if (!isObject(kind) || kind.group !== 'jobset.x-k8s.io' || kind.version !== 'v1alpha2' || kind.kind !== 'JobSet') {
    return errored(
      400,
      `this webhook admits jobset.x-k8s.io/v1alpha2 JobSet only, got ${JSON.stringify(kind ?? null)}`,
    );
  }
  if (operation === 'DELETE' || operation === 'CONNECT')
    return answer({ allowed: true, status: { code: 200 } }, 'allowed');
  if (operation !== 'CREATE' && operation !== 'UPDATE')
    return errored(400, `unknown operation ${JSON.stringify(operation)}`);

  const shape = jobSetShapeError(request.object);
  if (shape !== undefined) return errored(400, `cannot decode the JobSet: ${shape}`);
  const jobSet = request.object as JobSet;

  if (webhook === WebhookKind.Mutate) {
    const { patch } = defaultJobSet(jobSet);
    if (patch.length === 0) return answer({ allowed: true, status: { code: 200 } }, 'allowed');
    return answer(
      { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') },
      'patched',
    );
  }

  let errors;
  if (operation === 'CREATE') {
    const refusal = exclusivePlacementRefusal(jobSet);
    if (refusal !== undefined) {
      return answer({ allowed: false, status: { code: 403, reason: 'Forbidden', message: refusal } }, 'denied');
    }
    errors = validateJobSetCreate(jobSet, options.features);
  } else {
    const oldShape = jobSetShapeError(request.oldObject);
    if (oldShape !== undefined) return errored(400, `cannot decode the old JobSet: ${oldShape}`);
    const oldJobSet = request.oldObject as JobSet;
    const refusal = exclusivePlacementRefusal(jobSet);
    if (refusal !== undefined && exclusivePlacementRefusal(oldJobSet) === undefined) {
      return answer({ allowed: false, status: { code: 403, reason: 'Forbidden', message: refusal } }, 'denied');
    }
    errors = validateJobSetUpdate(oldJobSet, jobSet, options.features);
  }
  if (errors.length === 0) return answer({ allowed: true, status: { code: 200 } }, 'allowed');
  const name = typeof jobSet.metadata?.name === 'string' ? jobSet.metadata.name : '';
  return answer({ allowed: false, status: invalidStatus('jobset.x-k8s.io', 'JobSet', name, errors) }, 'denied');
}
