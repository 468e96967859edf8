// JobSets of kwok pods for the JobSet restart bench (test/bench/jobset-restart.ts) and chaos case
// (test/chaos/jobset-restart-kill.test.ts), and fleetq in-process owning JobSet and Job on one sandbox cluster.
//
// The JobSet is created with the admission defaults already set (shared/admission/jobset-defaults.ts, the same
// values upstream's webhook sets), so a fleetq-mode cluster needs no webhook and both sides store the same spec.
// Each replicated Job runs `pods` pods at once (parallelism = completions), restartPolicy Never and backoffLimit
// 0: one pod annotated to fail (infra/sandbox/stages/pod-outcome.yaml) fails its Job, and the JobSet's failure
// policy (no rules: RestartJobSet, Recreate) starts a new attempt, up to maxRestarts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startAllInOne, type AllInOne } from '../../../functions/all-in-one.js';
import { ensureFleetqRbac } from '../../../infra/sandbox/rbac.js';
import { defaultJobSet } from '../../../shared/admission/jobset-defaults.js';
import { optInKinds } from '../../../shared/controllers/roles.js';
import { JOBSET_NAME_KEY, RESTARTS_KEY } from '../../../shared/controllers/jobset/labels.js';
import { JOBSET_API_VERSION, JOBSET_KIND, type JobSet } from '../../../shared/controllers/jobset/types.js';
import type { Kind } from '../../../shared/kube/kinds.js';
import { ClusterRegistry, type ClusterConfig } from '../../../shared/kube/registry.js';
import { loadConfig } from '../../../shared/runtime/config.js';
import { deleteQueueKeys } from '../queue/redis.js';
import { kwokPodTemplate } from '../sandbox/clusters.js';

/** The annotations the sandbox's kwok stages end a Running pod by. */
export const POD_OUTCOME = 'fleetq.dev/sandbox-outcome';

export const jobSetsPath = (ns: string): string => `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${ns}/jobsets`;
export const jobsPath = (ns: string): string => `/apis/batch/v1/namespaces/${ns}/jobs`;
export const podsPath = (ns: string): string => `/api/v1/namespaces/${ns}/pods`;

/** The kinds fleetq owns to run JobSets on a fleetq-mode cluster (its kube-controller-manager runs no Job controller). */
export const JOBSET_OWNED_KINDS: readonly Kind[] = ['JobSet', 'Job'] as Kind[];

export type RestartableJobSet = {
  readonly name: string;
  readonly namespace: string;
  /** Replicas of the one replicated Job ("workers"). */
  readonly jobs: number;
  /** Pods of each Job, all at once. */
  readonly podsPerJob: number;
  readonly maxRestarts: number;
  readonly annotations?: Record<string, string>;
  /** The replicated Jobs, each of `jobs` replicas (default one, "workers"). */
  readonly replicatedJobs?: readonly string[];
  /** The pods' terminationGracePeriodSeconds (default: the API's, 30). */
  readonly terminationGracePeriodSeconds?: number;
  /** Finalizers the pod template carries (the Job controller copies them to each pod). */
  readonly podFinalizers?: readonly string[];
};

/** A JobSet of `jobs` Jobs × `podsPerJob` kwok pods, restarted (Recreate) on a failed Job, defaults filled in. */
export function restartableJobSet(o: RestartableJobSet): JobSet {
  const template = kwokPodTemplate({ app: o.name });
  const podTemplate = {
    ...template,
    metadata: { ...template.metadata, ...(o.podFinalizers && { finalizers: [...o.podFinalizers] }) },
    spec: {
      ...template.spec,
      restartPolicy: 'Never',
      ...(o.terminationGracePeriodSeconds !== undefined && {
        terminationGracePeriodSeconds: o.terminationGracePeriodSeconds,
      }),
    },
  };
  const js = {
    apiVersion: JOBSET_API_VERSION,
    kind: JOBSET_KIND,
    metadata: { name: o.name, namespace: o.namespace, ...(o.annotations && { annotations: o.annotations }) },
    spec: {
      failurePolicy: { maxRestarts: o.maxRestarts, restartStrategy: 'Recreate' },
      replicatedJobs: (o.replicatedJobs ?? ['workers']).map((name) => ({
        name,
        replicas: o.jobs,
        template: {
          spec: { parallelism: o.podsPerJob, completions: o.podsPerJob, backoffLimit: 0, template: podTemplate },
        },
      })),
    },
  } as unknown as JobSet;
  return defaultJobSet(js).jobSet;
}

type Labelled = { metadata?: { labels?: Record<string, string> } };

/** The restart attempt an object (a child Job or its pod) was made in, or undefined when it has no such label. */
export function attemptOf(o: Labelled): number | undefined {
  const v = o.metadata?.labels?.[RESTARTS_KEY];
  return v === undefined || !/^\d+$/.test(v) ? undefined : Number(v);
}

/** Whether an object is a child (Job or pod) of the JobSet `name`. */
export function isChildOf(o: Labelled, name: string): boolean {
  return o.metadata?.labels?.[JOBSET_NAME_KEY] === name;
}

/** A merge patch that makes a Running kwok pod end with `outcome`. */
export function podOutcomePatch(outcome: 'Succeeded' | 'Failed'): unknown {
  return { metadata: { annotations: { [POD_OUTCOME]: outcome } } };
}

export type JobSetFleetq = {
  readonly app: AllInOne;
  readonly queue: string;
  stop(): Promise<void>;
};

/**
 * fleetq in this process (all-in-one: forwarder + worker loop, redis driver, a queue of its own) owning JobSet and
 * Job on one cluster, authenticated as the ServiceAccounts of infra/k8s/ with the opt-in role pairs of the kinds
 * it owns (so the JobSet roles are exercised too).
 */
export async function startJobSetFleetq(o: {
  readonly cluster: string;
  readonly kubeconfig: string;
  readonly limits: { readonly qps: number; readonly burst: number };
  readonly redisUrl: string;
  readonly queue: string;
  readonly leaseMs?: number;
  readonly concurrency?: number;
  readonly logLevel?: string;
}): Promise<JobSetFleetq> {
  const kc = new KubeConfig();
  kc.loadFromFile(o.kubeconfig);
  const dir = mkdtempSync(join(tmpdir(), 'fleetq-jobset-'));
  const optIn = optInKinds().filter((k) => (JOBSET_OWNED_KINDS as readonly string[]).includes(k));
  const credentials = await ensureFleetqRbac(kc, { dir: join(dir, 'rbac'), optIn });
  const registry = (component: 'forwarder' | 'handler'): ClusterRegistry => {
    const entry: ClusterConfig = {
      name: o.cluster,
      owns: JOBSET_OWNED_KINDS,
      limits: { qps: o.limits.qps, burst: o.limits.burst },
      connection: {
        type: 'token',
        server: credentials.server,
        tokenFile: credentials.tokenFiles[component],
        caFile: credentials.caFile,
        insecureSkipTLSVerify: false,
      },
    };
    return new ClusterRegistry([entry]);
  };
  const config = loadConfig(process.env, {
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: o.queue,
    REDIS_URL: o.redisUrl,
    FLEETQ_CONCURRENCY: String(o.concurrency ?? 8),
    FLEETQ_LEASE_MS: String(o.leaseMs ?? 30_000),
    LOG_LEVEL: o.logLevel ?? 'error',
  });
  const app = await startAllInOne({
    config,
    registry: registry('handler'),
    forwarderRegistry: registry('forwarder'),
    dataDir: join(dir, 'data'),
  });
  return {
    app,
    queue: o.queue,
    stop: async () => {
      await app.stop();
      await deleteQueueKeys(o.redisUrl, o.queue);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
