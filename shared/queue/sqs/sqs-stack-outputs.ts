// The Lambda stack's queues as its CloudFormation outputs name them (serverless.yml `Outputs`), for the commands
// that read the queue from outside the stack (`fleetq status`, `fleetq dlq` with --stack-outputs). The input is
// what `aws cloudformation describe-stacks --stack-name <stack> --query 'Stacks[0].Outputs'` prints (a list of
// { OutputKey, OutputValue }), or the whole describe-stacks reply; the result is the environment the sqs driver
// reads: SQS_WORK_URL, SQS_DELAY_URL, SQS_DEAD_URL and AWS_REGION (the same variables the stack's functions get).

/** Output key → the variable it sets. */
export const STACK_QUEUE_OUTPUTS = {
  WorkQueueUrl: 'SQS_WORK_URL',
  DelayQueueUrl: 'SQS_DELAY_URL',
  DeadLetterQueueUrl: 'SQS_DEAD_URL',
  Region: 'AWS_REGION',
} as const;

export type StackQueueEnv = Record<(typeof STACK_QUEUE_OUTPUTS)[keyof typeof STACK_QUEUE_OUTPUTS], string>;

export class StackOutputsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

type Output = { OutputKey?: unknown; OutputValue?: unknown };

/** The queue URLs and region of a stack from its outputs' JSON; throws StackOutputsError naming what is missing. */
export function stackQueueEnv(json: string): StackQueueEnv {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new StackOutputsError(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const outputs = outputsOf(parsed);
  const values = new Map<string, string>();
  for (const o of outputs) {
    if (typeof o?.OutputKey === 'string' && typeof o.OutputValue === 'string') values.set(o.OutputKey, o.OutputValue);
  }
  const missing = Object.keys(STACK_QUEUE_OUTPUTS).filter((k) => !values.has(k));
  if (missing.length > 0) {
    throw new StackOutputsError(
      `the stack's outputs lack ${missing.join(', ')} (deployed from an older serverless.yml?)`,
    );
  }
  const env = {} as StackQueueEnv;
  for (const [key, variable] of Object.entries(STACK_QUEUE_OUTPUTS)) env[variable] = values.get(key) ?? '';
  return env;
}

function outputsOf(parsed: unknown): Output[] {
  if (Array.isArray(parsed)) return parsed as Output[];
  const stacks = (parsed as { Stacks?: unknown } | null)?.Stacks;
  if (Array.isArray(stacks) && stacks.length === 1) {
    const outputs = (stacks[0] as { Outputs?: unknown } | null)?.Outputs;
    if (Array.isArray(outputs)) return outputs as Output[];
  }
  throw new StackOutputsError(
    "expected the stack's Outputs list (describe-stacks --query 'Stacks[0].Outputs') or a describe-stacks reply of one stack",
  );
}
