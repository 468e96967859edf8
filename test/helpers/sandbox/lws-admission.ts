// fleetq's LeaderWorkerSet admission (shared/admission/lws-*.ts) serving one sandbox cluster from this process, as
// jobset-admission.ts serves JobSet's: the admission server (with `serveLeaderWorkerSet`) on a loopback port with a
// serving certificate of the sandbox CA, and upstream's own webhook configurations for it (lws v0.9.0
// config/webhook/, the pod webhooks' objectSelector on the name label included: infra/sandbox/lws-controller.ts
// reads them) with each clientConfig.url pointing at it, renamed `fleetq-lws-…` so they never clash with an
// upstream install. DisaggregatedSet's webhook is left out (fleetq does not serve it). The cluster gets the
// LeaderWorkerSet CRD first (installing it again changes nothing). Used where a fleetq-mode cluster must admit
// LeaderWorkerSets and their pods as an upstream-mode one with the LWS manager does: the conformance suites'
// fleetq side.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startAdmissionServer, type AdmissionLog } from '../../../shared/admission/server.js';
import { installCrds } from '../../../infra/sandbox/crds.js';
import { LWS_CRD, lwsWebhookConfigurations } from '../../../infra/sandbox/lws-controller.js';
import { ensurePki, issueServingCert } from '../../../infra/sandbox/pki.js';
import { waitFor } from '../../../infra/sandbox/process.js';

/** The prefix of both webhook configurations' names (upstream's install names them `lws-…`). */
export const LWS_WEBHOOK_CONFIG_PREFIX = 'fleetq-lws-';

export type LwsAdmissionOptions = {
  /** The sandbox root whose CA the cluster's apiserver trusts (its pki/ folder). */
  readonly root: string;
  readonly kc: KubeConfig;
  readonly log?: AdmissionLog;
  /**
   * A namespace to prove the configurations took effect in: a dry-run create of a LeaderWorkerSet there must come
   * back defaulted (subdomainPolicy Shared: the CRD's schema defaults no networkConfig). Skipped when absent.
   */
  readonly probeNamespace?: string;
};

export type RunningLwsAdmission = {
  readonly port: number;
  /** Deletes the webhook configurations (they would refuse every LWS and its pods once the server is gone), then closes. */
  stop(): Promise<void>;
};

/** A LeaderWorkerSet without defaults, for the dry-run probe. */
function probeLeaderWorkerSet(namespace: string): KubernetesObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'fleetq-lws-admission-probe', namespace },
    spec: {
      replicas: 1,
      leaderWorkerTemplate: {
        size: 2,
        workerTemplate: { spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } },
      },
    },
  };
}

/** Serves fleetq's LeaderWorkerSet admission for the cluster of `kc` and registers its webhook configurations. */
export async function startLwsAdmission(o: LwsAdmissionOptions): Promise<RunningLwsAdmission> {
  await installCrds(o.kc, [LWS_CRD]);
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
  const caBundle = readFileSync(pki.caCert).toString('base64');
  const configurations = lwsWebhookConfigurations(`https://127.0.0.1:${server.port}`, caBundle).map((c) => ({
    ...c,
    metadata: { ...c.metadata, name: `${LWS_WEBHOOK_CONFIG_PREFIX}${(c.metadata?.name ?? '').replace(/^lws-/, '')}` },
    webhooks: (c.webhooks ?? []).filter((w) => !(w.clientConfig?.url ?? '').includes('disaggregatedset')),
  }));
  const objects = KubernetesObjectApi.makeApiClient(o.kc);
  const unregister = async (): Promise<void> => {
    for (const c of configurations) await objects.delete(c).catch(() => undefined);
  };
  const stop = async (): Promise<void> => {
    await unregister();
    await server.close();
  };
  try {
    // A configuration left by an earlier run that died (pointing at a port nobody serves) is replaced.
    await unregister();
    for (const c of configurations) await objects.create(c);
    const namespace = o.probeNamespace;
    if (namespace !== undefined)
      await waitFor(
        async () => {
          const probe = (await objects
            .create(probeLeaderWorkerSet(namespace), undefined, 'All')
            .catch(() => undefined)) as { spec?: { networkConfig?: { subdomainPolicy?: string } } } | undefined;
          return probe?.spec?.networkConfig?.subdomainPolicy === 'Shared';
        },
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
