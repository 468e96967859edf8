// The API resources the forwarder watches, which of them each owned kind needs, and how to list one page of
// each across all namespaces with the typed clients (and every page, following continue tokens).
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  type V1ListMeta,
} from '@kubernetes/client-node';
import type { Kind } from '../kube/kinds.js';

export const Resource = {
  Deployments: 'deployments',
  ReplicaSets: 'replicasets',
  StatefulSets: 'statefulsets',
  DaemonSets: 'daemonsets',
  Jobs: 'jobs',
  CronJobs: 'cronjobs',
  Pods: 'pods',
  ControllerRevisions: 'controllerrevisions',
  PersistentVolumeClaims: 'persistentvolumeclaims',
  Nodes: 'nodes',
  ConfigMaps: 'configmaps',
} as const;
export type Resource = (typeof Resource)[keyof typeof Resource];

/** What the mapping reads of an object: identity, labels, annotations, owners, and the spec's selector. */
export type KubeObject = KubernetesObject & { spec?: unknown; status?: unknown };

/** The workload resources, each holding one kind fleetq can own. */
export const WORKLOAD_KIND: Readonly<Partial<Record<Resource, Kind>>> = {
  deployments: 'Deployment',
  replicasets: 'ReplicaSet',
  statefulsets: 'StatefulSet',
  daemonsets: 'DaemonSet',
  jobs: 'Job',
  cronjobs: 'CronJob',
};

/** The object kind each resource holds. */
export const RESOURCE_KIND: Readonly<Record<Resource, string>> = {
  deployments: 'Deployment',
  replicasets: 'ReplicaSet',
  statefulsets: 'StatefulSet',
  daemonsets: 'DaemonSet',
  jobs: 'Job',
  cronjobs: 'CronJob',
  pods: 'Pod',
  controllerrevisions: 'ControllerRevision',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  nodes: 'Node',
  configmaps: 'ConfigMap',
};

const WATCH_PATH: Readonly<Record<Resource, string>> = {
  deployments: '/apis/apps/v1/deployments',
  replicasets: '/apis/apps/v1/replicasets',
  statefulsets: '/apis/apps/v1/statefulsets',
  daemonsets: '/apis/apps/v1/daemonsets',
  controllerrevisions: '/apis/apps/v1/controllerrevisions',
  jobs: '/apis/batch/v1/jobs',
  cronjobs: '/apis/batch/v1/cronjobs',
  pods: '/api/v1/pods',
  persistentvolumeclaims: '/api/v1/persistentvolumeclaims',
  nodes: '/api/v1/nodes',
  configmaps: '/api/v1/configmaps',
};

export function watchPath(resource: Resource): string {
  return WATCH_PATH[resource];
}

/** The resource holding each kind's own objects (what a resync lists). */
export const PRIMARY_RESOURCE: Readonly<Record<Kind, Resource>> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
  DaemonSet: 'daemonsets',
  Job: 'jobs',
  CronJob: 'cronjobs',
  ConfigMap: 'configmaps',
};

/** Everything a controller of each kind reacts to (upstream's informers for that controller). */
export const WATCHES: Readonly<Record<Kind, readonly Resource[]>> = {
  Deployment: ['deployments', 'replicasets', 'pods'],
  ReplicaSet: ['replicasets', 'pods'],
  StatefulSet: ['statefulsets', 'pods', 'controllerrevisions', 'persistentvolumeclaims'],
  DaemonSet: ['daemonsets', 'pods', 'nodes', 'controllerrevisions'],
  Job: ['jobs', 'pods'],
  CronJob: ['cronjobs', 'jobs'],
  ConfigMap: ['configmaps'],
};

const ORDER = Object.values(Resource);

/** The resources to watch for a cluster owning `owns`, each once, workloads before their dependents. */
export function watchedResources(owns: Iterable<Kind>): Resource[] {
  const wanted = new Set<Resource>();
  for (const kind of owns) for (const r of WATCHES[kind]) wanted.add(r);
  return ORDER.filter((r) => wanted.has(r));
}

/** Owned kinds that watch `resource` without it being their own (a relist of it must wake them all). */
export function dependentKinds(resource: Resource, owns: Iterable<Kind>): Kind[] {
  return [...owns].filter((k) => PRIMARY_RESOURCE[k] !== resource && WATCHES[k].includes(resource));
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

export function makeLister(kc: KubeConfig): Lister {
  const apps = kc.makeApiClient(AppsV1Api);
  const batch = kc.makeApiClient(BatchV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const call = (resource: Resource, p: { limit: number; _continue?: string }): Promise<List> => {
    switch (resource) {
      case 'deployments':
        return apps.listDeploymentForAllNamespaces(p);
      case 'replicasets':
        return apps.listReplicaSetForAllNamespaces(p);
      case 'statefulsets':
        return apps.listStatefulSetForAllNamespaces(p);
      case 'daemonsets':
        return apps.listDaemonSetForAllNamespaces(p);
      case 'controllerrevisions':
        return apps.listControllerRevisionForAllNamespaces(p);
      case 'jobs':
        return batch.listJobForAllNamespaces(p);
      case 'cronjobs':
        return batch.listCronJobForAllNamespaces(p);
      case 'pods':
        return core.listPodForAllNamespaces(p);
      case 'persistentvolumeclaims':
        return core.listPersistentVolumeClaimForAllNamespaces(p);
      case 'nodes':
        return core.listNode(p);
      case 'configmaps':
        return core.listConfigMapForAllNamespaces(p);
    }
  };
  return async (resource, page) => {
    const list = await call(resource, {
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
