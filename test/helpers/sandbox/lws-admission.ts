// fleetq's LeaderWorkerSet admission (shared/admission/lws-*.ts, the server's `serveLeaderWorkerSet`) serving one
// fleetq-mode sandbox cluster from this process (admission-webhooks.ts, as jobset-admission.ts serves JobSet's):
// the admission server on a loopback port with a serving certificate of the sandbox CA, and the webhook
// configurations fleetq ships for it (infra/k8s/components/leaderworkerset-admission/webhooks.yaml: their names,
// rules, selectors and failure policies as a user installs them), each Service client turned into the URL of this
// server. The cluster gets the LeaderWorkerSet CRD first (installing it again changes nothing). A fleetq-mode
// cluster then admits LeaderWorkerSets and their pods as an upstream-mode one does with the LWS manager's
// webhooks. Used by the conformance suites' fleetq side and LWS's own e2e suite (test/upstream-e2e/lws.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { AdmissionLog } from '../../../shared/admission/server.js';
import { installCrds } from '../../../infra/sandbox/crds.js';
import { admitsThroughWebhooks } from '../../../infra/sandbox/loopback-manager.js';
import { LWS_CRD } from '../../../infra/sandbox/lws-controller.js';
import { REPO_ROOT } from '../../../infra/sandbox/sandbox.js';
import { startAdmissionWebhooks } from './admission-webhooks.js';

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

export type LwsAdmissionOptions = {
  /** The sandbox root whose CA the cluster's apiserver trusts (its pki/ folder). */
  readonly root: string;
  readonly kc: KubeConfig;
  readonly log?: AdmissionLog;
  /**
   * A namespace to prove the configurations took effect in: there a dry-run create of a LeaderWorkerSet of size 0
   * must be refused and one of size 2 come back defaulted (subdomainPolicy Shared: the CRD's schema defaults no
   * networkConfig). Skipped when absent.
   */
  readonly probeNamespace?: string;
};

export type RunningLwsAdmission = {
  readonly port: number;
  /** Deletes the webhook configurations (they would refuse every LWS and its pods once the server is gone), then closes. */
  stop(): Promise<void>;
};

/** A LeaderWorkerSet of `size` without defaults, for the dry-run probes (size 0 is refused by the validating webhook). */
function probe(namespace: string, size: number): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'fleetq-lws-admission-probe', namespace },
    spec: {
      replicas: 1,
      leaderWorkerTemplate: {
        size,
        workerTemplate: { spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } },
      },
    },
  };
}

/** Serves fleetq's LeaderWorkerSet admission for the cluster of `kc` and registers the shipped configurations. */
export async function startLwsAdmission(o: LwsAdmissionOptions): Promise<RunningLwsAdmission> {
  await installCrds(o.kc, [LWS_CRD]);
  const namespace = o.probeNamespace;
  const { port, stop } = await startAdmissionWebhooks({
    root: o.root,
    kc: o.kc,
    ...(o.log !== undefined && { log: o.log }),
    tlsName: 'fleetq-lws-admission',
    serveLeaderWorkerSet: true,
    configurations: (p, caBundle) => shippedWebhooks(`https://127.0.0.1:${p}`, caBundle),
    ...(namespace !== undefined && {
      ready: {
        check: () =>
          admitsThroughWebhooks<KubernetesObject & { spec?: { networkConfig?: { subdomainPolicy?: string } } }>(o.kc, {
            refused: probe(namespace, 0),
            refusal: 'size must be equal or greater than 1',
            admitted: probe(namespace, 2),
            defaulted: (created) => created.spec?.networkConfig?.subdomainPolicy === 'Shared',
          }),
        describe: 'the LeaderWorkerSet webhook configurations to take effect',
      },
    }),
  });
  return { port, stop };
}
