// LeaderWorkerSet's upstream controller (sigs.k8s.io/lws, its manager `sigs.k8s.io/lws/cmd` built by
// build-addons.sh) as a sandbox add-on on upstream-mode clusters, built the way JobSet's is (jobset-controller.ts):
// a process on 127.0.0.1 against the cluster's apiserver, next to kube-controller-manager, whose StatefulSet
// controller runs the StatefulSets it makes. Its own certificate management (cmd/main.go starts pkg/cert's
// rotator, which keeps a Secret and patches the webhook configurations in-cluster, only when
// `internalCertManagement.enable` is true) is off; its webhook server serves a certificate of the sandbox CA, and
// the webhook configurations are upstream's own (config/webhook/ of the module, with its kustomization's patches,
// named `lws-…` as upstream's install names them) with each `clientConfig.service` replaced by
// `url: https://127.0.0.1:<port><path>` and the sandbox CA as `caBundle`.
// The manager registers its DisaggregatedSet controller and webhook unconditionally, so both of the module's CRDs
// are applied before it starts.
// Upstream-mode clusters run it only when their spec asks (kind-options.ts ADD_ONS_ON_REQUEST).
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { GoModuleFile } from '../../shared/controllers/descriptor.js';
import type { AddOnCommand, AddOnContext } from './kind-options.js';
import { admitsThroughWebhooks, loopbackManager } from './loopback-manager.js';
import { upstreamWebhookConfigurations, type WebhookConfiguration } from './upstream-webhooks.js';

/** The module and version the manager is built from (LWS_VERSION in build-addons.sh): change both together. */
export const LWS_MODULE = { module: 'sigs.k8s.io/lws', version: 'v0.9.0' } as const;

/** Upstream's CRD of LeaderWorkerSet (what LeaderWorkerSet's descriptor names, in both modes). */
export const LWS_CRD: GoModuleFile = {
  ...LWS_MODULE,
  path: 'config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml',
};

/** Upstream's CRD of DisaggregatedSet, whose controller the manager starts unconditionally (upstream side only). */
export const DISAGGREGATEDSET_CRD: GoModuleFile = {
  ...LWS_MODULE,
  path: 'config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml',
};

/** The name of the add-on (ADD_ON_COMMANDS, build-addons.sh). */
export const LWS_CONTROLLER = 'lws-controller';

const WEBHOOK_DIR = 'config/webhook';

export async function lwsController(ctx: AddOnContext): Promise<AddOnCommand> {
  // The Configuration is read strictly by upstream's pkg/config; cmd/main.go takes metrics.bindAddress ("0": off)
  // when --metrics-bind-address is not given.
  const manager = await loopbackManager(ctx, LWS_CONTROLLER, 'config.lws.x-k8s.io/v1alpha1');
  return {
    command: manager.command,
    args: manager.args,
    crds: [LWS_CRD, DISAGGREGATEDSET_CRD],
    readyUrl: manager.readyUrl,
    webhooks: lwsWebhookConfigurations(manager.webhookBase, manager.caBundle),
    admits: admitsLeaderWorkerSets,
  };
}

/** Upstream's webhook configurations, served at `base` with `caBundle` (base64 PEM), named `lws-…`. */
export function lwsWebhookConfigurations(base: string, caBundle: string): WebhookConfiguration[] {
  return upstreamWebhookConfigurations({ ...LWS_MODULE, dir: WEBHOOK_DIR, namePrefix: 'lws-' }, base, caBundle);
}

/**
 * The apiserver admits LeaderWorkerSets through the webhooks: a dry-run create of one of size 0 is refused by the
 * validating webhook (the CRD's schema has no minimum), and a dry-run create of a valid one comes back with the
 * mutating webhook's defaults (the CRD defaults no `networkConfig`; the webhook sets subdomainPolicy Shared).
 */
async function admitsLeaderWorkerSets(kc: KubeConfig): Promise<boolean> {
  const probe = (size: number): KubernetesObject & { spec: unknown } => ({
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'sandbox-admission-probe', namespace: 'default' },
    spec: {
      replicas: 1,
      leaderWorkerTemplate: {
        size,
        workerTemplate: { spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] } },
      },
    },
  });
  return admitsThroughWebhooks<KubernetesObject & { spec?: { networkConfig?: { subdomainPolicy?: string } } }>(kc, {
    refused: probe(0),
    refusal: 'size must be equal or greater than 1',
    admitted: probe(2),
    defaulted: (created) => created.spec?.networkConfig?.subdomainPolicy === 'Shared',
  });
}
