// LeaderWorkerSet's webhooks through the admission HTTP listener: served on lws's paths when asked for, next to
// JobSet's, and not served (404) otherwise.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdmissionReviewResponse } from '../../../shared/admission/admission-review.js';
import { MUTATE_JOBSET_PATH } from '../../../shared/admission/admission-review.js';
import {
  MUTATE_LWS_PATH,
  MUTATE_POD_PATH,
  VALIDATE_LWS_PATH,
  VALIDATE_POD_PATH,
} from '../../../shared/admission/lws-admission-review.js';
import { admissionListener, type ListenerOptions } from '../../../shared/admission/server.js';
import { POD_CASES, CREATE_CASES } from './lws-cases.js';

const review = (kind: Record<string, string>, object: unknown) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', kind, operation: 'CREATE', object },
  });
const POD = { group: '', version: 'v1', kind: 'Pod' };
const LWS = { group: 'leaderworkerset.x-k8s.io', version: 'v1', kind: 'LeaderWorkerSet' };
const JOBSET = { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' };
const leaderPod = POD_CASES.find((c) => c.name === 'leader pod')!.object;
const validLws = CREATE_CASES.find((c) => c.name === 'a valid LeaderWorkerSet')!.object;
const invalidLws = CREATE_CASES.find((c) => c.name === 'size < 1')!.object;

function post(port: number, path: string, body: string) {
  return new Promise<{ status: number; body: AdmissionReviewResponse }>((resolve, reject) => {
    const req = request({ port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function listen(options: ListenerOptions): Promise<{ server: Server; port: number }> {
  const server = createServer(admissionListener(options));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the admission listener serving LeaderWorkerSet', () => {
  let server: Server;
  let port: number;
  const logged: Record<string, unknown>[] = [];
  beforeAll(async () => {
    ({ server, port } = await listen({ serveLeaderWorkerSet: true, log: (_m, f) => logged.push(f) }));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('patches a leader pod on the pod mutating path', async () => {
    const res = await post(port, MUTATE_POD_PATH, review(POD, leaderPod));
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(String(res.body.response.patch), 'base64').toString());
    expect(patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels/leaderworkerset.sigs.k8s.io~1group-index',
      value: '0',
    });
    expect(logged).toContainEqual(expect.objectContaining({ webhook: 'mutate-pod', uid: 'u-1', outcome: 'patched' }));
  });

  it('admits a pod on the pod validating path', async () => {
    const res = await post(port, VALIDATE_POD_PATH, review(POD, leaderPod));
    expect(res.body.response).toEqual({ uid: 'u-1', allowed: true, status: { code: 200 } });
  });

  it('defaults and validates LeaderWorkerSets on their paths', async () => {
    const defaulted = await post(port, MUTATE_LWS_PATH, review(LWS, validLws));
    expect(defaulted.body.response).toEqual({ uid: 'u-1', allowed: true, status: { code: 200 } });
    const refused = await post(port, VALIDATE_LWS_PATH, review(LWS, invalidLws));
    expect(refused.body.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 403,
        reason: 'Forbidden',
        message: 'spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1',
      },
    });
  });

  it("still answers JobSet's paths", async () => {
    const res = await post(port, MUTATE_JOBSET_PATH, review(JOBSET, { metadata: { name: 'js' }, spec: {} }));
    expect(res.body.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
  });
});

describe('the admission listener without LeaderWorkerSet', () => {
  it("answers 404 on LeaderWorkerSet's paths", async () => {
    const { server, port } = await listen({});
    try {
      for (const path of [MUTATE_LWS_PATH, VALIDATE_LWS_PATH, MUTATE_POD_PATH, VALIDATE_POD_PATH]) {
        expect((await post(port, path, review(POD, leaderPod))).status).toBe(404);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
