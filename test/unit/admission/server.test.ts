// The admission HTTP listener and the Lambda function-URL handler: routes, methods, content type and the body
// limit (a body over it is cut off with 413, not buffered), and one review answered through each.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MUTATE_JOBSET_PATH, VALIDATE_JOBSET_PATH } from '../../../shared/admission/admission-review.js';
import { admissionListener } from '../../../shared/admission/server.js';
import { handler } from '../../../functions/admission-lambda.js';

const REVIEW = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' },
    operation: 'CREATE',
    object: { metadata: { name: 'js' }, spec: { successPolicy: { operator: 'All' }, replicatedJobs: [] } },
  },
});

function post(port: number, path: string, body: string | Buffer, contentType = 'application/json', method = 'POST') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ port, path, method, headers: { 'content-type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (err) =>
      err.message.includes('EPIPE') || err.message.includes('ECONNRESET') ? undefined : reject(err),
    );
    req.end(body);
  });
}

describe('the admission HTTP listener', () => {
  let server: Server;
  let port: number;
  const logged: Record<string, unknown>[] = [];
  beforeAll(async () => {
    server = createServer(admissionListener({ maxBodyBytes: 64 * 1024, log: (_m, f) => logged.push(f) }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers a review on the validating path and logs it', async () => {
    const res = await post(port, VALIDATE_JOBSET_PATH, REVIEW);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ response: { uid: 'u-1', allowed: true } });
    expect(logged).toContainEqual(expect.objectContaining({ webhook: 'validate', uid: 'u-1', outcome: 'allowed' }));
  });

  it('refuses other paths, methods and content types', async () => {
    expect((await post(port, '/mutate--v1-pod', REVIEW)).status).toBe(404);
    expect((await post(port, MUTATE_JOBSET_PATH, '', 'application/json', 'GET')).status).toBe(405);
    expect((await post(port, MUTATE_JOBSET_PATH, REVIEW, 'text/plain')).status).toBe(400);
  });

  it('cuts off a body over the limit with 413', async () => {
    const res = await post(port, MUTATE_JOBSET_PATH, Buffer.alloc(256 * 1024, 0x20));
    expect(res.status).toBe(413);
  });
});

describe('the Lambda function-URL handler', () => {
  const event = (rawPath: string, body: string, isBase64Encoded = false, method = 'POST') =>
    ({ rawPath, body, isBase64Encoded, requestContext: { http: { method } } }) as unknown as APIGatewayProxyEventV2;

  it('answers a review, base64 body or not', async () => {
    for (const e of [
      event(MUTATE_JOBSET_PATH, REVIEW),
      event(MUTATE_JOBSET_PATH, Buffer.from(REVIEW).toString('base64'), true),
    ]) {
      const res = await handler(e);
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(String(res.body))).toMatchObject({
        response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch' },
      });
    }
  });

  it('refuses other paths and methods', async () => {
    expect((await handler(event('/other', REVIEW))).statusCode).toBe(404);
    // LeaderWorkerSet's paths only with FLEETQ_ADMISSION_LEADERWORKERSET=true (lws-admission-entry.test.ts).
    expect((await handler(event('/mutate--v1-pod', REVIEW))).statusCode).toBe(404);
    expect((await handler(event(VALIDATE_JOBSET_PATH, REVIEW, false, 'GET'))).statusCode).toBe(405);
  });
});
