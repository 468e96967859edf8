/* global module */
// The stack's parameters for serverless.yml, resolved and validated when the file is read
// (`${file(infra/lambda/stack-params.cjs):<address>}`). A deploy stage must be given, with --param:
//   handlerSecretArn    Secrets Manager secret of the reconcile function (registry + the handlers' cluster
//                       credentials, REDIS_URL, FLEETQ_SIGNING_SECRET; see shared/runtime/lambda-secrets.ts)
//   forwarderSecretArn  the forwarder's secret (registry + its read-only credentials, REDIS_URL, signing secret)
//   delaySecretArn      optional: the delay function's own secret, holding FLEETQ_SIGNING_SECRET only (needed when
//                       messages are signed). None: the delay function gets no secret and no GetSecretValue at all.
//                       Never the handlers' or the forwarder's secret: those hold every cluster's credentials
//   subnetIds           comma-separated private subnets that reach the Redis (ElastiCache) and, through a NAT
//                       gateway or VPC endpoints, the clusters' apiservers, SQS and Secrets Manager
//   securityGroupIds    comma-separated security groups allowed into the Redis
//   logRetentionDays    optional, default 30
//   secretsKmsKeyArn    optional: the customer-managed KMS key the secrets are encrypted with; each function's
//                       role may then kms:Decrypt with that key (only through Secrets Manager). None: AWS's own
//                       key, which needs no grant
//   alarmTopicArn       optional: the SNS topic the stack's CloudWatch alarms notify (none: alarms only show)
//   admissionConcurrency optional, default 10: the admission function's reserved concurrency (1 to 1000), the most
//                       of the account's concurrency that requests to its public URL can take
//   jobsetFeatureGates  optional: JobSet's alpha feature gates for the admission function, upstream's syntax
//                       (RestartJob=true,InPlaceRestart=true,ElasticJobSet=true); all off when not given
//   leaderWorkerSetAdmission optional, true or false (default false): the admission function serves LeaderWorkerSet's
//                       four webhooks too (FLEETQ_ADMISSION_LEADERWORKERSET=true), for clusters whose registry entry
//                       owns LeaderWorkerSet; off, it answers 404 on lws's paths
// The `local` stage needs none of them: it runs against the SQS emulator (fauxqs on 127.0.0.1:$FAUXQS_PORT, default
// 4566, queues made by `npx tsx infra/lambda/local-queues.ts`), a local Redis (REDIS_URL) and a registry file
// (FLEETQ_REGISTRY), with no AWS credentials; its URLs replace the stack's !Refs, which `osls invoke local` could
// only resolve from a deployed stack.
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
const KMS_KEY_ARN =
  /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$|^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/mrk-[0-9a-f]{32}$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;
// The gates shared/admission/feature-gates.ts knows (a unit test holds the two lists equal).
const FEATURE_GATES = /^(InPlaceRestart|RestartJob|ElasticJobSet)=(true|false)$/;
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

module.exports = async ({ options, resolveConfigurationProperty }) => {
  const stage = options.stage ?? (await resolveConfigurationProperty(['provider', 'stage'])) ?? 'dev';
  const service = await resolveConfigurationProperty(['service']);
  const given = {};
  for (const item of [options.param ?? []].flat()) {
    const at = item.indexOf('=');
    if (at > 0) given[item.slice(0, at)] = item.slice(at + 1).trim();
  }
  const fromFile = async (name) =>
    (await resolveConfigurationProperty(['params', stage, name])) ??
    (await resolveConfigurationProperty(['params', 'default', name]));
  const param = async (name) => given[name] ?? (await fromFile(name));

  if (stage === 'local') return local(service, stage);

  const problems = [];
  const required = async (name, pattern, list = false) => {
    const value = await param(name);
    if (value === undefined || value === null || String(value).trim() === '') {
      problems.push(`${name} is required (--param="${name}=...")`);
      return list ? [] : '';
    }
    const values = list
      ? String(value)
          .split(',')
          .map((v) => v.trim())
      : [String(value)];
    for (const v of values) if (!pattern.test(v)) problems.push(`${name}: ${JSON.stringify(v)} is not ${pattern}`);
    return list ? values : values[0];
  };
  const handlerSecretArn = await required('handlerSecretArn', SECRET_ARN);
  const forwarderSecretArn = await required('forwarderSecretArn', SECRET_ARN);
  const delaySecretArn = (await param('delaySecretArn')) ? await required('delaySecretArn', SECRET_ARN) : '';
  if (delaySecretArn !== '' && [handlerSecretArn, forwarderSecretArn].includes(delaySecretArn)) {
    problems.push(
      "delaySecretArn: the delay function's secret must be its own (FLEETQ_SIGNING_SECRET only), not the " +
        "handlers' or the forwarder's, which hold the clusters' credentials; leave it out when messages are unsigned",
    );
  }
  const subnetIds = await required('subnetIds', SUBNET, true);
  const securityGroupIds = await required('securityGroupIds', SECURITY_GROUP, true);
  const optional = async (name, pattern) => ((await param(name)) ? await required(name, pattern) : '');
  const secretsKmsKeyArn = await optional('secretsKmsKeyArn', KMS_KEY_ARN);
  const alarmTopicArn = await optional('alarmTopicArn', SNS_TOPIC_ARN);
  const logRetentionDays = Number((await param('logRetentionDays')) ?? 30);
  if (!LOG_RETENTION_DAYS.includes(logRetentionDays)) {
    problems.push(`logRetentionDays: ${logRetentionDays} is not one of CloudWatch's values (${LOG_RETENTION_DAYS})`);
  }
  const admissionConcurrency = Number((await param('admissionConcurrency')) ?? 10);
  if (!Number.isInteger(admissionConcurrency) || admissionConcurrency < 1 || admissionConcurrency > 1000) {
    problems.push(`admissionConcurrency: ${admissionConcurrency} is not an integer from 1 to 1000`);
  }
  const gates = await param('jobsetFeatureGates');
  const jobsetFeatureGates = gates ? await required('jobsetFeatureGates', FEATURE_GATES, true) : [];
  const lws = await param('leaderWorkerSetAdmission');
  const leaderWorkerSetAdmission =
    lws === undefined || lws === null || String(lws).trim() === '' ? 'false' : String(lws);
  if (!['true', 'false'].includes(leaderWorkerSetAdmission)) {
    problems.push(`leaderWorkerSetAdmission: ${JSON.stringify(leaderWorkerSetAdmission)} is not true or false`);
  }
  if (problems.length > 0) {
    throw new Error(`stage ${stage}: invalid stack parameters\n  ${problems.join('\n  ')}`);
  }
  return {
    stage,
    logRetentionDays,
    forwarderRunMs: '55000',
    admissionConcurrency,
    // Left out when not given: the admission function's environment then has no FLEETQ_JOBSET_FEATURE_GATES.
    ...(jobsetFeatureGates.length > 0 ? { jobsetFeatureGates: jobsetFeatureGates.join(',') } : {}),
    ...admission(leaderWorkerSetAdmission === 'true'),
    queues: {
      SQS_WORK_URL: { Ref: 'WorkQueue' },
      SQS_DELAY_URL: { Ref: 'DelayQueue' },
      SQS_DEAD_URL: { Ref: 'DeadLetterQueue' },
    },
    // Lambda's own variables only: every credential comes from the function's secret at cold start.
    local: {},
    // '' for a delay function without a secret: HasDelaySecret leaves its GetSecretValue out of the stack.
    secrets: { handler: handlerSecretArn, forwarder: forwarderSecretArn, delay: delaySecretArn },
    secretEnv: {
      handler: { FLEETQ_SECRET_ID: handlerSecretArn },
      forwarder: { FLEETQ_SECRET_ID: forwarderSecretArn },
      delay: delaySecretArn === '' ? {} : { FLEETQ_SECRET_ID: delaySecretArn },
    },
    vpc: { subnetIds, securityGroupIds },
    // '' when not given: the SecretsKeyPolicy's condition (HasSecretsKey) leaves it out of the stack.
    secretsKmsKeyArn,
    secretsKmsRegion: secretsKmsKeyArn === '' ? '' : secretsKmsKeyArn.split(':')[3],
    alarmActions: alarmTopicArn === '' ? [] : [alarmTopicArn],
  };
};

// The admission function's LeaderWorkerSet switch, and the kinds it admits for its description and alarms. Off: no
// FLEETQ_ADMISSION_LEADERWORKERSET at all (serverless.yml's `, null` fallback drops it).
function admission(leaderWorkerSet) {
  return leaderWorkerSet
    ? { leaderWorkerSetAdmission: 'true', admissionKinds: 'JobSet and LeaderWorkerSet (and its pods)' }
    : { admissionKinds: 'JobSet' };
}

function local(service, stage) {
  const port = process.env.FAUXQS_PORT ?? '4566';
  const url = (name) => `http://sqs.us-east-1.127.0.0.1:${port}/000000000000/${service}-${stage}-${name}`;
  const none = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:fleetq-local-none';
  return {
    stage,
    logRetentionDays: 1,
    forwarderRunMs: process.env.FORWARDER_RUN_MS ?? '10000',
    admissionConcurrency: 1,
    ...(process.env.FLEETQ_JOBSET_FEATURE_GATES ? { jobsetFeatureGates: process.env.FLEETQ_JOBSET_FEATURE_GATES } : {}),
    ...admission(process.env.FLEETQ_ADMISSION_LEADERWORKERSET === 'true'),
    queues: { SQS_WORK_URL: url('work.fifo'), SQS_DELAY_URL: url('delay'), SQS_DEAD_URL: url('dead') },
    // Plain variables are fine here: a local stage is never deployed, and holds no real credentials.
    local: {
      SQS_ENDPOINT: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      FLEETQ_REGISTRY: process.env.FLEETQ_REGISTRY ?? 'config/fleet.yaml',
      FLEETQ_REDIS_PREFIX: process.env.FLEETQ_REDIS_PREFIX ?? 'fleetq-local',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    },
    secrets: { handler: none, forwarder: none, delay: none },
    secretEnv: { handler: {}, forwarder: {}, delay: {} },
    vpc: null,
    secretsKmsKeyArn: '',
    secretsKmsRegion: '',
    alarmActions: [],
  };
}
