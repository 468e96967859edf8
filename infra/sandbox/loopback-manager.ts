// The part of an upstream kubebuilder manager's add-on command that JobSet's and LeaderWorkerSet's share: a process
// on 127.0.0.1 against the cluster's apiserver, configured by a Configuration file of upstream's config API with no
// in-cluster cert management (its webhook server serves a certificate of the sandbox CA instead), no leader
// election (one manager per cluster), webhooks and probes on loopback ports of their own, and the metrics server off
// ("0"); and the check that the apiserver admits through its webhooks. Each add-on gives its webhook
// configurations, admission probes and CRDs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { AddOnContext } from './kind-options.js';
import { issueServingCert } from './pki.js';

export type LoopbackManager = {
  readonly command: string;
  readonly args: readonly string[];
  readonly readyUrl: string;
  /** Where the webhook server answers: `https://127.0.0.1:<port>`. */
  readonly webhookBase: string;
  /** The sandbox CA (base64 PEM), for the webhook configurations' `caBundle`. */
  readonly caBundle: string;
};

/**
 * Prepares the add-on `name`'s folder, serving certificate and Configuration file (apiVersion
 * `configApiVersion`, e.g. config.jobset.x-k8s.io/v1alpha1), and returns how to run its manager.
 */
export async function loopbackManager(
  ctx: AddOnContext,
  name: string,
  configApiVersion: string,
): Promise<LoopbackManager> {
  const home = join(ctx.dir, name);
  mkdirSync(home, { recursive: true });
  const certDir = issueServingCert(ctx.pki, join(home, 'certs'), name);
  const webhookPort = await ctx.freePort();
  const healthPort = await ctx.freePort();
  const config = join(home, 'config.yaml');
  writeFileSync(
    config,
    [
      `apiVersion: ${configApiVersion}`,
      'kind: Configuration',
      'internalCertManagement:',
      '  enable: false',
      'leaderElection:',
      '  leaderElect: false',
      'webhook:',
      '  host: 127.0.0.1',
      `  port: ${webhookPort}`,
      `  certDir: ${certDir}`,
      'health:',
      `  healthProbeBindAddress: 127.0.0.1:${healthPort}`,
      'metrics:',
      '  bindAddress: "0"',
      '',
    ].join('\n'),
  );
  return {
    command: ctx.binary,
    // --kubeconfig is controller-runtime's flag (ctrl.GetConfigOrDie); --leader-elect overrides the config file's.
    args: [`--kubeconfig=${ctx.kubeconfig}`, `--config=${config}`, '--leader-elect=false'],
    readyUrl: `http://127.0.0.1:${healthPort}/readyz`,
    webhookBase: `https://127.0.0.1:${webhookPort}`,
    caBundle: readFileSync(ctx.pki.caCert).toString('base64'),
  };
}

/**
 * True once the apiserver admits through the add-on's webhooks: a dry-run create of `refused` (which the CRD's
 * schema accepts) is refused with a message containing `refusal` by the validating webhook, and a dry-run create of
 * `admitted` comes back `defaulted` by the mutating webhook.
 */
export async function admitsThroughWebhooks<Created extends KubernetesObject>(
  kc: KubeConfig,
  probes: {
    readonly refused: KubernetesObject;
    readonly refusal: string;
    readonly admitted: KubernetesObject;
    readonly defaulted: (created: Created) => boolean;
  },
): Promise<boolean> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const refused = await objects.create(probes.refused, undefined, 'All').then(
    () => false,
    (err: unknown) => String((err as { body?: unknown }).body ?? err).includes(probes.refusal),
  );
  if (!refused) return false;
  return probes.defaulted((await objects.create(probes.admitted, undefined, 'All')) as Created);
}
