// The one shape every API object has, typed only as far as any reader needs it. The views and the writer speak
// in ApiObject so that each planner may type what it observes as it needs (kube/api/objects.ts's wire types, or a
// planner's own narrower JSON types); timestamps are RFC 3339 strings, as the apiserver sends them. Any of those is
// an ApiObject, so `view.get<Deployment>(...)` needs no cast, and neither does an action carrying one.
import type { KubernetesObject } from '../api/objects.js';
import type { OwnerReference } from './controller-ref.js';

export type ApiObjectMeta = {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  /** RFC 3339 strings, as on the wire (the views return JSON). */
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
};

export type ApiObject = {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ApiObjectMeta;
};

/** Any object as a watch or list hands it over (untrusted: the mapping and the cache read it defensively). */
export type KubeObject = KubernetesObject & { spec?: unknown; status?: unknown };
