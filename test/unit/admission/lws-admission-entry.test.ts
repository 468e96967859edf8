// LeaderWorkerSet's webhooks at the admission function's entries: the switch read from the environment
// (FLEETQ_ADMISSION_LEADERWORKERSET), and the Lambda handler answering lws's paths when it is on, JobSet's always.
import { describe, expect, it } from '@jest/globals';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MUTATE_JOBSET_PATH } from '../../../shared/admission/admission-review.js';
import { MUTATE_POD_PATH, VALIDATE_LWS_PATH } from '../../../shared/admission/lws-admission-review.js';
import {
  parseServeLeaderWorkerSet,
  resolveServeLeaderWorkerSet,
} from '../../../shared/admission/serve-leaderworkerset.js';
import { POD_CASES, CREATE_CASES } from './lws-cases.js';

const review = (kind: Record<string, string>, object: unknown) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', kind, operation: 'CREATE', object },
  });
const POD = { group: '', version: 'v1', kind: 'Pod' };
const LWS = { group: 'leaderworkerset.x-k8s.io', version: 'v1', kind: 'LeaderWorkerSet' };
const leaderPod = POD_CASES.find((c) => c.name === 'leader pod')!.object;
const invalidLws = CREATE_CASES.find((c) => c.name === 'size < 1')!.object;
const event = (rawPath: string, body: string) =>
  ({
    rawPath,
    body,
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST' } },
  }) as unknown as APIGatewayProxyEventV2;

/** The Lambda handler loaded with FLEETQ_ADMISSION_LEADERWORKERSET=true (read once, at module load). */
async function lambdaServingLws() {
  const before = process.env.FLEETQ_ADMISSION_LEADERWORKERSET;
  process.env.FLEETQ_ADMISSION_LEADERWORKERSET = 'true';
  try {
    return (await import('../../../functions/admission-lambda.js')).handler;
  } finally {
    if (before === undefined) delete process.env.FLEETQ_ADMISSION_LEADERWORKERSET;
    else process.env.FLEETQ_ADMISSION_LEADERWORKERSET = before;
  }
}

describe('parseServeLeaderWorkerSet', () => {
  it.each([
    { value: undefined, want: false },
    { value: '', want: false },
    { value: 'false', want: false },
    { value: 'true', want: true },
    { value: ' true ', want: true },
  ])('$value → $want', ({ value, want }) => expect(parseServeLeaderWorkerSet(value)).toBe(want));

  it('refuses anything else, naming the variable', () =>
    expect(() => parseServeLeaderWorkerSet('yes')).toThrow(
      'FLEETQ_ADMISSION_LEADERWORKERSET must be "true" or "false", got "yes"',
    ));
});

describe('resolveServeLeaderWorkerSet (the long-running function: --leader-worker-set and the variable)', () => {
  it.each([
    { flag: undefined, value: undefined, want: false },
    { flag: undefined, value: 'true', want: true },
    { flag: true, value: undefined, want: true },
    { flag: true, value: 'false', want: true },
    { flag: false, value: 'true', want: true },
  ])('flag $flag, variable $value → $want', ({ flag, value, want }) =>
    expect(resolveServeLeaderWorkerSet(flag, value)).toBe(want),
  );

  it('refuses a bad variable even when the flag is given', () => {
    expect(() => resolveServeLeaderWorkerSet(true, 'yes')).toThrow(
      'FLEETQ_ADMISSION_LEADERWORKERSET must be "true" or "false", got "yes"',
    );
    expect(() => resolveServeLeaderWorkerSet(undefined, 'on')).toThrow(/got "on"/);
  });
});

describe('functions/admission.ts with --leader-worker-set and a bad FLEETQ_ADMISSION_LEADERWORKERSET', () => {
  it('does not start: exit 2, naming the variable', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    // Never reaches the certificate files: the switch is checked first.
    const run = spawnSync(
      'node_modules/.bin/tsx',
      ['functions/admission.ts', '--leader-worker-set', '--port', '0', '--cert', 'none.crt', '--key', 'none.key'],
      {
        cwd: root,
        env: { ...process.env, FLEETQ_ADMISSION_LEADERWORKERSET: 'yes', NODE_OPTIONS: '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(2);
    expect(`${run.stdout}${run.stderr}`).toMatch(
      /Admission function not started[\s\S]*FLEETQ_ADMISSION_LEADERWORKERSET must be \\"true\\" or \\"false\\", got \\"yes\\"/,
    );
  }, 90_000);
});

describe('the admission Lambda with FLEETQ_ADMISSION_LEADERWORKERSET=true', () => {
  it("answers lws's pod and LeaderWorkerSet paths, and JobSet's", async () => {
    const handler = await lambdaServingLws();
    const pod = await handler(event(MUTATE_POD_PATH, review(POD, leaderPod)));
    expect(pod.statusCode).toBe(200);
    expect(JSON.parse(String(pod.body))).toMatchObject({
      response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch' },
    });
    const refused = await handler(event(VALIDATE_LWS_PATH, review(LWS, invalidLws)));
    expect(JSON.parse(String(refused.body))).toMatchObject({ response: { uid: 'u-1', allowed: false } });
    const jobSet = { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' };
    expect((await handler(event(MUTATE_JOBSET_PATH, review(jobSet, { metadata: { name: 'x' } })))).statusCode).toBe(
      200,
    );
  });
});
