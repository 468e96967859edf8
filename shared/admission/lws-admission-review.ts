// AdmissionReview v1 in and out for LeaderWorkerSet's four webhooks (lws v0.9.0 config/webhook/manifests.yaml),
// answered as controller-runtime answers over upstream's Default/Validate*:
//   mutate-lws    JSONPatch of Default(), with the templates' quantities in Go's form (lws-go-roundtrip.ts)
//                 (allowed, code 200; no patch at all when Default() changes nothing)
//   validate-lws  allowed (code 200), or denied with the field errors' aggregate (code 403, reason Forbidden)
//   mutate-pod    JSONPatch of the pod webhook's Default(), or its error as a denial (code 403, reason Forbidden)
//   validate-pod  always allowed (upstream's validate() admits every pod)
// Where upstream's Go would panic (a field the CRD's schema defaults always set is missing, a division by zero),
// the answer is controller-runtime's for a recovered panic: not allowed, code 500, the panic's text. An object Go
// could not decode is answered with code 400: for a malformed quantity with Go's message, otherwise with fleetq's
// own description (not Go's decoder message).
import type { AdmissionResponse, HttpAnswer, ReviewOptions } from './admission-review.js';
import { openAdmissionReview } from './admission-review.js';
import { aggregateText } from './field-errors.js';
import type { JsonPatchOp } from './jobset-defaults.js';
import type { LeaderWorkerSet } from '../controllers/leaderworkerset/types.js';
import { LWS_GROUP, LWS_KIND } from '../controllers/leaderworkerset/types.js';
import { defaultLeaderWorkerSet } from './lws-defaults.js';
import { goQuantityEncoding, podQuantityError } from './lws-go-roundtrip.js';
import { mutateLwsPod } from './lws-pod-mutation.js';
import type { LwsValidation } from './lws-validation.js';
import { validateLwsCreate, validateLwsUpdate } from './lws-validation.js';

export const MUTATE_LWS_PATH = '/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset';
export const VALIDATE_LWS_PATH = '/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset';
export const MUTATE_POD_PATH = '/mutate--v1-pod';
export const VALIDATE_POD_PATH = '/validate--v1-pod';

export const LwsWebhook = {
  MutateLws: 'mutate-lws',
  ValidateLws: 'validate-lws',
  MutatePod: 'mutate-pod',
  ValidatePod: 'validate-pod',
} as const;
export type LwsWebhook = (typeof LwsWebhook)[keyof typeof LwsWebhook];

const PATHS: Record<string, LwsWebhook> = {
  [MUTATE_LWS_PATH]: LwsWebhook.MutateLws,
  [VALIDATE_LWS_PATH]: LwsWebhook.ValidateLws,
  [MUTATE_POD_PATH]: LwsWebhook.MutatePod,
  [VALIDATE_POD_PATH]: LwsWebhook.ValidatePod,
};

export function lwsWebhookForPath(urlPath: string): LwsWebhook | undefined {
  return PATHS[urlPath.split('?')[0] ?? ''];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSet = (v: unknown) => v !== undefined && v !== null;

// --- what Go's decoding would refuse -------------------------------------------------------------------------------

type Check = (v: unknown, at: string) => string | undefined;
const isInt32 = (v: unknown) => Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 2147483647;
const optional =
  (check: Check): Check =>
  (v, at) =>
    isSet(v) ? check(v, at) : undefined;
const aString: Check = optional((v, at) => (typeof v === 'string' ? undefined : `${at}: expected a string`));
const aBool: Check = optional((v, at) => (typeof v === 'boolean' ? undefined : `${at}: expected a boolean`));
const anInt32: Check = optional((v, at) => (isInt32(v) ? undefined : `${at}: expected a 32-bit integer`));
const intOrString: Check = optional((v, at) =>
  typeof v === 'string' || isInt32(v) ? undefined : `${at}: expected an integer or a string`,
);
const stringMap: Check = optional((v, at) => {
  if (!isObject(v)) return `${at}: expected an object`;
  for (const [k, x] of Object.entries(v))
    if (typeof x !== 'string') return `${at}[${JSON.stringify(k)}]: expected a string`;
  return undefined;
});
const list = (item: Check): Check =>
  optional((v, at) => {
    if (!Array.isArray(v)) return `${at}: expected a list`;
    for (let i = 0; i < v.length; i++) {
      const e = item(v[i], `${at}[${i}]`);
      if (e !== undefined) return e;
    }
    return undefined;
  });
const object = (fields: Record<string, Check> = {}): Check =>
  optional((v, at) => {
    if (!isObject(v)) return `${at}: expected an object`;
    for (const [k, check] of Object.entries(fields)) {
      const e = check(v[k], `${at}.${k}`);
      if (e !== undefined) return e;
    }
    return undefined;
  });

const metadata = object({
  name: aString,
  generateName: aString,
  namespace: aString,
  generation: optional((v, at) => (Number.isInteger(v) ? undefined : `${at}: expected an integer`)),
  labels: stringMap,
  annotations: stringMap,
  finalizers: list(aString),
  ownerReferences: list(
    object({
      apiVersion: aString,
      kind: aString,
      name: aString,
      uid: aString,
      controller: aBool,
      blockOwnerDeletion: aBool,
    }),
  ),
});
const lwsShape = object({
  metadata,
  spec: object({
    replicas: anInt32,
    startupPolicy: aString,
    leaderWorkerTemplate: object({
      leaderTemplate: object(),
      workerTemplate: object(),
      size: anInt32,
      restartPolicy: aString,
      subGroupPolicy: object({ subGroupPolicyType: aString, subGroupSize: anInt32 }),
    }),
    rolloutStrategy: object({
      type: aString,
      rollingUpdateConfiguration: object({ partition: anInt32, maxUnavailable: intOrString, maxSurge: intOrString }),
    }),
    networkConfig: object({ subdomainPolicy: aString }),
  }),
});
const container = object({
  name: aString,
  env: list(object({ name: aString, value: aString })),
  resources: object({ limits: object({}), requests: object({}) }),
});
const affinityTerms = object({
  requiredDuringSchedulingIgnoredDuringExecution: list(object({ topologyKey: aString })),
});
const podShape = object({
  metadata,
  spec: object({
    subdomain: aString,
    containers: list(container),
    initContainers: list(container),
    affinity: object({ podAffinity: affinityTerms, podAntiAffinity: affinityTerms }),
  }),
});
/** Go's decoding of a LeaderWorkerSet would refuse these; the first problem found, or undefined. */
export function lwsShapeError(obj: unknown): string | undefined {
  if (!isObject(obj)) return 'object: expected a JSON object';
  return lwsShape(obj, 'object');
}
/** Go's decoding of a Pod would refuse these (in the fields the webhook reads); the first found, or undefined. */
export function podShapeError(obj: unknown): string | undefined {
  if (!isObject(obj)) return 'object: expected a JSON object';
  return podShape(obj, 'object');
}

// --- the review --------------------------------------------------------------------------------------------------

function kindOk(webhook: LwsWebhook, kind: unknown): boolean {
  if (!isObject(kind)) return false;
  if (webhook === LwsWebhook.MutatePod || webhook === LwsWebhook.ValidatePod) {
    return (kind.group ?? '') === '' && kind.version === 'v1' && kind.kind === 'Pod';
  }
  return kind.group === LWS_GROUP && kind.version === 'v1' && kind.kind === LWS_KIND;
}

const patchAnswer = (patch: JsonPatchOp[]): Omit<AdmissionResponse, 'uid'> =>
  patch.length === 0
    ? { allowed: true, status: { code: 200 } }
    : {
        allowed: true,
        status: { code: 200 },
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
      };

/** Answers one HTTP request body sent to an LWS `webhook`. Never throws. */
export function answerLwsAdmissionReview(
  webhook: LwsWebhook,
  body: Buffer | string,
  options: ReviewOptions = {},
): HttpAnswer {
  const opened = openAdmissionReview(body, options);
  if ('rejected' in opened) return opened.rejected;
  const { request, operation, answer, errored } = opened;
  const denied = (message: string) =>
    answer({ allowed: false, status: { code: 403, reason: 'Forbidden', message } }, 'denied');
  const allowed = () => answer({ allowed: true, status: { code: 200 } }, 'allowed');

  if (!kindOk(webhook, request.kind)) {
    const wanted =
      webhook === LwsWebhook.MutatePod || webhook === LwsWebhook.ValidatePod ? 'v1 Pod' : `${LWS_GROUP}/v1 ${LWS_KIND}`;
    return errored(400, `this webhook admits ${wanted} only, got ${JSON.stringify(request.kind ?? null)}`);
  }
  if (operation === 'DELETE' || operation === 'CONNECT') return allowed();
  if (operation !== 'CREATE' && operation !== 'UPDATE') {
    return errored(400, `unknown operation ${JSON.stringify(operation)}`);
  }

  if (webhook === LwsWebhook.ValidatePod) {
    const shape = podShapeError(request.object);
    if (shape !== undefined) return errored(400, `cannot decode the Pod: ${shape}`);
    const quantity = podQuantityError(request.object);
    return quantity === undefined ? allowed() : errored(400, quantity);
  }
  if (webhook === LwsWebhook.MutatePod) {
    const shape = podShapeError(request.object);
    if (shape !== undefined) return errored(400, `cannot decode the Pod: ${shape}`);
    const quantity = podQuantityError(request.object);
    if (quantity !== undefined) return errored(400, quantity);
    const mutation = mutateLwsPod(request.object);
    if ('refusal' in mutation) return denied(mutation.refusal);
    if ('panic' in mutation) return errored(500, mutation.panic);
    return answer(patchAnswer(mutation.patch), mutation.patch.length === 0 ? 'allowed' : 'patched');
  }

  const shape = lwsShapeError(request.object);
  if (shape !== undefined) return errored(400, `cannot decode the LeaderWorkerSet: ${shape}`);
  const quantities = goQuantityEncoding(request.object);
  if (quantities.errors.length > 0) return errored(400, quantities.errors[0]!);
  if (webhook === LwsWebhook.MutateLws) {
    // When Default() changed something, upstream's patch is to Go's encoding of the whole defaulted object: the
    // defaults, and the quantities in Go's form. When it changed nothing, there is no patch at all.
    const defaults = defaultLeaderWorkerSet(request.object as LeaderWorkerSet).patch;
    const patch = defaults.length === 0 ? [] : [...defaults, ...quantities.patch];
    return answer(patchAnswer(patch), patch.length === 0 ? 'allowed' : 'patched');
  }
  let result: LwsValidation;
  if (operation === 'CREATE') {
    result = validateLwsCreate(request.object);
  } else {
    const oldShape = lwsShapeError(request.oldObject);
    if (oldShape !== undefined) return errored(400, `cannot decode the old LeaderWorkerSet: ${oldShape}`);
    const oldQuantity = goQuantityEncoding(request.oldObject).errors[0];
    if (oldQuantity !== undefined) return errored(400, oldQuantity);
    result = validateLwsUpdate(request.oldObject, request.object);
  }
  if ('panic' in result) return errored(500, result.panic);
  return result.errors.length === 0 ? allowed() : denied(aggregateText(result.errors));
}
