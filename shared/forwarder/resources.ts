// The API resources the forwarder watches (derived from the controllers' watch descriptors and the resource
// table, shared/controllers/index.ts), and how to list one page of each across all namespaces with the typed
// clients (and every page, following continue tokens).
import { AppsV1Api, BatchV1Api, CoreV1Api, type KubeConfig, type V1ListMeta } from '@kubernetes/client-node';
import { DESCRIPTORS } from '../controllers/index.js';
import type { DescriptorRegistry } from '../controllers/descriptor-registry.js';
import type { KubeObject } from '../kube/meta/object.js';
import { resourcePath } from '../kube/resources.js';

/** An API resource by its plural, as the resource table names it ('pods', 'replicasets', …). */
export type Resource = string;

export type { KubeObject };

/** The object kind a resource holds. */
export function kindOfResource(resource: Resource, descriptors: DescriptorRegistry = DESCRIPTORS): string {
  return descriptors.kindOf(resource);
}

export function watchPath(resource: Resource, descriptors: DescriptorRegistry = DESCRIPTORS): string {
  return resourcePath(descriptors.resourceOf(descriptors.kindOf(resource)));
}

/** The resources to watch for a cluster owning `owns`, each once, workloads before their dependents. */
export function watchedResources(owns: Iterable<string>, descriptors: DescriptorRegistry = DESCRIPTORS): Resource[] {
  return descriptors.watchedResources(owns);
}

/** Owned kinds that watch `resource` without it being their own (a relist of it must wake them all). */
export function dependentKinds(
  resource: Resource,
  owns: Iterable<string>,
  descriptors: DescriptorRegistry = DESCRIPTORS,
): string[] {
  return descriptors.dependentKinds(resource, owns);
}

export type ObjectPage = {
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
};
export type PageRequest = { readonly limit: number; readonly continueToken?: string };
/** Lists one page of a resource across all namespaces. */
export type Lister = (resource: Resource, page: PageRequest) => Promise<ObjectPage>;

export type FullList = {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  /** Items dropped for not being objects with metadata (a list is untrusted input too). */
  readonly skipped: number;
};

/** An object with a metadata object: the least the mapping, the index and the event log need. */
export function isKubeObject(value: unknown): value is KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const metadata = (value as { metadata?: unknown }).metadata;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
}

/**
 * Every page of a resource, following the continue token until the last page; starts over from the first page
 * when a continue token has expired (410). All pages are one snapshot: the resourceVersion is the first page's.
 */
export async function listAll(
  lister: Lister,
  resource: Resource,
  pageSize: number,
  isExpired: (err: unknown) => boolean,
): Promise<FullList> {
  const items: KubeObject[] = [];
  let skipped = 0;
  let continueToken: string | undefined;
  let resourceVersion = '';
  do {
    try {
      const page = await lister(resource, {
        limit: pageSize,
        ...(continueToken === undefined ? {} : { continueToken }),
      });
      for (const item of Array.isArray(page.items) ? page.items : []) {
        if (isKubeObject(item)) items.push(item);
        else skipped++;
      }
      if (continueToken === undefined) resourceVersion = page.resourceVersion;
      continueToken = page.continueToken;
    } catch (err) {
      if (continueToken === undefined || !isExpired(err)) throw err;
      items.length = 0;
      skipped = 0;
      continueToken = undefined;
    }
  } while (continueToken !== undefined);
  return { items, resourceVersion, skipped };
}

type List = { items: readonly KubeObject[]; metadata?: V1ListMeta };
type ListParams = { limit: number; _continue?: string };
type ListCall = (p: ListParams) => Promise<List>;

/**
 * Lists with the typed clients, found by client-node's naming: `list<Kind>ForAllNamespaces` of the group's
 * API class (`list<Kind>` for a cluster-scoped kind). A resource of another group has no typed client here.
 */
export function makeLister(kc: KubeConfig, descriptors: DescriptorRegistry = DESCRIPTORS): Lister {
  const clients: Readonly<Record<string, object>> = {
    '': kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
  };
  const call = (resource: Resource): ListCall => {
    const info = descriptors.resourceOf(descriptors.kindOf(resource));
    const client = clients[info.group] as Record<string, unknown> | undefined;
    const method = info.namespaced ? `list${info.kind}ForAllNamespaces` : `list${info.kind}`;
    const fn = client?.[method];
    if (typeof fn !== 'function') throw new Error(`no typed client lists ${resource} (${info.apiVersion})`);
    return (p) => (fn as (p: ListParams) => Promise<List>).call(client, p);
  };
  return async (resource, page) => {
    const list = await call(resource)({
      limit: page.limit,
      ...(page.continueToken === undefined ? {} : { _continue: page.continueToken }),
    });
    // The typed clients deserialize ListMeta's `continue` as `_continue`; raw JSON keeps `continue`.
    const meta = list.metadata as (V1ListMeta & { continue?: string }) | undefined;
    const next = meta?._continue ?? meta?.continue;
    return {
      items: list.items,
      resourceVersion: list.metadata?.resourceVersion ?? '',
      ...(next ? { continueToken: next } : {}),
    };
  };
}
