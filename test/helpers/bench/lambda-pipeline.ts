// The Lambda cost bench's stand-ins for what AWS runs around a function (test/bench/lambda-cost.ts): the event
// source mapping of each queue, a queue's depth, a function's environment, and the workload's Deployments.
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AppsV1Api, V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../../../infra/sandbox/process.js';
import { pollOnce, type BatchHandler, type Invocation } from '../lambda/sqs.js';
import { kwokPodTemplate } from '../sandbox/clusters.js';

type Queue = 'work' | 'delay';

/**
 * One poller per queue, as the event source mapping runs them (lambda/sqs.ts pollOnce: receive, invoke, delete
 * what was not reported failed), counting per queue the receives made, the empty ones, and the invocations after
 * which the mapping deleted something (one DeleteMessageBatch each if the mapping batched its deletes; pollOnce
 * deletes one message at a time).
 */
export class EventSourceMappings {
  readonly receives = { work: 0, delay: 0 };
  readonly empty = { work: 0, delay: 0 };
  readonly deletingInvocations = { work: 0, delay: 0 };
  private stopped = false;
  private readonly loops: Array<Promise<void>> = [];

  constructor(
    private readonly client: SQSClient,
    private readonly urls: Record<Queue, string>,
    private readonly log: (m: string) => void,
  ) {}

  /** Polls the queue until stop(), handing each batch to the handler (the function's invocation). */
  poll(queue: Queue, handler: BatchHandler, visibility: number, fnTimeoutMs: number): void {
    this.loops.push(this.loop(queue, handler, visibility, fnTimeoutMs));
  }

  private async loop(queue: Queue, handler: BatchHandler, visibility: number, fnTimeoutMs: number): Promise<void> {
    while (!this.stopped) {
      this.receives[queue]++;
      const inv: Invocation | null = await pollOnce(
        this.client,
        this.urls[queue],
        handler,
        visibility,
        fnTimeoutMs,
      ).catch((err: unknown) => (this.log(`${queue} poll: ${String(err)}`), null));
      if (inv !== null && inv.records.length > inv.failed.length) this.deletingInvocations[queue]++;
      if (inv === null) {
        this.empty[queue]++;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Stops polling once each poller's current receive ends; the client is then closed. Idempotent. */
  async stop(): Promise<void> {
    const first = !this.stopped;
    this.stopped = true;
    await Promise.all(this.loops);
    if (first) this.client.destroy();
  }
}

/** Messages in the queue: visible and in flight, and with `delayed` the delayed ones too. */
export async function messagesIn(admin: SQSClient, url: string, delayed = false): Promise<number> {
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] as const;
  const out = await admin.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [...names, ...(delayed ? (['ApproximateNumberOfMessagesDelayed'] as const) : [])],
    }),
  );
  const a: Record<string, string> = out.Attributes ?? {};
  return Object.values(a).reduce((sum, v) => sum + Number(v), 0);
}

/** A template function's Environment.Variables. */
export const envOf = (props: Record<string, unknown>): Record<string, unknown> =>
  (props.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};

/** The function's secret, as the deployed stack gives it: the registry (one cluster) and its kubeconfig, and env. */
export function functionSecret(cluster: string, kubeconfig: string, env: Record<string, string>): string {
  return JSON.stringify({
    env,
    files: {
      'fleet.yaml': `clusters:\n  - { name: ${cluster}, kubeconfig: kubeconfigs/${cluster}.yaml, owns: [Deployment, ReplicaSet] }\n`,
      [`kubeconfigs/${cluster}.yaml`]: kubeconfig,
    },
  });
}

/** The template's variables with the queue Refs resolved; then what Lambda and the local endpoints add. */
export function lambdaEnv(
  props: Record<string, unknown>,
  name: string,
  o: {
    readonly urlsById: Record<string, string | undefined>;
    readonly memorySize: number;
    readonly sqs: string;
    readonly secrets: string;
    readonly prefix: string;
  },
): NodeJS.ProcessEnv {
  const vars: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(envOf(props))) {
    const ref = (v as { Ref?: string } | null)?.Ref;
    vars[k] = ref === undefined ? String(v) : o.urlsById[ref];
  }
  return {
    ...vars,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize ?? o.memorySize),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    SQS_ENDPOINT: o.sqs,
    SECRETS_ENDPOINT: o.secrets,
    FLEETQ_REDIS_PREFIX: o.prefix,
  };
}

/** Changes the Deployment's pod template (an annotation set to `marker`), retrying a conflict for 30 s. */
export async function rollDeployment(apps: AppsV1Api, namespace: string, name: string, marker: string): Promise<void> {
  await waitFor(
    async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name });
      const template = d.spec?.template;
      if (!template) return false;
      template.metadata = {
        ...template.metadata,
        annotations: { ...template.metadata?.annotations, 'bench/rolled': marker },
      };
      await apps.replaceNamespacedDeployment({ namespace, name, body: d });
      return true;
    },
    30_000,
    200,
    `roll ${name}`,
  );
}

/** A Deployment of `replicas` kwok pods. */
export const kwokDeployment = (name: string, replicas: number) => ({
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: kwokPodTemplate({ app: name }) },
});

/** The Deployment is at least at `generation`, observed, and has `replicas` replicas updated and available. */
export function isConverged(d: V1Deployment, generation: number, replicas: number): boolean {
  const s = d.status;
  return (
    (d.metadata?.generation ?? 0) >= generation &&
    s?.observedGeneration === d.metadata?.generation &&
    s?.replicas === replicas &&
    s?.updatedReplicas === replicas &&
    s?.availableReplicas === replicas
  );
}
