// fleetq's LeaderWorkerSet admission (shared/admission/, `serveLeaderWorkerSet`) serving one fleetq-mode sandbox
// cluster from this process: the admission server on a loopback port with a serving certificate of the sandbox CA,
// and the webhook configurations fleetq ships for it (infra/k8s/components/leaderworkerset-admission/webhooks.yaml:
// its rules, selectors and failure policies as a user installs them), each Service client turned into the URL of
// this server. A fleetq-mode cluster then admits LeaderWorkerSets and their pods as the upstream side does with the
// LWS manager's webhooks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { admitsThroughWebhooks } from '../../infra/sandbox/loopback-manager.js';
import { ensurePki, issueServingCert } from '../../infra/sandbox/pki.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT } from '../../infra/sandbox/sandbox.js';
import { startAdmissionServer, type AdmissionLog } from '../../shared/admission/server.js';

const SHIPPED_WEBHOOKS = join(REPO_ROOT, 'infra', 'k8s', 'components', 'leaderworkerset-admission', 'webhooks.yaml');

type WebhookConfiguration = KubernetesObject & {
  webhooks?: Array<{ clientConfig?: { service?: { path?: string }; url?: string; caBundle?: string } }>;
};

/** The shipped webhook configurations, calling `base` (`https://127.0.0.1:<port>`) with `caBundle` (base64 PEM). */
export function shippedWebhooks(base: string, caBundle: string): WebhookConfiguration[] {
  return parseAllDocuments(readFileSync(SHIPPED_WEBHOOKS, 'utf8'))
    .map((d) => d.toJS() as WebhookConfiguration | null)
    .filter((c): c is WebhookConfiguration => c !== null)
    .map((c) => ({
      ...c,
      webhooks: (c.webhooks ?? []).map((w) => {
        const path = w.clientConfig?.service?.path;
        if (path === undefined)
          throw new Error(`${SHIPPED_WEBHOOKS}: a webhook of ${c.metadata?.name} has no service path`);
        return { ...w, clientConfig: { url: `${base}${path}`, caBundle } };
      }),
    }));
}

export type RunningLwsAdmission = { readonly port: number; stop(): Promise<void> };

/** A LeaderWorkerSet of `size` for the dry-run probes (size 0 is refused by the validating webhook). */
function probe(namespace: string, size: number): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'fleetq-admission-probe', namespace },
    spec: {
      replicas: 1,
      leaderWorkerTemplate: {
        size,
        workerTemplate: { spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] } },
      },
    },
  };
}

/**
 * Serves fleetq's LWS admission for the cluster of `kc`, registers the webhook configurations, and waits until the
 * apiserver admits through them (a dry-run create of size 0 refused, one of size 2 defaulted: the CRD defaults no
 * networkConfig, the mutating webhook sets subdomainPolicy Shared).
 */
export async function startLwsAdmission(o: {
  readonly root: string;
  readonly kc: KubeConfig;
  readonly log?: AdmissionLog;
  readonly probeNamespace: string;
}): Promise<RunningLwsAdmission> {
  const pki = ensurePki(o.root);
  const tls = issueServingCert(pki, join(o.root, 'fleetq-lws-admission-tls'), 'fleetq-lws-admission');
  const server = await startAdmissionServer({
    port: 0,
    host: '127.0.0.1',
    cert: readFileSync(join(tls, 'tls.crt')),
    key: readFileSync(join(tls, 'tls.key')),
    serveLeaderWorkerSet: true,
    ...(o.log !== undefined && { log: o.log }),
  });
  const configurations = shippedWebhooks(
    `https://127.0.0.1:${server.port}`,
    readFileSync(pki.caCert).toString('base64'),
  );
  const objects = KubernetesObjectApi.makeApiClient(o.kc);
  const unregister = async (): Promise<void> => {
    for (const c of configurations) await objects.delete(c).catch(() => undefined);
  };
  const stop = async (): Promise<void> => {
    // Registered configurations would refuse every LeaderWorkerSet and pod once the server is gone.
    await unregister();
    await server.close();
  };
  try {
    // A configuration left by an earlier run that died (pointing at a port nobody serves) is replaced.
    await unregister();
    for (const c of configurations) await objects.create(c);
    await waitFor(
      () =>
        admitsThroughWebhooks<KubernetesObject & { spec?: { networkConfig?: { subdomainPolicy?: string } } }>(o.kc, {
          refused: probe(o.probeNamespace, 0),
          refusal: 'size must be equal or greater than 1',
          admitted: probe(o.probeNamespace, 2),
          defaulted: (created) => created.spec?.networkConfig?.subdomainPolicy === 'Shared',
        }).catch(() => false),
      30_000,
      200,
      'the LeaderWorkerSet webhook configurations to take effect',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port: server.port, stop };
}
