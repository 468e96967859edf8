// infra/lambda/stack-params.cjs, as serverless.yml's file variable calls it: a deploy stage's parameters are
// required and validated; the local stage replaces the !Refs with the emulator's URLs.
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { parseFeatureGates } from '../../../shared/admission/feature-gates.js';
import { parseServeLeaderWorkerSet } from '../../../shared/admission/serve-leaderworkerset.js';

type Resolver = (a: {
  options: { stage?: string; param?: string[] };
  resolveConfigurationProperty: (path: string[]) => Promise<unknown>;
}) => Promise<Record<string, unknown>>;
const resolve = createRequire(import.meta.url)('../../../infra/lambda/stack-params.cjs') as Resolver;
const config =
  (params: Record<string, unknown> = {}) =>
  async (path: string[]) =>
    path[0] === 'service' ? 'fleetq' : path[0] === 'params' ? (params[path[2] ?? ''] as unknown) : undefined;

describe('stack parameters', () => {
  it('requires and validates a deploy stage’s parameters, naming each', async () => {
    await expect(resolve({ options: { stage: 'prod' }, resolveConfigurationProperty: config() })).rejects.toThrow(
      /handlerSecretArn is required[\s\S]*forwarderSecretArn is required[\s\S]*subnetIds is required[\s\S]*securityGroupIds is required/,
    );
    const param = [
      'handlerSecretArn=redis://secret',
      'forwarderSecretArn=arn:aws:secretsmanager:eu-west-1:123456789012:secret:f-AbC',
      'subnetIds=subnet-0123456789abcdef0,vpc-1',
      'securityGroupIds=sg-0123456789abcdef0',
      'logRetentionDays=8',
      'secretsKmsKeyArn=alias/fleetq',
      'alarmTopicArn=arn:aws:sqs:eu-west-1:123456789012:q',
    ];
    await expect(
      resolve({ options: { stage: 'prod', param }, resolveConfigurationProperty: config() }),
    ).rejects.toThrow(
      /handlerSecretArn: "redis:\/\/secret" is not[\s\S]*subnetIds: "vpc-1" is not[\s\S]*secretsKmsKeyArn: "alias\/fleetq" is not[\s\S]*alarmTopicArn: "arn:aws:sqs[^"]*" is not[\s\S]*logRetentionDays: 8/,
    );
  });

  it('gives a deploy stage the stack’s queues by !Ref and each function its secret’s ARN only', async () => {
    const arn = (n: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${n}-AbC`;
    const out = await resolve({
      options: {
        stage: 'prod',
        param: [
          `handlerSecretArn=${arn('h')}`,
          `forwarderSecretArn=${arn('f')}`,
          'subnetIds=subnet-0123456789abcdef0',
          'securityGroupIds=sg-0123456789abcdef0',
        ],
      },
      resolveConfigurationProperty: config(),
    });
    expect(out).toMatchObject({
      queues: {
        SQS_WORK_URL: { Ref: 'WorkQueue' },
        SQS_DELAY_URL: { Ref: 'DelayQueue' },
        SQS_DEAD_URL: { Ref: 'DeadLetterQueue' },
      },
      secretEnv: {
        handler: { FLEETQ_SECRET_ID: arn('h') },
        forwarder: { FLEETQ_SECRET_ID: arn('f') },
        // The delay function gets no secret unless it is given its own (delaySecretArn): never the handlers'.
        delay: {},
      },
      secrets: { handler: arn('h'), forwarder: arn('f'), delay: '' },
      local: {},
      vpc: { subnetIds: ['subnet-0123456789abcdef0'], securityGroupIds: ['sg-0123456789abcdef0'] },
      logRetentionDays: 30,
      // Optional ones not given: no KMS grant (the policy's condition is false), alarms without actions.
      secretsKmsKeyArn: '',
      alarmActions: [],
    });
  });

  it('gives the delay function its own secret only: never one holding cluster credentials', async () => {
    const arn = (n: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${n}-AbC`;
    const stack = (delay: string) =>
      resolve({
        options: {
          stage: 'prod',
          param: [
            `handlerSecretArn=${arn('h')}`,
            `forwarderSecretArn=${arn('f')}`,
            'subnetIds=subnet-0123456789abcdef0',
            'securityGroupIds=sg-0123456789abcdef0',
            `delaySecretArn=${delay}`,
          ],
        },
        resolveConfigurationProperty: config(),
      });
    await expect(stack(arn('d'))).resolves.toMatchObject({
      secrets: { delay: arn('d') },
      secretEnv: { delay: { FLEETQ_SECRET_ID: arn('d') } },
    });
    for (const other of [arn('h'), arn('f')]) {
      await expect(stack(other)).rejects.toThrow(
        /delaySecretArn: the delay function's secret must be its own \(FLEETQ_SIGNING_SECRET only\)/,
      );
    }
  });

  it('gives the admission function its reserved concurrency and, when given, feature gates the function reads', async () => {
    const arn = (n: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${n}-AbC`;
    const stack = (...more: string[]) =>
      resolve({
        options: {
          stage: 'prod',
          param: [
            `handlerSecretArn=${arn('h')}`,
            `forwarderSecretArn=${arn('f')}`,
            'subnetIds=subnet-0123456789abcdef0',
            'securityGroupIds=sg-0123456789abcdef0',
            ...more,
          ],
        },
        resolveConfigurationProperty: config(),
      });
    const plain = await stack();
    expect(plain.admissionConcurrency).toBe(10);
    // Not given: no variable at all (serverless.yml's `, null` fallback drops it).
    expect(plain).not.toHaveProperty('jobsetFeatureGates');
    // Every gate the admission function knows is accepted, and parses there to the same settings.
    const gates = 'InPlaceRestart=true,RestartJob=false,ElasticJobSet=true';
    const withGates = await stack(`jobsetFeatureGates=${gates}`, 'admissionConcurrency=50');
    expect(withGates).toMatchObject({ jobsetFeatureGates: gates, admissionConcurrency: 50 });
    expect(parseFeatureGates(String(withGates.jobsetFeatureGates))).toEqual({
      inPlaceRestart: true,
      restartJob: false,
      elasticJobSet: true,
    });
    // What the function would refuse at its cold start (then every JobSet write fails) is refused at packaging.
    for (const bad of ['Bogus=true', 'RestartJob=yes', 'RestartJob']) {
      expect(() => parseFeatureGates(bad)).toThrow(/feature gate/);
      await expect(stack(`jobsetFeatureGates=${bad}`)).rejects.toThrow(/jobsetFeatureGates: "[^"]*" is not/);
    }
    for (const bad of ['0', '1001', '2.5', 'many']) {
      await expect(stack(`admissionConcurrency=${bad}`)).rejects.toThrow(/admissionConcurrency: .* is not an integer/);
    }
  });

  it('gives the admission function LeaderWorkerSet’s webhooks only when leaderWorkerSetAdmission=true', async () => {
    const arn = (n: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${n}-AbC`;
    const stack = (...more: string[]) =>
      resolve({
        options: {
          stage: 'prod',
          param: [
            `handlerSecretArn=${arn('h')}`,
            `forwarderSecretArn=${arn('f')}`,
            'subnetIds=subnet-0123456789abcdef0',
            'securityGroupIds=sg-0123456789abcdef0',
            ...more,
          ],
        },
        resolveConfigurationProperty: config(),
      });
    // Not given, or false: no variable at all (the function answers 404 on lws's paths), JobSet's wording only.
    for (const off of [await stack(), await stack('leaderWorkerSetAdmission=false')]) {
      expect(off).not.toHaveProperty('leaderWorkerSetAdmission');
      expect(off.admissionKinds).toBe('JobSet');
    }
    const on = await stack('leaderWorkerSetAdmission=true');
    expect(on).toMatchObject({ leaderWorkerSetAdmission: 'true' });
    expect(on.admissionKinds).toMatch(/^JobSet and LeaderWorkerSet/);
    // The value reaches FLEETQ_ADMISSION_LEADERWORKERSET as given, which the function reads as on.
    expect(parseServeLeaderWorkerSet(String(on.leaderWorkerSetAdmission))).toBe(true);
    // What the function would refuse at its cold start (then every admission request fails) is refused at packaging.
    for (const bad of ['yes', 'True', '1', 'on']) {
      expect(() => parseServeLeaderWorkerSet(bad)).toThrow(/FLEETQ_ADMISSION_LEADERWORKERSET/);
      await expect(stack(`leaderWorkerSetAdmission=${bad}`)).rejects.toThrow(
        `leaderWorkerSetAdmission: "${bad}" is not true or false`,
      );
    }
    // From the stage's params block too, as the other parameters.
    const fromFile = await resolve({
      options: {
        stage: 'prod',
        param: [
          `handlerSecretArn=${arn('h')}`,
          `forwarderSecretArn=${arn('f')}`,
          'subnetIds=subnet-0123456789abcdef0',
          'securityGroupIds=sg-0123456789abcdef0',
        ],
      },
      resolveConfigurationProperty: config({ leaderWorkerSetAdmission: true }),
    });
    expect(fromFile).toMatchObject({ leaderWorkerSetAdmission: 'true' });
  });

  it('the local stage: the emulator’s queue URLs, no AWS credentials, no VPC', async () => {
    const out = await resolve({ options: { stage: 'local' }, resolveConfigurationProperty: config() });
    expect(out).toMatchObject({
      queues: { SQS_WORK_URL: 'http://sqs.us-east-1.127.0.0.1:4566/000000000000/fleetq-local-work.fifo' },
      local: { SQS_ENDPOINT: 'http://127.0.0.1:4566' },
      vpc: null,
    });
  });
});
