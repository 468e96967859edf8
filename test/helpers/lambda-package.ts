// `npm run package` as CI runs it: the esbuild bundles (infra/lambda/build.ts), then `osls package` for a deploy
// stage with example stack parameters, offline (no AWS credentials are used: dummies keep the SDK quiet), into a
// temporary directory. Returns the CloudFormation template and the zips.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

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
  if (o.build ?? true) await run('node_modules/.bin/tsx', ['infra/lambda/build.ts'], { cwd: ROOT, env });
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-package-'));
  const args = ['package', '--stage', o.stage ?? STAGE, '--package', dir];
  for (const [k, v] of Object.entries(params)) if (v !== undefined) args.push(`--param=${k}=${v}`);
  await run('node_modules/.bin/osls', args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 });
  const template = JSON.parse(await readFile(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  const zips = await Promise.all(
    (await readdir(dir))
      .filter((f) => f.endsWith('.zip'))
      .map(async (f) => ({
        name: f.replace(/\.zip$/, ''),
        path: join(dir, f),
        bytes: (await stat(join(dir, f))).size,
      })),
  );
  return { dir, template, zips };
}

/** The error output of a packaging that failed. */
export async function packageFailure(params: Record<string, string | undefined>): Promise<string> {
  try {
    await packageStack(params, { build: false });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`;
  }
  throw new Error('packaging succeeded');
}

/** Queue logical id → { QueueName, Properties } from a template. */
export function templateQueues(template: Packaged['template']): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::SQS::Queue')
      .map(([id, r]) => [id, r.Properties ?? {}]),
  );
}
