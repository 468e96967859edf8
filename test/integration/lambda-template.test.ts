// The generated CloudFormation, read as a deploy would get it (`npm run package` for a deploy stage, offline): the
// stack creates or is given everything its functions use, and nothing more is allowed than they do.
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  EXAMPLE_PARAMS,
  packageStack,
  templateQueues,
  type CfnResource,
  type Packaged,
} from '../helpers/lambda/package.js';

const KMS_KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const ALARM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:fleetq-alarms';
const FEATURE_GATES = 'RestartJob=true,InPlaceRestart=false';
/** The functions fed by the stack's queues; the admission function has none. */
const QUEUE_FUNCTIONS = ['ReconcileLambdaFunction', 'DelayLambdaFunction', 'ForwarderLambdaFunction'];

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
const arr = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
const ref = (v: unknown): string | undefined => {
  const o = v as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  return o?.Ref ?? o?.['Fn::GetAtt']?.[0];
};

/** A statement under `!If [condition, statement, !Ref AWS::NoValue]`, as it reads when the condition holds. */
const whenPresent = (s: Statement): Statement =>
  ((s as { 'Fn::If'?: [string, Statement, unknown] })['Fn::If']?.[1] ?? s) as Statement;

describe('Lambda stack template', () => {
  let t: Packaged['template'] & { Conditions?: Record<string, unknown>; Outputs?: Record<string, unknown> };
  let of: (type: string) => Array<[string, CfnResource]>;
  let functions: Array<[string, Record<string, unknown>]>;
  let region: string;

  beforeAll(async () => {
    const packaged = await packageStack({
      ...EXAMPLE_PARAMS,
      secretsKmsKeyArn: KMS_KEY,
      alarmTopicArn: ALARM_TOPIC,
      jobsetFeatureGates: FEATURE_GATES,
      leaderWorkerSetAdmission: 'true',
      region: 'eu-west-1',
    });
    t = packaged.template;
    region = packaged.region;
    of = (type) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
    functions = of('AWS::Lambda::Function').map(([id, r]) => [id, r.Properties ?? {}]);
  });

  it('has the four functions, each its own zip with its own bundle as handler', () => {
    expect(Object.fromEntries(functions.map(([id, p]) => [id, p.Handler]))).toEqual({
      ReconcileLambdaFunction: 'dist/lambda/reconcile/reconcile.handler',
      DelayLambdaFunction: 'dist/lambda/delay/delay.delay',
      ForwarderLambdaFunction: 'dist/lambda/forwarder/forwarder.tick',
      AdmissionLambdaFunction: 'dist/lambda/admission/admission.handler',
    });
    for (const [, p] of functions) expect(p.Runtime).toBe('nodejs24.x');
    for (const [, p] of functions) expect(p.Architectures).toEqual(['arm64']);
  });

  it('is packaged for the region given (the region parameter), and outputs the queue URLs and region', () => {
    expect(region).toBe('eu-west-1');
    const outputs = (t.Outputs ?? {}) as Record<string, { Value: unknown }>;
    expect(Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, o.Value]))).toMatchObject({
      WorkQueueUrl: { Ref: 'WorkQueue' },
      DelayQueueUrl: { Ref: 'DelayQueue' },
      DeadLetterQueueUrl: { Ref: 'DeadLetterQueue' },
      Region: { Ref: 'AWS::Region' },
    });
  });

  it('runs its FIFO queues in high-throughput mode: deduplication and throughput per message group', () => {
    const fifo = Object.entries(templateQueues(t)).filter(([, q]) => q.FifoQueue === true || q.FifoQueue === 'true');
    expect(fifo.map(([id]) => id).sort()).toEqual(['WorkBackstopQueue', 'WorkQueue']);
    for (const [, q] of fifo) {
      expect({ DeduplicationScope: q.DeduplicationScope, FifoThroughputLimit: q.FifoThroughputLimit }).toEqual({
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      });
    }
  });

  it('maps both queues to their functions with ReportBatchItemFailures', () => {
    const mappings = of('AWS::Lambda::EventSourceMapping').map(([, r]) => r.Properties ?? {});
    expect(mappings.map((m) => [ref(m.EventSourceArn), ref(m.FunctionName)]).sort()).toEqual([
      ['DelayQueue', 'DelayLambdaFunction'],
      ['WorkQueue', 'ReconcileLambdaFunction'],
    ]);
    for (const m of mappings) expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it('gives every queue a visibility of at least 6 × its consumer timeout, and a backstop redrive policy', () => {
    const queues = templateQueues(t);
    const timeoutOf = (fn: string | undefined) =>
      Number(functions.find(([id]) => id === fn)?.[1].Timeout ?? Number.NaN);
    const consumers = new Map(
      of('AWS::Lambda::EventSourceMapping').map(([, r]) => [
        ref(r.Properties?.EventSourceArn),
        ref(r.Properties?.FunctionName),
      ]),
    );
    const longestConsumer = Math.max(...[...consumers.values()].map(timeoutOf));
    for (const [id, q] of Object.entries(queues)) {
      const consumer = consumers.get(id);
      const timeout = consumer === undefined ? longestConsumer : timeoutOf(consumer);
      expect({ id, ok: Number(q.VisibilityTimeout) >= 6 * timeout }).toEqual({ id, ok: true });
    }
    // SQS_VISIBILITY_MS (what the reconcile handler's fences assume) is the work queue's visibility.
    const env = (
      functions.find(([id]) => id === 'ReconcileLambdaFunction')?.[1].Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(Number(env.SQS_VISIBILITY_MS)).toBe(Number(queues.WorkQueue?.VisibilityTimeout) * 1000);
    for (const id of ['WorkQueue', 'DelayQueue']) {
      const q = queues[id] ?? {};
      const redrive = q.RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: number };
      const target = queues[ref(redrive.deadLetterTargetArn) ?? ''];
      expect(target).toBeDefined();
      expect(target?.FifoQueue ?? false).toBe(q.FifoQueue ?? false);
      // A backstop: reached only after receives spaced by the longest backoff (1000 s) outlast… nothing; it acts
      // before the retention would silently drop the message.
      expect(redrive.maxReceiveCount * 1000).toBeLessThan(Number(q.MessageRetentionPeriod));
      expect(Number(target?.MessageRetentionPeriod)).toBe(1_209_600);
    }
  });

  it('gives each function its own role, with no * action, no CreateQueue, and * resources only for VPC interfaces', () => {
    const roles = functions.map(([, p]) => ref(p.Role));
    expect(new Set(roles).size).toBe(functions.length);
    expect(t.Resources.IamRoleLambdaExecution).toBeUndefined();
    for (const [id, role] of of('AWS::IAM::Role')) {
      const statements = ((role.Properties?.Policies ?? []) as Array<{ PolicyDocument: { Statement: Statement[] } }>)
        .flatMap((p) => p.PolicyDocument.Statement)
        .map(whenPresent);
      expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
      for (const s of statements) {
        const actions = arr(s.Action);
        for (const a of actions) {
          expect({ id, a, star: a.includes('*') }).toEqual({ id, a, star: false });
          expect(a.toLowerCase()).not.toMatch(/createqueue|deletequeue|setqueueattributes/);
        }
        if (s.Resource === '*')
          expect({ id, actions: actions.every((a) => a.startsWith('ec2:')) }).toEqual({ id, actions: true });
      }
    }
    const forwarder = of('AWS::IAM::Role').find(([id]) => id === 'ForwarderRole')?.[1];
    const forwarderActions = JSON.stringify(forwarder?.Properties?.Policies);
    expect(forwarderActions).not.toMatch(/ReceiveMessage|DeleteMessage|ChangeMessageVisibility/);
  });

  it('puts no secret in an environment variable: only the ARN of each function’s secret', () => {
    for (const [id, p] of functions) {
      const vars = (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      for (const [name, value] of Object.entries(vars)) {
        expect({
          id,
          name,
          secretName: /REDIS_URL|SIGNING_SECRET|PASSWORD|TOKEN|AWS_SECRET|AWS_ACCESS/.test(name),
        }).toEqual({
          id,
          name,
          secretName: false,
        });
        if (typeof value === 'string') expect(value).not.toMatch(/:\/\/[^/@]*:[^/@]*@/); // a URL with a password
      }
      // The delay function has no secret unless it is given its own (delaySecretArn, the signing secret only);
      // the admission function has none at all.
      if (id === 'DelayLambdaFunction' || id === 'AdmissionLambdaFunction')
        expect(vars.FLEETQ_SECRET_ID).toBeUndefined();
      else expect(String(vars.FLEETQ_SECRET_ID)).toMatch(/^arn:aws:secretsmanager:/);
      expect(vars.FLEETQ_REGISTRY).toBeUndefined();
    }
  });

  it('gives the delay function its queues only: no secret to read, no KMS grant, unless delaySecretArn is given', () => {
    // stack-params.cjs makes the delay's secret '' when not given: the condition is false and the statement goes.
    expect(t.Conditions?.HasDelaySecret).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
    const delay = t.Resources.DelayRole?.Properties?.Policies as Array<{ PolicyDocument: { Statement: unknown[] } }>;
    const statements = delay.flatMap((p) => p.PolicyDocument.Statement);
    const secretReads = statements.filter((s) => JSON.stringify(s).includes('secretsmanager:'));
    expect(secretReads).toEqual([
      {
        'Fn::If': [
          'HasDelaySecret',
          { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: '' },
          { Ref: 'AWS::NoValue' },
        ],
      },
    ]);
    const keyPolicy = t.Resources.SecretsKeyPolicy?.Properties as { Roles: unknown[] };
    expect(keyPolicy.Roles).toContainEqual({
      'Fn::If': ['HasDelaySecret', { Ref: 'DelayRole' }, { Ref: 'AWS::NoValue' }],
    });
    // Nothing of the clusters' or Redis's in its environment.
    const env = (
      functions.find(([id]) => id === 'DelayLambdaFunction')?.[1].Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(Object.keys(env).filter((k) => /REDIS|REGISTRY|KUBE|TOKEN/.test(k))).toEqual([]);
  });

  it('runs one forwarder tick at a time, never retried, and keeps logs for a bounded time; Redis is reached in the VPC', () => {
    const forwarder = functions.find(([id]) => id === 'ForwarderLambdaFunction')?.[1] ?? {};
    expect(forwarder.ReservedConcurrentExecutions).toBe(1);
    const invokeConfig = of('AWS::Lambda::EventInvokeConfig').map(([, r]) => r.Properties ?? {});
    expect(invokeConfig).toEqual([expect.objectContaining({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 })]);
    const logGroups = of('AWS::Logs::LogGroup').map(([, r]) => r.Properties ?? {});
    expect(logGroups).toHaveLength(functions.length);
    for (const g of logGroups) expect(g.RetentionInDays).toBe(30);
    for (const id of ['ReconcileLambdaFunction', 'ForwarderLambdaFunction']) {
      const vpc = functions.find(([f]) => f === id)?.[1].VpcConfig as {
        SubnetIds: string[];
        SecurityGroupIds: string[];
      };
      expect(vpc.SubnetIds).toHaveLength(2);
      expect(vpc.SecurityGroupIds).toEqual(['sg-0123456789abcdef0']);
    }
  });

  it('lets each role decrypt with the secrets’ customer-managed key only, through Secrets Manager, when one is given', () => {
    const policy = t.Resources.SecretsKeyPolicy;
    expect(policy).toMatchObject({ Type: 'AWS::IAM::Policy', Condition: 'HasSecretsKey' });
    // Left out of the stack when the parameter is not given (stack-params.cjs makes it '').
    expect(t.Conditions?.HasSecretsKey).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [KMS_KEY, ''] }] });
    const p = policy?.Properties as { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
    // The delay role's grant is under HasDelaySecret (given its own secret only).
    expect(p.Roles.map((r) => ref(r) ?? ref(whenPresent(r as Statement))).sort()).toEqual([
      'DelayRole',
      'ForwarderRole',
      'ReconcileRole',
    ]);
    expect(JSON.stringify(p.Roles)).not.toMatch(/AdmissionRole/);
    expect(p.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['kms:Decrypt'],
        Resource: KMS_KEY,
        Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' } },
      },
    ]);
    // No other statement names KMS: nothing else may decrypt.
    for (const [id, role] of of('AWS::IAM::Role'))
      expect({ id, kms: JSON.stringify(role).includes('kms:') }).toEqual({ id, kms: false });
  });

  it('alarms on failing forwarder ticks, dead-lettered and backstopped messages, reconcile and admission errors and throttles', () => {
    const alarms = Object.fromEntries(
      of('AWS::CloudWatch::Alarm').map(([id, r]) => {
        const p = r.Properties ?? {};
        const dims = p.Dimensions as Array<{ Name: string; Value: unknown }>;
        return [
          id,
          {
            metric: `${String(p.Namespace)}/${String(p.MetricName)}`,
            dims: dims.map((d) => [d.Name, ref(d.Value)]),
            p,
          },
        ];
      }),
    );
    expect(Object.fromEntries(Object.entries(alarms).map(([id, a]) => [id, [a.metric, ...a.dims.flat()]]))).toEqual({
      ForwarderErrorsAlarm: ['AWS/Lambda/Errors', 'FunctionName', 'ForwarderLambdaFunction'],
      DeadLetterQueueAlarm: ['AWS/SQS/ApproximateNumberOfMessagesVisible', 'QueueName', 'DeadLetterQueue'],
      WorkBackstopQueueAlarm: ['AWS/SQS/ApproximateNumberOfMessagesVisible', 'QueueName', 'WorkBackstopQueue'],
      DelayBackstopQueueAlarm: ['AWS/SQS/ApproximateNumberOfMessagesVisible', 'QueueName', 'DelayBackstopQueue'],
      ReconcileErrorsAlarm: ['AWS/Lambda/Errors', 'FunctionName', 'ReconcileLambdaFunction'],
      ReconcileThrottlesAlarm: ['AWS/Lambda/Throttles', 'FunctionName', 'ReconcileLambdaFunction'],
      AdmissionErrorsAlarm: ['AWS/Lambda/Errors', 'FunctionName', 'AdmissionLambdaFunction'],
      AdmissionThrottlesAlarm: ['AWS/Lambda/Throttles', 'FunctionName', 'AdmissionLambdaFunction'],
    });
    for (const [id, { dims, p }] of Object.entries(alarms)) {
      // Each names a resource of this stack (a Ref to the function, the queue's QueueName attribute).
      const [name, target] = dims[0] ?? [];
      expect({ id, exists: t.Resources[target ?? '']?.Type }).toEqual({
        id,
        exists: name === 'FunctionName' ? 'AWS::Lambda::Function' : 'AWS::SQS::Queue',
      });
      if (name === 'QueueName') {
        expect((p.Dimensions as Array<{ Value: unknown }>)[0]?.Value).toEqual({ 'Fn::GetAtt': [target, 'QueueName'] });
      }
      expect({ id, actions: p.AlarmActions, ok: p.OKActions }).toEqual({
        id,
        actions: [ALARM_TOPIC],
        ok: [ALARM_TOPIC],
      });
      expect({ id, threshold: p.Threshold, op: p.ComparisonOperator }).toEqual({
        id,
        threshold: 1,
        op: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('serves admission behind a public function URL: no queue, no secret, no VPC, its logs only, bounded concurrency', () => {
    const admission = functions.find(([id]) => id === 'AdmissionLambdaFunction')?.[1] ?? {};
    // An API server cannot sign SigV4: AuthType NONE, and the two grants a public URL needs (the URL invoke, and
    // the function invoke through that URL only); nothing else may invoke it.
    const url = t.Resources.AdmissionLambdaFunctionUrl;
    expect(url).toMatchObject({ Type: 'AWS::Lambda::Url', Properties: { AuthType: 'NONE' } });
    expect(ref(url?.Properties?.TargetFunctionArn)).toBe('AdmissionLambdaFunction');
    expect(url?.Properties?.Cors).toBeUndefined();
    const grants = of('AWS::Lambda::Permission')
      .filter(([, r]) => ref(r.Properties?.FunctionName) === 'AdmissionLambdaFunction')
      .map(([, r]) => {
        const { FunctionName: _, ...rest } = r.Properties ?? {};
        return rest;
      });
    expect(grants).toEqual(
      expect.arrayContaining([
        { Action: 'lambda:InvokeFunctionUrl', Principal: '*', FunctionUrlAuthType: 'NONE' },
        { Action: 'lambda:InvokeFunction', Principal: '*', InvokedViaFunctionUrl: true },
      ]),
    );
    expect(grants).toHaveLength(2);
    expect(t.Outputs?.AdmissionLambdaFunctionUrl).toMatchObject({
      Value: { 'Fn::GetAtt': ['AdmissionLambdaFunctionUrl', 'FunctionUrl'] },
    });
    // Nothing of the queues', the clusters' or Redis's: only the feature gates and the LeaderWorkerSet switch it was
    // given (leaderWorkerSetAdmission=true), and its description and alarms say both kinds.
    const vars = (admission.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    expect(vars).toEqual({ FLEETQ_JOBSET_FEATURE_GATES: FEATURE_GATES, FLEETQ_ADMISSION_LEADERWORKERSET: 'true' });
    expect(admission.Description).toMatch(/^JobSet and LeaderWorkerSet .*admission webhooks/);
    for (const alarm of ['AdmissionErrorsAlarm', 'AdmissionThrottlesAlarm']) {
      expect(String(t.Resources[alarm]?.Properties?.AlarmDescription)).toMatch(
        /; JobSet and LeaderWorkerSet .*writes are refused$/,
      );
    }
    for (const [id, p] of functions.filter(([f]) => QUEUE_FUNCTIONS.includes(f))) {
      const env = (p.Environment as { Variables: Record<string, unknown> }).Variables;
      expect({
        id,
        queues: Object.keys(env)
          .filter((k) => /^SQS_|^FLEETQ_DRIVER$/.test(k))
          .sort(),
      }).toEqual({
        id,
        queues: ['FLEETQ_DRIVER', 'SQS_DEAD_URL', 'SQS_DELAY_URL', 'SQS_VISIBILITY_MS', 'SQS_WORK_URL'],
      });
    }
    expect(admission.VpcConfig).toBeUndefined();
    expect(
      of('AWS::Lambda::EventSourceMapping').filter(
        ([, r]) => ref(r.Properties?.FunctionName) === 'AdmissionLambdaFunction',
      ),
    ).toEqual([]);
    // Its role writes its own log group and nothing else.
    const role = t.Resources[ref(admission.Role) ?? '']?.Properties?.Policies as Array<{
      PolicyDocument: { Statement: Statement[] };
    }>;
    expect(role.flatMap((p) => p.PolicyDocument.Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': ['AdmissionLogGroup', 'Arn'] },
      },
    ]);
    // A flood of requests to the public URL takes at most its reserved concurrency; it answers within the API
    // server's default webhook timeout (10 s).
    expect(admission.ReservedConcurrentExecutions).toBe(10);
    expect(Number(admission.Timeout)).toBeLessThanOrEqual(10);
  });
});

describe('Lambda stack template without leaderWorkerSetAdmission', () => {
  let t: Packaged['template'];

  beforeAll(async () => {
    // The bundles of the run above (same file, run before): packaging only.
    t = (await packageStack(EXAMPLE_PARAMS, { build: false })).template;
  });

  it('gives the admission function no LeaderWorkerSet switch, and says JobSet only', () => {
    const admission = t.Resources.AdmissionLambdaFunction?.Properties ?? {};
    const vars = (admission.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    expect(vars).toEqual({});
    expect(admission.Description).toBe('JobSet admission webhooks (defaulting, validation) behind a function URL');
    for (const alarm of ['AdmissionErrorsAlarm', 'AdmissionThrottlesAlarm']) {
      expect(String(t.Resources[alarm]?.Properties?.AlarmDescription)).toMatch(/; JobSet writes are refused$/);
    }
  });
});
