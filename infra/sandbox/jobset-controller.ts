// JobSet's upstream controller (sigs.k8s.io/jobset, its manager built by build-addons.sh) as a sandbox add-on on
// upstream-mode clusters: a process on 127.0.0.1 against the cluster's apiserver, with its admission webhooks
// reached by URL. The manager's own certificate management (a Secret and Service it rotates in-cluster) is off;
// its webhook server serves a certificate of the sandbox CA instead, and the webhook configurations are
// upstream's own manifests (read from the module) with each `clientConfig.service` replaced by
// `url: https://127.0.0.1:<port><path>` and the sandbox CA as `caBundle`.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { GoModuleFile } from '../../shared/controllers/descriptor.js';
import { jobSetDescriptor } from '../../shared/controllers/jobset/descriptor.js';
import type { AddOnCommand, AddOnContext } from './kind-options.js';
import { admitsThroughWebhooks, loopbackManager } from './loopback-manager.js';
import { upstreamWebhookConfigurations, type WebhookConfiguration } from './upstream-webhooks.js';

/** Upstream's CRD of JobSet, as JobSet's descriptor names it. */
export const JOBSET_CRD: GoModuleFile = jobSetCrd();

/** The module and version of that CRD, which build-addons.sh builds too (JOBSET_VERSION there): all three agree. */
export const JOBSET_MODULE = { module: JOBSET_CRD.module, version: JOBSET_CRD.version } as const;

function jobSetCrd(): GoModuleFile {
  const crd = jobSetDescriptor.crd;
  if (crd === undefined || crd instanceof URL) throw new Error("JobSet's descriptor must name upstream's CRD file");
  return crd;
}

/** The name of the add-on (ADD_ON_COMMANDS, build-addons.sh). */
export const JOBSET_CONTROLLER = 'jobset-controller';

const WEBHOOK_DIR = 'config/components/webhook';

export async function jobsetController(ctx: AddOnContext): Promise<AddOnCommand> {
  const manager = await loopbackManager(ctx, JOBSET_CONTROLLER, 'config.jobset.x-k8s.io/v1alpha1');
  return {
    command: manager.command,
    args: manager.args,
    readyUrl: manager.readyUrl,
    webhooks: webhookConfigurations(manager.webhookBase, manager.caBundle),
    admits: admitsJobSets,
  };
}

/**
 * Upstream's webhook configurations (the module's manifests with its kustomization's patches applied), served
 * at `base` with `caBundle` (base64 PEM); named `jobset-…` as upstream's install names them.
 */
export function webhookConfigurations(base: string, caBundle: string): WebhookConfiguration[] {
  return upstreamWebhookConfigurations({ ...JOBSET_MODULE, dir: WEBHOOK_DIR, namePrefix: 'jobset-' }, base, caBundle);
}

/**
 * The apiserver admits JobSets through the webhooks: a dry-run create of a JobSet naming a replicated job it
 * does not have is refused by the validating webhook (the CRD's schema accepts it), and a dry-run create of a
 * valid one comes back with the mutating webhook's defaults (the CRD has none for `network`).
 */
async function admitsJobSets(kc: KubeConfig): Promise<boolean> {
  const probe = (targets?: string[]): KubernetesObject & { spec: unknown } => ({
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: 'sandbox-admission-probe', namespace: 'default' },
    spec: {
      ...(targets && { successPolicy: { operator: 'All', targetReplicatedJobs: targets } }),
      replicatedJobs: [
        {
          name: 'a',
          replicas: 1,
          template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] } } } },
        },
      ],
    },
  });
  return admitsThroughWebhooks<KubernetesObject & { spec?: { network?: { enableDNSHostnames?: boolean } } }>(kc, {
    refused: probe(['missing']),
    refusal: 'does not appear in',
    admitted: probe(),
    defaulted: (created) => created.spec?.network?.enableDNSHostnames === true,
  });
}
