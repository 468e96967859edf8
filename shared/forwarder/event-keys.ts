// Event → reconcile keys (DESIGN.md "Event → keys"). Pure: the object, its previous version when the forwarder
// keeps one, what the cluster owns, and the workload index are all inputs. Only owned kinds yield keys.
// Every key is validated here, where it is made from untrusted cluster data (an owner reference's name, a
// label's value): a bad one is returned apart with its reason, for the forwarder to record and skip, so that one
// object cannot stop forwarding. Objects of any shape are accepted; nothing here throws on bad data.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { keyString, validateKey, type ReconcileKey } from '../kube/key.js';
import type { Kind } from '../kube/kinds.js';
import { configMapKeys } from './mirror-keys.js';
import { isNodeUnchanged } from './previous-state.js';
import { WORKLOAD_KIND, type KubeObject, type Resource } from './resources.js';
import type { WorkloadIndexView } from './workload-index.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export type ObservedEvent = {
  readonly type: EventType;
  readonly resource: Resource;
  readonly object: KubeObject;
  /** The previous version (a trimmed view) for resources whose mapping needs it: nodes, configmaps. */
  readonly previous?: KubeObject;
};

export type KeyContext = {
  readonly cluster: string;
  readonly owns: ReadonlySet<Kind>;
  readonly index: WorkloadIndexView;
};

/** API group of each kind that can control another object; a controller ref of another group is not ours. */
const GROUP: Readonly<Partial<Record<string, string>>> = {
  Deployment: 'apps',
  ReplicaSet: 'apps',
  StatefulSet: 'apps',
  DaemonSet: 'apps',
  Job: 'batch',
  CronJob: 'batch',
};

/** Which kinds may control (and adopt) objects of each dependent resource. */
const CONTROLLERS_OF: Readonly<Partial<Record<Resource, ReadonlySet<Kind>>>> = {
  pods: new Set<Kind>(['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']),
  controllerrevisions: new Set<Kind>(['StatefulSet', 'DaemonSet']),
  persistentvolumeclaims: new Set<Kind>(['StatefulSet']),
  replicasets: new Set<Kind>(['Deployment']),
  jobs: new Set<Kind>(['CronJob']),
};

/** Workloads whose selector adopts orphans of a resource (an orphan Pod also wakes matching Deployments). */
const ADOPTERS_OF: Readonly<Partial<Record<Resource, ReadonlySet<Kind>>>> = {
  pods: new Set<Kind>(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']),
  controllerrevisions: new Set<Kind>(['StatefulSet', 'DaemonSet']),
  replicasets: new Set<Kind>(['Deployment']),
};

/** A key made from an object that is not a valid reconcile key, and why. */
export type InvalidKey = { readonly key: ReconcileKey; readonly reason: string };
export type EventKeys = { readonly keys: ReconcileKey[]; readonly invalid: InvalidKey[] };

export function eventKeys(event: ObservedEvent, ctx: KeyContext): EventKeys {
  const made: ReconcileKey[] = [];
  const { resource, object } = event;
  const namespace = text(object.metadata?.namespace);
  const push = (kind: Kind, ns: string, name: string): void => {
    if (ctx.owns.has(kind) && ns !== '' && name !== '') made.push({ cluster: ctx.cluster, kind, namespace: ns, name });
  };

  const own = WORKLOAD_KIND[resource];
  if (own !== undefined) push(own, namespace, text(object.metadata?.name));

  const controllers = CONTROLLERS_OF[resource];
  if (controllers !== undefined) {
    const ref = controllerRef(object);
    if (ref !== undefined) {
      if (controllers.has(ref.kind as Kind) && isGroupOf(ref)) push(ref.kind as Kind, namespace, text(ref.name));
      if (resource === 'pods' && event.type === 'DELETED') pushDeploymentOfPod(ref, namespace, ctx, push);
    } else if (event.type !== 'DELETED') {
      const adopters = ADOPTERS_OF[resource] ?? new Set<Kind>();
      for (const w of ctx.index.matching(namespace, labelsOf(object), adopters)) {
        push(w.kind, w.namespace, w.name);
      }
    }
  }

  if (resource === 'nodes' && ctx.owns.has('DaemonSet')) {
    const unchanged =
      event.type === 'MODIFIED' && event.previous !== undefined && isNodeUnchanged(event.previous, object);
    if (!unchanged) for (const ds of ctx.index.all(new Set<Kind>(['DaemonSet']))) push(ds.kind, ds.namespace, ds.name);
  }

  if (resource === 'configmaps' && ctx.owns.has('ConfigMap')) {
    made.push(...configMapKeys(ctx.cluster, object, event.previous));
  }
  return partition(dedupe(made));
}

/** Splits keys into valid ones and invalid ones with their reasons. */
export function partition(keys: readonly ReconcileKey[]): EventKeys {
  const out: EventKeys = { keys: [], invalid: [] };
  for (const key of keys) {
    const reason = validateKey(key);
    if (reason === null) out.keys.push(key);
    else out.invalid.push({ key, reason });
  }
  return out;
}

/** Upstream's deployment controller wakes on pod deletion (Recreate waits for all old pods to be gone). */
function pushDeploymentOfPod(
  ref: V1OwnerReference,
  namespace: string,
  ctx: KeyContext,
  push: (kind: Kind, ns: string, name: string) => void,
): void {
  if (ref.kind !== 'ReplicaSet' || !isGroupOf(ref)) return;
  const owner = ctx.index.get('ReplicaSet', namespace, text(ref.name))?.controller;
  if (owner?.kind === 'Deployment') push('Deployment', namespace, text(owner.name));
}

export function controllerRef(object: KubeObject): V1OwnerReference | undefined {
  const refs: unknown = object.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return refs.find(
    (r): r is V1OwnerReference => typeof r === 'object' && r !== null && (r as V1OwnerReference).controller === true,
  );
}

function isGroupOf(ref: V1OwnerReference): boolean {
  const group = typeof ref.kind === 'string' ? GROUP[ref.kind] : undefined;
  return group !== undefined && typeof ref.apiVersion === 'string' && ref.apiVersion.startsWith(`${group}/`);
}

/** A string field of untrusted data, or '' (a key with an empty part is never made). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function labelsOf(object: KubeObject): Record<string, string> {
  const labels: unknown = object.metadata?.labels;
  return typeof labels === 'object' && labels !== null && !Array.isArray(labels)
    ? (labels as Record<string, string>)
    : {};
}

function dedupe(keys: readonly ReconcileKey[]): ReconcileKey[] {
  const seen = new Map<string, ReconcileKey>();
  for (const k of keys) seen.set(keyString(k), k);
  return [...seen.values()];
}
