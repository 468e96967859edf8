// The read interface handlers observe through. Planners never see it; observe functions do.
import { isControlledByOrOrphan } from './meta/controller-ref.js';
import type { ApiObject } from './meta/object.js';

export type ListOptions = { readonly labelSelector?: string; readonly fieldSelector?: string };
export type ControlledOrOrphanedOptions = { readonly terminating?: boolean };

export interface ClusterView {
  readonly cluster: string;
  /**
   * null when the object does not exist. `fresh`: a quorum read from the apiserver even when reads come from a
   * cache (upstream's uncached GET before adopting: RecheckDeletionTimestamp).
   */
  get<T extends ApiObject>(
    kind: string,
    namespace: string,
    name: string,
    options?: { readonly fresh?: boolean },
  ): Promise<T | null>;
  /** namespace undefined lists across all namespaces. Every page: the whole list. */
  list<T extends ApiObject>(kind: string, namespace: string | undefined, options?: ListOptions): Promise<T[]>;
  /**
   * The objects of `namespace` whose controller reference names `controllerUid`, plus those with no controller
   * reference (orphans a selector may adopt): what claiming reads. The cache answers it from its owner and
   * orphan indexes; a live view lists the namespace and filters (so does controlledOrOrphaned() for a view
   * without it). `terminating`: also the namespace's objects being deleted, whatever controls them (the cache's
   * terminating index), each object once.
   */
  listControlledOrOrphaned?<T extends ApiObject>(
    kind: string,
    namespace: string,
    controllerUid: string,
    options?: ControlledOrOrphanedOptions,
  ): Promise<T[]>;
  /**
   * Optional: a state of the object of this name that a controller must act on even when a later event replaced it
   * (a pod's state when it was deleted, a suspended JobSet's), kept a while by a view over a cache
   * (cache/cache-entry.ts keepsState); null when none is kept, and always from a view without it (a live view keeps
   * nothing). The object now held under the name, if any, may be newer or another one (another uid).
   */
  keptState?<T extends ApiObject>(kind: string, namespace: string, name: string): Promise<T | null>;
  /**
   * Optional, with keptState: forgets the kept state of resourceVersion `resourceVersion` once the pass has seen its
   * effect; a newer one kept meanwhile stays.
   */
  dropKeptState?(kind: string, namespace: string, name: string, resourceVersion: string): Promise<void>;
  /**
   * Optional: a live count of the objects of `namespace` controlled by `controllerUid` (controller owner
   * reference) that `accept` keeps, read apart from list() for safety checks (preflight guards). Views without
   * it are counted through list(). `labelSelector` narrows the read on the server (a ReplicaSet's selector: a
   * namespace of thousands of pods is then not paged through for each check).
   */
  countControlled?<T extends ApiObject>(
    kind: string,
    namespace: string,
    controllerUid: string,
    accept?: (o: T) => boolean,
    options?: { readonly labelSelector?: string },
  ): Promise<number>;
}

/**
 * The objects of `namespace` controlled by `controllerUid` or by nothing, and with `terminating` those being deleted
 * (see listControlledOrOrphaned).
 */
export async function controlledOrOrphaned<T extends ApiObject>(
  view: ClusterView,
  kind: string,
  namespace: string,
  controllerUid: string,
  options: ControlledOrOrphanedOptions = {},
): Promise<T[]> {
  if (view.listControlledOrOrphaned) return view.listControlledOrOrphaned<T>(kind, namespace, controllerUid, options);
  return (await view.list<T>(kind, namespace)).filter((o) => isControlledOrOrphanedOr(o, controllerUid, options));
}

/** What listControlledOrOrphaned keeps of a namespace's objects. */
export function isControlledOrOrphanedOr(
  o: ApiObject,
  controllerUid: string,
  options: ControlledOrOrphanedOptions,
): boolean {
  return isControlledByOrOrphan(o, controllerUid) || (options.terminating === true && isBeingDeleted(o));
}

function isBeingDeleted(o: ApiObject): boolean {
  return typeof o.metadata?.deletionTimestamp === 'string' && o.metadata.deletionTimestamp !== '';
}
