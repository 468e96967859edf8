// fleetq's JobSet admission (shared/admission/) serving one sandbox cluster from this process
// (admission-webhooks.ts): the admission server on a loopback port with a serving certificate of the sandbox CA,
// and Mutating/ValidatingWebhookConfigurations whose clientConfig.url points at it (upstream's webhook names,
// mjobset.kb.io and vjobset.kb.io). Used where a fleetq-mode cluster must admit JobSets as an upstream-mode one does with the JobSet manager's webhooks: the
// conformance suites' fleetq side and the admission integration test.
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { MUTATE_JOBSET_PATH, VALIDATE_JOBSET_PATH } from '../../../shared/admission/admission-review.js';
import type { AdmissionLog } from '../../../shared/admission/server.js';
import { startAdmissionWebhooks } from './admission-webhooks.js';

/** The name of both webhook configurations. */
export const JOBSET_WEBHOOK_CONFIG = 'fleetq-jobset-admission';

const JOBSET_GROUP = 'jobset.x-k8s.io';

export type JobSetAdmissionOptions = {
  /** The sandbox root whose CA the cluster's apiserver trusts (its pki/ folder). */
  readonly root: string;
  readonly kc: KubeConfig;
  /** Which webhooks to register (default both). */
  readonly webhooks?: readonly ('mutate' | 'validate')[];
  readonly log?: AdmissionLog;
  /**
   * A namespace to prove the configurations took effect in: a dry-run create of a JobSet there must come back
   * defaulted (the apiserver picks up new webhook configurations a moment later). Skipped when absent.
   */
  readonly probeNamespace?: string;
  /** Name of the webhook configurations (default JOBSET_WEBHOOK_CONFIG): one per cluster. */
  readonly configName?: string;
};

export type RunningJobSetAdmission = {
  readonly port: number;
  /** The sandbox CA, base64 PEM, as the configurations' caBundle. */
  readonly caBundle: string;
  /** Deletes the webhook configurations (they would refuse every JobSet once the server is gone), then closes. */
  stop(): Promise<void>;
};

type Webhook = {
  name: string;
  admissionReviewVersions: string[];
  sideEffects: string;
  failurePolicy: string;
  clientConfig: { url: string; caBundle: string };
  rules: Array<{ apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[] }>;
};

/** One webhook of fleetq's admission function for JobSets: `path` on the server at `port`. */
export function jobSetWebhook(
  name: string,
  port: number,
  path: string,
  operations: readonly string[],
  caBundle: string,
): Webhook {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle },
    rules: [
      { apiGroups: [JOBSET_GROUP], apiVersions: ['v1alpha2'], resources: ['jobsets'], operations: [...operations] },
    ],
  };
}

/** A JobSet with no defaults (one replicatedJob), for the dry-run probe. */
function probeJobSet(namespace: string): KubernetesObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: `${JOBSET_GROUP}/v1alpha2`,
    kind: 'JobSet',
    metadata: { name: 'fleetq-admission-probe', namespace },
    spec: {
      replicatedJobs: [
        {
          name: 'probe',
          replicas: 1,
          template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } } } },
        },
      ],
    },
  };
}

/** Serves fleetq's JobSet admission for the cluster of `kc` and registers its webhook configurations. */
export async function startJobSetAdmission(o: JobSetAdmissionOptions): Promise<RunningJobSetAdmission> {
  const name = o.configName ?? JOBSET_WEBHOOK_CONFIG;
  const wanted = o.webhooks ?? ['mutate', 'validate'];
  const objects = KubernetesObjectApi.makeApiClient(o.kc);
  const namespace = o.probeNamespace;
  return startAdmissionWebhooks({
    root: o.root,
    kc: o.kc,
    ...(o.log !== undefined && { log: o.log }),
    tlsName: 'fleetq-admission',
    configurations: (port, caBundle) => {
      const configurations: KubernetesObject[] = [];
      if (wanted.includes('mutate'))
        configurations.push({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name },
          webhooks: [jobSetWebhook('mjobset.kb.io', port, MUTATE_JOBSET_PATH, ['CREATE'], caBundle)],
        } as KubernetesObject);
      if (wanted.includes('validate'))
        configurations.push({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name },
          webhooks: [jobSetWebhook('vjobset.kb.io', port, VALIDATE_JOBSET_PATH, ['CREATE', 'UPDATE'], caBundle)],
        } as KubernetesObject);
      return configurations;
    },
    ...(namespace !== undefined &&
      wanted.includes('mutate') && {
        ready: {
          check: async () => {
            const probe = (await objects.create(probeJobSet(namespace), undefined, 'All')) as {
              spec: Record<string, unknown>;
            };
            return probe.spec.successPolicy !== undefined;
          },
          describe: 'the JobSet webhook configurations to take effect',
        },
      }),
  });
}

/**
 * The values without empty ones (null, {}, []), recursively: upstream's webhook re-encodes the Go object (adding
 * `resources: {}` and the like), fleetq's patches only the defaulted fields; compare admitted specs through this.
 */
export function withoutEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmpty(x);
    const empty = y === null || (typeof y === 'object' && Object.keys(y as object).length === 0);
    if (!empty) out[k] = y;
  }
  return out;
}
