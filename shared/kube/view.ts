// The read interface handlers observe through. Planners never see it; observe functions do.
import type { KubernetesObject } from '@kubernetes/client-node';

export type ListOptions = { readonly labelSelector?: string; readonly fieldSelector?: string };

export interface ClusterView {
  readonly cluster: string;
  /** null when the object does not exist. */
  get<T extends KubernetesObject>(kind: string, namespace: string, name: string): Promise<T | null>;
  /** namespace undefined lists across all namespaces. Every page: the whole list. */
  list<T extends KubernetesObject>(kind: string, namespace: string | undefined, options?: ListOptions): Promise<T[]>;
  /**
   * Optional: a live count of the objects of `namespace` controlled by `controllerUid` (controller owner
   * reference) that `accept` keeps, read apart from list() for safety checks (preflight guards). Views without
   * it are counted through list().
   */
  countControlled?<T extends KubernetesObject>(
    kind: string,
    namespace: string,
    controllerUid: string,
    accept?: (o: T) => boolean,
  ): Promise<number>;
}
