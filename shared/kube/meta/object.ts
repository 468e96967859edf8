// The one shape every API object has, typed only as far as any reader needs it. The views and the writer
// speak in ApiObject so that each planner may type what it observes its own way: with client-node's models
// (the ReplicaSet controller) or with JSON types whose timestamps are strings, as the apiserver sends them
// (the Deployment controller). Both are ApiObjects, so `view.get<Deployment>(...)` needs no cast, and
// neither does an action carrying one.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OwnerReference } from './controller-ref.js';

export type ApiObjectMeta = {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  /** client-node's models say Date; the JSON the views return holds RFC 3339 strings. */
  readonly creationTimestamp?: Date | string;
  readonly deletionTimestamp?: Date | string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
};

export type ApiObject = {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ApiObjectMeta;
};

/** Any object as a watch or list hands it over (untrusted: the mapping and the cache read it defensively). */
export type KubeObject = KubernetesObject & { spec?: unknown; status?: unknown };
