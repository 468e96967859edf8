// The run both sandbox admission helpers (jobset-admission.ts, lws-admission.ts) share: fleetq's admission server
// on a loopback port with a serving certificate of the sandbox CA, webhook configurations calling it registered
// with one cluster's apiserver (any left by an earlier run that died replaced), and a wait until the apiserver
// admits through them. Stopping deletes the configurations first: with the server gone they would refuse every
// object they select.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startAdmissionServer, type AdmissionLog } from '../../../shared/admission/server.js';
import { ensurePki, issueServingCert } from '../../../infra/sandbox/pki.js';
import { waitFor } from '../../../infra/sandbox/process.js';

export type AdmissionWebhooksOptions = {
  /** The sandbox root whose CA the cluster's apiserver trusts (its pki/ folder). */
  readonly root: string;
  readonly kc: KubeConfig;
  readonly log?: AdmissionLog;
  /** The serving certificate's name (and its folder under `root`, `<tlsName>-tls`). */
  readonly tlsName: string;
  /** Serve LeaderWorkerSet's paths too (the server's `serveLeaderWorkerSet`). */
  readonly serveLeaderWorkerSet?: boolean;
  /** The configurations to register, calling the server at 127.0.0.1:`port` with `caBundle` (base64 PEM). */
  readonly configurations: (port: number, caBundle: string) => KubernetesObject[];
  /** True once the apiserver admits through the configurations; waited for (30 s) when given. */
  readonly ready?: { readonly check: () => Promise<boolean>; readonly describe: string };
};

export type RunningAdmissionWebhooks = {
  readonly port: number;
  /** The sandbox CA, base64 PEM, as the configurations' caBundle. */
  readonly caBundle: string;
  /** Deletes the webhook configurations, then closes the server. */
  stop(): Promise<void>;
};

/** Serves fleetq's admission for the cluster of `o.kc` and registers `o.configurations` calling it. */
export async function startAdmissionWebhooks(o: AdmissionWebhooksOptions): Promise<RunningAdmissionWebhooks> {
  const pki = ensurePki(o.root);
  const tls = issueServingCert(pki, join(o.root, `${o.tlsName}-tls`), o.tlsName);
  const server = await startAdmissionServer({
    port: 0,
    host: '127.0.0.1',
    cert: readFileSync(join(tls, 'tls.crt')),
    key: readFileSync(join(tls, 'tls.key')),
    ...(o.serveLeaderWorkerSet === true && { serveLeaderWorkerSet: true }),
    ...(o.log !== undefined && { log: o.log }),
  });
  const caBundle = readFileSync(pki.caCert).toString('base64');
  const configurations = o.configurations(server.port, caBundle);
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
    if (o.ready !== undefined) await waitFor(o.ready.check, 30_000, 200, o.ready.describe);
  } catch (err) {
    await stop();
    throw err;
  }
  return { port: server.port, caBundle, stop };
}
