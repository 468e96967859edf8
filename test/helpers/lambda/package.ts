// `npm run package` as CI runs it: the esbuild bundles (infra/lambda/build.ts), then `osls package` for a deploy
// stage with example stack parameters, offline (no AWS credentials are used: dummies keep the SDK quiet), into a
// temporary directory. Returns the CloudFormation template, the region it is packaged for and the zips.
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../../..', import.meta.url).pathname;

export const STAGE = 'ci';
export const EXAMPLE_PARAMS = {
  handlerSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:fleetq/handler-AbCdEf',
  forwarderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:fleetq/forwarder-AbCdEf',
  subnetIds: 'subnet-0123456789abcdef0,subnet-0123456789abcdef1',
  securityGroupIds: 'sg-0123456789abcdef0',
};

export type CfnResource = { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown };
export type Packaged = {
  readonly dir: string;
  readonly template: { Resources: Record<string, CfnResource> };
  /** The region the stack is packaged for (serverless-state.json's provider.region). */
  readonly region: string;
  readonly zips: ReadonlyArray<{ name: string; path: string; bytes: number }>;
};

const quietEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  AWS_ACCESS_KEY_ID: 'offline',
  AWS_SECRET_ACCESS_KEY: 'offline',
  AWS_PROFILE: '',
  SLS_TELEMETRY_DISABLED: '1',
  SLS_NOTIFICATIONS_MODE: 'off',
  NODE_OPTIONS: '',
});

/** Runs the packaging; `params` override the example ones (undefined removes one). */
export async function packageStack(
  params: Record<string, string | undefined> = EXAMPLE_PARAMS,
  o: { readonly build?: boolean; readonly stage?: string } = {},
): Promise<Packaged> {
  const env = quietEnv();
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-package-'));
  const args = ['package', '--stage', o.stage ?? STAGE, '--package', dir];
  for (const [k, v] of Object.entries(params)) if (v !== undefined) args.push(`--param=${k}=${v}`);
  // Test files running at once share dist/lambda/: one builds and zips at a time.
  await withLock(async () => {
    if (o.build ?? true) await run('node_modules/.bin/tsx', ['infra/lambda/build.ts'], { cwd: ROOT, env });
    await run('node_modules/.bin/osls', args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 });
  });
  const template = JSON.parse(await readFile(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  const state = JSON.parse(await readFile(join(dir, 'serverless-state.json'), 'utf8')) as {
    service?: { provider?: { region?: string } };
  };
  const region = state.service?.provider?.region ?? '';
  const zips = await Promise.all(
    (await readdir(dir))
      .filter((f) => f.endsWith('.zip'))
      .map(async (f) => ({
        name: f.replace(/\.zip$/, ''),
        path: join(dir, f),
        bytes: (await stat(join(dir, f))).size,
      })),
  );
  return { dir, template, region, zips };
}

const LOCK = join(ROOT, 'dist', '.lambda-package.lock');

/** Runs `fn` holding a directory lock (mkdir is atomic); a lock older than 15 minutes was left by a dead run. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (await stat(LOCK).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > 15 * 60_000) await rm(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${LOCK} held for 15 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

/** Queue logical id → { QueueName, Properties } from a template. */
export function templateQueues(template: Packaged['template']): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::SQS::Queue')
      .map(([id, r]) => [id, r.Properties ?? {}]),
  );
}

/**
 * Creates a template's queues in an SQS emulator with their names and attributes (FIFO, visibility, retention,
 * redrive policy to the queue the template names), backstops first; returns logical id → URL.
 */
export async function createTemplateQueues(
  client: SQSClient,
  template: Packaged['template'],
): Promise<Record<string, string>> {
  const queues = templateQueues(template);
  const targetOf = (props: Record<string, unknown>): string | undefined =>
    (props.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt'?: [string, string] } } | undefined)
      ?.deadLetterTargetArn?.['Fn::GetAtt']?.[0];
  const order = Object.keys(queues).sort(
    (a, b) => Number(targetOf(queues[a] ?? {}) !== undefined) - Number(targetOf(queues[b] ?? {}) !== undefined),
  );
  const urls: Record<string, string> = {};
  const arns: Record<string, string> = {};
  for (const id of order) {
    const p = queues[id] ?? {};
    const name = String(p.QueueName);
    const attributes: Record<string, string> = {};
    const keys = [
      'FifoQueue',
      'VisibilityTimeout',
      'MessageRetentionPeriod',
      'DeduplicationScope',
      'FifoThroughputLimit',
    ];
    for (const key of keys) {
      if (p[key] !== undefined) attributes[key] = String(p[key]);
    }
    const target = targetOf(p);
    if (target !== undefined) {
      const redrive = p.RedrivePolicy as { maxReceiveCount: number };
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: arns[target],
        maxReceiveCount: redrive.maxReceiveCount,
      });
    }
    const out = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    urls[id] = out.QueueUrl ?? '';
    const got = await client.send(new GetQueueAttributesCommand({ QueueUrl: urls[id], AttributeNames: ['QueueArn'] }));
    arns[id] = got.Attributes?.QueueArn ?? '';
  }
  return urls;
}
