// CustomResourceDefinitions on a sandbox cluster: applied with server-side apply (idempotent: a cluster that has
// them changes nothing), then waited for until each is Established and its resource is served (a list of it
// answers 200), so a kind's controller, forwarder or scenario started next finds the API there. A CRD file is a
// path, a file URL, or a file of a Go module at a pinned version (go-module.ts: upstream's own manifest).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { CrdSource } from '../../shared/controllers/descriptor.js';
import { serverSideApply } from './apply.js';
import { goModuleFilePath, isGoModuleFile } from './go-module.js';
import { waitFor } from './process.js';

/** A CRD file: a local path, or a descriptor's source (a repository file URL, a Go module's file). */
export type CrdFile = string | CrdSource;

/** The local path of a CRD file. */
export function crdFilePath(file: CrdFile): string {
  if (typeof file === 'string') return file;
  if (file instanceof URL) return fileURLToPath(file);
  if (isGoModuleFile(file)) return goModuleFilePath(file);
  throw new Error(`not a CRD file: ${JSON.stringify(file)}`);
}

const FIELD_MANAGER = 'fleetq-sandbox';

type Crd = KubernetesObject & {
  spec?: {
    group?: string;
    names?: { plural?: string; kind?: string };
    scope?: string;
    versions?: Array<{ name?: string; served?: boolean }>;
  };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
};

/** The CRDs of YAML files (multi-document; other kinds of object are refused: this installs APIs only). */
export function readCrds(files: readonly CrdFile[]): Crd[] {
  return files.flatMap((file) => {
    const path = crdFilePath(file);
    return parseAllDocuments(readFileSync(path, 'utf8')).flatMap((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: not valid YAML: ${doc.errors[0]?.message ?? ''}`);
      const object = doc.toJS() as Crd | null;
      if (object === null) return [];
      if (object.kind !== 'CustomResourceDefinition' || object.metadata?.name === undefined)
        throw new Error(`${path}: holds a ${String(object.kind)}, not a named CustomResourceDefinition`);
      return [object];
    });
  });
}

/** The path listing a CRD's objects in every namespace, at its first served version. */
export function listPath(crd: Crd): string {
  const version = crd.spec?.versions?.find((v) => v.served !== false)?.name;
  if (!crd.spec?.group || !crd.spec.names?.plural || !version)
    throw new Error(`CustomResourceDefinition ${crd.metadata?.name}: no group, plural or served version`);
  return `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`;
}

/** Applies the CRDs of `files` and waits until each is Established and served; returns their names. */
export async function installCrds(kc: KubeConfig, files: readonly CrdFile[], timeoutMs = 60_000): Promise<string[]> {
  const crds = readCrds(files);
  if (crds.length === 0) return [];
  const objects = KubernetesObjectApi.makeApiClient(kc);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    await serverSideApply(kc, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd, FIELD_MANAGER);
  }
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    await waitFor(
      async () => {
        const live = (await objects.read({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name },
        })) as Crd;
        const established = (live.status?.conditions ?? []).some(
          (c) => c.type === 'Established' && c.status === 'True',
        );
        return established && (await isServed(objects, crd));
      },
      timeoutMs,
      200,
      `CustomResourceDefinition ${name} to be established and served`,
    );
  }
  return crds.map((c) => c.metadata?.name ?? '');
}

/** The apiserver serves the CRD's resource: a list of it (found by discovery, as any client finds it) answers. */
async function isServed(objects: KubernetesObjectApi, crd: Crd): Promise<boolean> {
  const version = crd.spec?.versions?.find((v) => v.served !== false)?.name;
  const kind = crd.spec?.names?.kind;
  if (!crd.spec?.group || !version || !kind) return false;
  return objects
    .list(`${crd.spec.group}/${version}`, kind, undefined, undefined, undefined, undefined, undefined, undefined, 1)
    .then(
      () => true,
      () => false,
    );
}
