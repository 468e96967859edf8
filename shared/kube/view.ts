// The read interface handlers observe through. Planners never see it; observe functions do.
import type { KubernetesObject } from '@kubernetes/client-node';

export type ListOptions = { readonly labelSelector?: string; readonly fieldSelector?: string };

export interface ClusterView {
  readonly cluster: string;
  /** null when the object does not exist. */
  get<T extends KubernetesObject>(kind: string, namespace: string, name: string): Promise<T | null>;
  /** namespace undefined lists across all namespaces. */
  list<T extends KubernetesObject>(kind: string, namespace: string | undefined, options?: ListOptions): Promise<T[]>;
}
