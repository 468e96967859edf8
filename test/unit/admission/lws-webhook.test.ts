// fleetq's LeaderWorkerSet admission against upstream's: every case of lws-cases.ts sent to fleetq's admission
// function as an AdmissionReview, and its answer (allowed, code, reason, message, and the object its JSONPatch
// makes) checked against what lws v0.9.0's own webhooks, served by controller-runtime, answered
// (lws-golden.json; upstream-golden/README.md says how it is produced).
import { describe, expect, it } from '@jest/globals';
import type { AdmissionReviewResponse } from '../../../shared/admission/admission-review.js';
import type { LwsWebhook } from '../../../shared/admission/lws-admission-review.js';
import {
  answerLwsAdmissionReview,
  lwsWebhookForPath,
  MUTATE_LWS_PATH,
  MUTATE_POD_PATH,
  VALIDATE_LWS_PATH,
  VALIDATE_POD_PATH,
} from '../../../shared/admission/lws-admission-review.js';
import { defaultLeaderWorkerSet } from '../../../shared/admission/lws-defaults.js';
import { mutateLwsPod } from '../../../shared/admission/lws-pod-mutation.js';
import type { LeaderWorkerSet } from '../../../shared/controllers/leaderworkerset/types.js';
import { ALL_CASES, CREATE_CASES, DEFAULT_CASES, POD_CASES, UPDATE_CASES, type LwsGoldenCase } from './lws-cases.js';
import { upstreamAnswers, withoutEmpty } from './golden-answers.js';

type Golden = { name: string; allowed: boolean; code: number; reason?: string; message?: string; patched?: unknown };
const { golden, upstream } = upstreamAnswers<Golden>(new URL('./lws-golden.json', import.meta.url));

type Op = { op: string; path: string; value?: unknown };
/** RFC 6902 add/replace/remove, enough to apply an admission patch. */
function applyPatch(doc: unknown, ops: Op[]): unknown {
  const root = { doc: structuredClone(doc) } as Record<string, unknown>;
  for (const { op, path, value } of ops) {
    const segments = [
      'doc',
      ...path
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')),
    ];
    let node = root as Record<string, unknown> | unknown[];
    for (const s of segments.slice(0, -1)) node = (node as Record<string, unknown>)[s] as Record<string, unknown>;
    const last = segments[segments.length - 1]!;
    if (Array.isArray(node)) {
      const i = last === '-' ? node.length : Number(last);
      if (op === 'add') node.splice(i, 0, structuredClone(value));
      else if (op === 'replace') node[i] = structuredClone(value);
      else node.splice(i, 1);
    } else if (op === 'remove') {
      delete node[last];
    } else {
      if (op === 'replace' && !(last in node)) throw new Error(`replace of a missing ${path}`);
      node[last] = structuredClone(value);
    }
  }
  return root.doc;
}

function ask(c: LwsGoldenCase) {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'golden',
      kind: c.webhook.endsWith('-pod')
        ? { group: '', version: 'v1', kind: 'Pod' }
        : { group: 'leaderworkerset.x-k8s.io', version: 'v1', kind: 'LeaderWorkerSet' },
      operation: c.operation,
      object: c.object,
      ...(c.oldObject ? { oldObject: c.oldObject } : {}),
    },
  };
  const answer = answerLwsAdmissionReview(c.webhook as LwsWebhook, JSON.stringify(review));
  expect(answer.statusCode).toBe(200);
  const { response } = answer.body as AdmissionReviewResponse;
  const patch: Op[] | undefined =
    response.patch === undefined ? undefined : JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
  return { response, patch };
}

function checkAgainstUpstream(c: LwsGoldenCase) {
  const want = upstream(c.name);
  const { response, patch } = ask(c);
  expect({
    allowed: response.allowed,
    code: response.status?.code,
    reason: response.status?.reason,
    message: response.status?.message,
  }).toEqual({ allowed: want.allowed, code: want.code, reason: want.reason, message: want.message });
  // A patch exactly when upstream sent one, and the object it makes equal to upstream's but for Go's empty fields.
  expect(patch !== undefined).toBe(want.patched !== undefined);
  if (patch !== undefined) {
    expect(response.patchType).toBe('JSONPatch');
    expect(withoutEmpty(applyPatch(c.object, patch))).toEqual(withoutEmpty(want.patched));
  }
}

describe('LeaderWorkerSet defaulting, as upstream Default()', () => {
  it.each(DEFAULT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => checkAgainstUpstream(c));
});

describe('LeaderWorkerSet create validation, as upstream ValidateCreate', () => {
  it.each(CREATE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => checkAgainstUpstream(c));
});

describe('LeaderWorkerSet update validation, as upstream ValidateUpdate', () => {
  it.each(UPDATE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => checkAgainstUpstream(c));
});

describe('LeaderWorkerSet pods, as upstream pod webhook Default()', () => {
  it.each(POD_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => checkAgainstUpstream(c));
});

describe('the cases and the functions behind the review', () => {
  it('names every case once, and upstream answered each', () => {
    expect(new Set(ALL_CASES.map((c) => c.name)).size).toBe(ALL_CASES.length);
    expect(golden.map((g) => g.name)).toEqual(ALL_CASES.map((c) => c.name));
  });

  it('routes upstream webhook paths (config/webhook/manifests.yaml)', () => {
    expect(lwsWebhookForPath(MUTATE_LWS_PATH)).toBe('mutate-lws');
    expect(lwsWebhookForPath(`${VALIDATE_LWS_PATH}?timeout=10s`)).toBe('validate-lws');
    expect(lwsWebhookForPath(MUTATE_POD_PATH)).toBe('mutate-pod');
    expect(lwsWebhookForPath(VALIDATE_POD_PATH)).toBe('validate-pod');
    expect(lwsWebhookForPath('/mutate-jobset-x-k8s-io-v1alpha2-jobset')).toBeUndefined();
  });

  it('defaults a copy: the input is not changed', () => {
    const c = DEFAULT_CASES[0]!;
    const before = structuredClone(c.object);
    const { lws, patch } = defaultLeaderWorkerSet(c.object as unknown as LeaderWorkerSet);
    expect(c.object).toEqual(before);
    expect(applyPatch(c.object, patch)).toEqual(lws);
  });

  it('mutates a copy of the pod, and the patch makes that copy', () => {
    const c = POD_CASES.find((x) => x.name === 'leader pod, subgroups with both exclusive topologies')!;
    const before = structuredClone(c.object);
    const result = mutateLwsPod(c.object);
    expect(c.object).toEqual(before);
    if (!('pod' in result)) throw new Error('expected a mutation');
    expect(applyPatch(c.object, result.patch)).toEqual(result.pod);
  });

  it('refuses a review about another kind, and an object Go could not decode', () => {
    const wrongKind = answerLwsAdmissionReview(
      'mutate-pod',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'u',
          kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          operation: 'CREATE',
          object: {},
        },
      }),
    );
    expect((wrongKind.body as AdmissionReviewResponse).response).toMatchObject({
      allowed: false,
      status: { code: 400 },
    });
    const badSize = answerLwsAdmissionReview(
      'validate-lws',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'u',
          kind: { group: 'leaderworkerset.x-k8s.io', version: 'v1', kind: 'LeaderWorkerSet' },
          operation: 'CREATE',
          object: { metadata: { name: 'lws' }, spec: { leaderWorkerTemplate: { size: '2' } } },
        },
      }),
    );
    expect((badSize.body as AdmissionReviewResponse).response).toMatchObject({
      allowed: false,
      status: {
        code: 400,
        message: 'cannot decode the LeaderWorkerSet: object.spec.leaderWorkerTemplate.size: expected a 32-bit integer',
      },
    });
  });
});
