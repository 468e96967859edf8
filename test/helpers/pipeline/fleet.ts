// Registry files and object helpers for pipeline e2e tests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { freePort } from '../../../infra/sandbox/process.js';

export type RegistryEntry = Record<string, unknown> & { name: string };

/** Writes a cluster registry file into a fresh temp folder; returns its path. */
export function writeRegistry(clusters: RegistryEntry[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetq-registry-'));
  const path = join(dir, 'fleet.yaml');
  writeFileSync(path, stringify({ clusters }));
  return path;
}

/** A registry entry for a cluster nobody listens for: a closed loopback port. */
export async function unreachableCluster(name: string): Promise<RegistryEntry> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetq-unreachable-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'no-such-token');
  return {
    name,
    server: `https://127.0.0.1:${await freePort()}`,
    tokenFile,
    insecureSkipTLSVerify: true,
    allowInsecure: true,
    owns: ['ConfigMap'],
  };
}

export async function readConfigMap(kc: KubeConfig, namespace: string, name: string): Promise<V1ConfigMap | null> {
  return kc
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ namespace, name })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code === 404) return null;
      throw err;
    });
}

/** Read-modify-write with the resourceVersion as precondition (client-node 2 sends JSON Patch by default). */
export async function updateConfigMap(
  kc: KubeConfig,
  namespace: string,
  name: string,
  change: (cm: V1ConfigMap) => V1ConfigMap,
): Promise<V1ConfigMap> {
  const core = kc.makeApiClient(CoreV1Api);
  const current = await core.readNamespacedConfigMap({ namespace, name });
  return core.replaceNamespacedConfigMap({ namespace, name, body: change(current) });
}
