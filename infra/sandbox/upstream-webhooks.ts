// An add-on's admission webhook configurations as upstream ships them (a kustomize folder of a Go module at a pinned
// version: manifests.yaml plus the JSON patches its kustomization.yaml names), made reachable from a sandbox
// apiserver: each renamed with the install's name prefix (JobSet's `jobset-`, LeaderWorkerSet's `lws-`) and each
// `clientConfig.service` replaced by `url: <base><upstream's path>` with the sandbox CA as `caBundle`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { goModuleDir } from './go-module.js';

/** Where upstream keeps its webhook manifests, and the prefix its default install adds to their names. */
export type WebhookManifests = {
  readonly module: string;
  readonly version: string;
  /** The kustomize folder, slash-separated, relative to the module's root. */
  readonly dir: string;
  readonly namePrefix: string;
};

export type WebhookConfiguration = KubernetesObject & {
  webhooks?: Array<{ clientConfig?: { service?: { path?: string }; url?: string; caBundle?: string } }>;
};

/** The configurations of `manifests`, served at `base` (`https://127.0.0.1:<port>`) with `caBundle` (base64 PEM). */
export function upstreamWebhookConfigurations(
  manifests: WebhookManifests,
  base: string,
  caBundle: string,
): WebhookConfiguration[] {
  const dir = join(goModuleDir(manifests.module, manifests.version), ...manifests.dir.split('/'));
  const what = `${manifests.module}@${manifests.version} ${manifests.dir}`;
  const objects = parseAllDocuments(readFileSync(join(dir, 'manifests.yaml'), 'utf8'))
    .map((d) => d.toJS() as WebhookConfiguration | null)
    .filter((o): o is WebhookConfiguration => o !== null);
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
    patches?: Array<{ path: string; target: { kind: string; name: string } }>;
  };
  for (const p of kustomization.patches ?? []) {
    const target = objects.find((o) => o.kind === p.target.kind && o.metadata?.name === p.target.name);
    if (target === undefined) throw new Error(`${what}: patch ${p.path}: no ${p.target.kind} ${p.target.name}`);
    const ops = parse(readFileSync(join(dir, p.path), 'utf8')) as Array<{ op: string; path: string; value: unknown }>;
    for (const op of ops) replaceAt(target, op, what);
  }
  return objects.map((o) => ({
    ...o,
    metadata: { ...o.metadata, name: `${manifests.namePrefix}${o.metadata?.name ?? ''}` },
    webhooks: (o.webhooks ?? []).map((w) => {
      const path = w.clientConfig?.service?.path;
      if (path === undefined) throw new Error(`${what}: a webhook of ${o.metadata?.name} has no service path`);
      return { ...w, clientConfig: { url: `${base}${path}`, caBundle } };
    }),
  }));
}

/** A JSON patch `replace` (the only op these patches use) at a pointer of arrays and objects. */
function replaceAt(object: object, op: { op: string; path: string; value: unknown }, what: string): void {
  if (op.op !== 'replace') throw new Error(`${what}: patch op ${op.op} is not supported`);
  const keys = op.path.split('/').slice(1);
  const last = keys.pop();
  let at: unknown = object;
  for (const k of keys) at = (at as Record<string, unknown>)[k];
  if (typeof at !== 'object' || at === null || last === undefined || !(last in at))
    throw new Error(`${what}: patch: nothing at ${op.path}`);
  (at as Record<string, unknown>)[last] = op.value;
}
