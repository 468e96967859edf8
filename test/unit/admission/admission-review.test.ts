// AdmissionReview v1 handling: the answer to each webhook, and hostile bodies answered (400/413 or a denial),
// never thrown.
import { describe, expect, it } from '@jest/globals';
import { answerAdmissionReview, WebhookKind } from '../../../shared/admission/admission-review.js';

const KIND = { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' };
const jobSet = (extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'js', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  spec: {
    replicatedJobs: [
      { name: 'rj', groupName: 'default', replicas: 1, template: { spec: { template: { spec: { containers: [] } } } } },
    ],
    ...extra,
  },
});
const review = (request: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', kind: KIND, operation: 'CREATE', ...request },
  });

describe('the mutating webhook', () => {
  it('answers with a base64 JSONPatch that adds the defaults', () => {
    const answer = answerAdmissionReview(WebhookKind.Mutate, review({ object: jobSet() }));
    expect(answer.statusCode).toBe(200);
    const response = (answer.body as { response: { uid: string; allowed: boolean; patchType: string; patch: string } })
      .response;
    expect(response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    expect(patch).toEqual([
      { op: 'add', path: '/spec/successPolicy', value: { operator: 'All' } },
      { op: 'add', path: '/spec/startupPolicy', value: { startupPolicyOrder: 'AnyOrder' } },
      { op: 'add', path: '/spec/replicatedJobs/0/template/spec/completionMode', value: 'Indexed' },
      { op: 'add', path: '/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy', value: 'OnFailure' },
      { op: 'add', path: '/spec/network', value: { enableDNSHostnames: true } },
      { op: 'add', path: '/spec/network/publishNotReadyAddresses', value: true },
    ]);
  });
});

describe('the validating webhook', () => {
  it('allows a valid JobSet', () => {
    const answer = answerAdmissionReview(
      WebhookKind.Validate,
      review({ object: jobSet({ successPolicy: { operator: 'All' } }) }),
    );
    expect(answer.body).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true, status: { code: 200 } },
    });
  });

  it("denies an invalid one with upstream's Invalid status", () => {
    const answer = answerAdmissionReview(
      WebhookKind.Validate,
      review({ object: jobSet({ successPolicy: { operator: 'All', targetReplicatedJobs: ['x'] } }) }),
    );
    expect((answer.body as { response: unknown }).response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message:
          'JobSet.jobset.x-k8s.io "js" is invalid: <nil>: Internal error: invalid replicatedJob name \'x\' does not appear in .spec.ReplicatedJobs',
        details: {
          name: 'js',
          group: 'jobset.x-k8s.io',
          kind: 'JobSet',
          causes: [
            {
              reason: 'InternalError',
              field: '<nil>',
              message: "Internal error: invalid replicatedJob name 'x' does not appear in .spec.ReplicatedJobs",
            },
          ],
        },
      },
    });
  });

  it('refuses exclusive placement, on the JobSet or on a Job template, saying the upstream controller supports it', () => {
    const onJobSet = answerAdmissionReview(
      WebhookKind.Validate,
      review({ object: jobSet({}, { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'zone' }) }),
    );
    const status = (onJobSet.body as { response: { allowed: boolean; status: { code: number; message: string } } })
      .response;
    expect(status.allowed).toBe(false);
    expect(status.status.code).toBe(403);
    expect(status.status.message).toMatch(
      /exclusive placement .* is not supported .* upstream JobSet controller, which supports it/,
    );
    const onTemplate = jobSet();
    (onTemplate.spec.replicatedJobs[0]!.template as Record<string, unknown>).metadata = {
      annotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'rack' },
    };
    const answer = answerAdmissionReview(WebhookKind.Validate, review({ object: onTemplate }));
    expect(JSON.stringify(answer.body)).toContain('spec.replicatedJobs[0].template.metadata.annotations');
  });

  it('allows DELETE and an update that keeps the immutable fields', () => {
    expect(
      answerAdmissionReview(WebhookKind.Validate, review({ operation: 'DELETE', oldObject: jobSet() })).body,
    ).toMatchObject({
      response: { allowed: true },
    });
    const answer = answerAdmissionReview(
      WebhookKind.Validate,
      review({ operation: 'UPDATE', object: jobSet({ suspend: true }), oldObject: jobSet() }),
    );
    expect(answer.body).toMatchObject({ response: { allowed: true } });
  });
});

describe('hostile input', () => {
  it.each([
    ['not JSON', '{'],
    ['not an object', '[1]'],
    ['another kind', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' })],
    [
      'v1beta1',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'u' } }),
    ],
    ['no request', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })],
    ['no uid', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} })],
  ])('%s: HTTP 400 with a message', (_name, body) => {
    const answer = answerAdmissionReview(WebhookKind.Validate, body);
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toHaveProperty('message');
  });

  it('a body over the limit: HTTP 413, not parsed', () => {
    const answer = answerAdmissionReview(WebhookKind.Mutate, 'x'.repeat(101), { maxBodyBytes: 100 });
    expect(answer.statusCode).toBe(413);
  });

  it.each([
    ['a Pod review', review({ kind: { group: '', version: 'v1', kind: 'Pod' }, object: {} })],
    ['an unknown operation', review({ operation: 'PATCH', object: jobSet() })],
    ['spec is a string', review({ object: { metadata: { name: 'js' }, spec: 'x' } })],
    ['replicas is a string', review({ object: jobSet({ replicatedJobs: [{ name: 'rj', replicas: '3' }] }) })],
    ['a replicated job is null', review({ object: jobSet({ replicatedJobs: [null] }) })],
    [
      'parallelism is fractional',
      review({ object: jobSet({ replicatedJobs: [{ name: 'rj', template: { spec: { parallelism: 1.5 } } }] }) }),
    ],
    ['an update without oldObject', review({ operation: 'UPDATE', object: jobSet() })],
  ])('%s: denied with code 400, uid kept', (_name, body) => {
    for (const webhook of [WebhookKind.Mutate, WebhookKind.Validate]) {
      const answer = answerAdmissionReview(webhook, body);
      if (webhook === WebhookKind.Mutate && body.includes('"UPDATE"')) continue; // defaulting reads no oldObject
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toMatchObject({ response: { uid: 'u-1', allowed: false, status: { code: 400 } } });
    }
  });
});
