// The API resources the forwarder watches (derived from the controllers' watch descriptors and the resource
// table, shared/controllers/index.ts), and how to list one page of each across all namespaces as raw JSON
// (kube/list-page.ts: any resource with a description, a custom resource as well as a built-in kind; objects
// as a watch hands them over), and every page, following continue tokens.
import type { KubeConfig } from '@kubernetes/client-node';
import { DESCRIPTORS } from '../controllers/index.js';
import type { DescriptorRegistry } from '../controllers/descriptor-registry.js';
import { listPage } from '../kube/list-page.js';
import type { KubeObject } from '../kube/meta/object.js';
import { resourcePath, type ResourceInfo } from '../kube/resources.js';
import { KubeRest, NO_RATE_LIMIT } from '../kube/rest.js';
import { approxBytes } from './object-trim.js';

/** An API resource by its plural, as the resource table names it ('pods', 'replicasets', …). */
export type Resource = string;

/**
 * Where each resource is in the API (group, version, plural, scope): the controllers' descriptors (DESCRIPTORS,
 * the default everywhere here), or a table of any resources (resourceTable: a custom resource's).
 */
export type ResourceTable = {
  /** The kind of the objects a resource (plural) holds. */
  kindOf(resource: Resource): string;
  resourceOf(kind: string): ResourceInfo;
};

/** A table of the given resources (each kind and plural once). */
export function resourceTable(infos: readonly ResourceInfo[]): ResourceTable {
  const byKind = new Map(infos.map((i) => [i.kind, i]));
  const byPlural = new Map(infos.map((i) => [i.plural, i]));
  return {
    kindOf: (resource) => {
      const info = byPlural.get(resource);
      if (!info) throw new Error(`no kind for resource ${resource}`);
      return info.kind;
    },
    resourceOf: (kind) => {
      const info = byKind.get(kind);
      if (!info) throw new Error(`no API resource for kind ${kind}`);
      return info;
    },
  };
}

export type { KubeObject };

/** The object kind a resource holds. */
export function kindOfResource(resource: Resource, descriptors: DescriptorRegistry = DESCRIPTORS): string {
  return descriptors.kindOf(resource);
}

export function watchPath(resource: Resource, table: ResourceTable = DESCRIPTORS): string {
  return resourcePath(table.resourceOf(table.kindOf(resource)));
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

/** How a list is paged: at most `pageSize` items a page, and about `maxPageBytes` bytes (learnt as it goes). */
export type PagingOptions = {
  readonly pageSize: number;
  /** Bytes a page should hold at most; the first page asks for FIRST_PAGE_LIMIT items. Default 8 MiB. */
  readonly maxPageBytes?: number;
  /** Applied to every item as it arrives, before anything holds it (object-trim.ts). */
  readonly trim?: (object: KubeObject) => KubeObject;
};

export const DEFAULT_MAX_PAGE_BYTES = 8 * 1024 * 1024;
/**
 * The first page's limit: a list of unknown objects starts small and grows (×4 a page) while its pages stay
 * under maxPageBytes, so one page of a tenant's huge objects is never parsed whole into memory.
 */
export const FIRST_PAGE_LIMIT = 10;

export type ListedPage = {
  readonly items: KubeObject[];
  /** The list's resourceVersion (its first page's). */
  readonly resourceVersion: string;
  /** The first page of the list (again after a continue token expired: what came before is superseded). */
  readonly first: boolean;
  readonly last: boolean;
  /** Items dropped for not being objects with metadata (a list is untrusted input too). */
  readonly skipped: number;
  /** About how many bytes the page's items took before trimming. */
  readonly bytes: number;
};

/** The next page's limit: as many items as fit in maxPageBytes at the average size seen so far. */
export function nextPageLimit(current: number, items: number, bytes: number, o: PagingOptions): number {
  const max = Math.max(1, o.pageSize);
  if (items === 0) return Math.min(max, current * 4);
  const fit = Math.floor((o.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES) / Math.max(1, bytes / items));
  return Math.max(1, Math.min(max, current * 4, fit));
}

/**
 * Every page of a resource, one at a time, following the continue token until the last page; starts over from
 * the first page when a continue token has expired (410). All pages are one snapshot: the resourceVersion is
 * the first page's. Nothing is kept between pages: the caller applies each before asking for the next.
 */
export async function* listPages(
  lister: Lister,
  resource: Resource,
  o: PagingOptions,
  isExpired: (err: unknown) => boolean,
): AsyncGenerator<ListedPage> {
  let continueToken: string | undefined;
  let resourceVersion = '';
  let limit = Math.min(Math.max(1, o.pageSize), FIRST_PAGE_LIMIT);
  for (;;) {
    let page: ObjectPage;
    try {
      page = await lister(resource, { limit, ...(continueToken === undefined ? {} : { continueToken }) });
    } catch (err) {
      if (continueToken === undefined || !isExpired(err)) throw err;
      continueToken = undefined;
      continue;
    }
    const first = continueToken === undefined;
    if (first) resourceVersion = page.resourceVersion;
    const items: KubeObject[] = [];
    let skipped = 0;
    let bytes = 0;
    for (const item of Array.isArray(page.items) ? page.items : []) {
      if (!isKubeObject(item)) {
        skipped++;
        continue;
      }
      bytes += approxBytes(item);
      items.push(o.trim ? o.trim(item) : item);
    }
    continueToken = page.continueToken;
    limit = nextPageLimit(limit, items.length + skipped, bytes, o);
    yield { items, resourceVersion, first, last: continueToken === undefined, skipped, bytes };
    if (continueToken === undefined) return;
  }
}

/** Every page of a resource collected (trimmed as they come): for callers that need the whole list at once. */
export async function listAll(
  lister: Lister,
  resource: Resource,
  paging: PagingOptions | number,
  isExpired: (err: unknown) => boolean,
): Promise<FullList> {
  const o = typeof paging === 'number' ? { pageSize: paging } : paging;
  let items: KubeObject[] = [];
  let skipped = 0;
  let resourceVersion = '';
  for await (const page of listPages(lister, resource, o, isExpired)) {
    if (page.first) {
      items = [];
      skipped = 0;
    }
    items.push(...page.items);
    skipped += page.skipped;
    resourceVersion = page.resourceVersion;
  }
  return { items, resourceVersion, skipped };
}

/**
 * The REST client of the forwarder's own reads (its lists, its identity check): no client-side rate limit,
 * circuit or timeout, as when they went through client-node's typed clients; the watches do not go through one
 * either. Made on first use (a KubeConfig without a current cluster throws then, not when the lister is made).
 */
export function forwarderRest(kc: KubeConfig): () => KubeRest {
  let rest: KubeRest | undefined;
  return () => (rest ??= new KubeRest(kc.getCurrentCluster()?.name ?? kc.getCurrentContext(), kc, NO_RATE_LIMIT));
}

/**
 * Lists one page of a resource across all namespaces through the REST client (a KubeConfig's: forwarderRest),
 * the resource as `table` describes it (group, version, plural, scope). No request timeout of its own (0).
 */
export function makeLister(source: KubeConfig | KubeRest, table: ResourceTable = DESCRIPTORS): Lister {
  const rest = source instanceof KubeRest ? () => source : forwarderRest(source);
  return async (resource, page) => {
    const info = table.resourceOf(table.kindOf(resource));
    const listed = await listPage(rest(), info, {
      limit: page.limit,
      ...(page.continueToken === undefined ? {} : { continueToken: page.continueToken }),
      timeoutMs: 0,
    });
    return {
      // Checked one by one by listPages and resumable lists (isKubeObject): a list is untrusted input.
      items: listed.items as KubeObject[],
      resourceVersion: listed.resourceVersion,
      ...(listed.continueToken === undefined ? {} : { continueToken: listed.continueToken }),
    };
  };
}
