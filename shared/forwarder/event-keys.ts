// Event → reconcile keys (DESIGN.md "Event → keys"). Pure: the object, its previous version when the forwarder
// keeps one, what the cluster owns, and the workload index are all inputs. Only owned kinds yield keys.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { keyString, type ReconcileKey } from '../kube/key.js';
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

export function eventKeys(event: ObservedEvent, ctx: KeyContext): ReconcileKey[] {
  const keys: ReconcileKey[] = [];
  const { resource, object } = event;
  const namespace = object.metadata?.namespace ?? '';
  const push = (kind: Kind, ns: string, name: string): void => {
    if (ctx.owns.has(kind) && ns !== '' && name !== '') keys.push({ cluster: ctx.cluster, kind, namespace: ns, name });
  };

  const own = WORKLOAD_KIND[resource];
  if (own !== undefined) push(own, namespace, object.metadata?.name ?? '');

  const controllers = CONTROLLERS_OF[resource];
  if (controllers !== undefined) {
    const ref = controllerRef(object);
    if (ref !== undefined) {
      if (controllers.has(ref.kind as Kind) && isGroupOf(ref)) push(ref.kind as Kind, namespace, ref.name);
      if (resource === 'pods' && event.type === 'DELETED') pushDeploymentOfPod(ref, namespace, ctx, push);
    } else if (event.type !== 'DELETED') {
      const adopters = ADOPTERS_OF[resource] ?? new Set<Kind>();
      for (const w of ctx.index.matching(namespace, object.metadata?.labels ?? {}, adopters)) {
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
    keys.push(...configMapKeys(ctx.cluster, object, event.previous));
  }
  return dedupe(keys);
}

/** Upstream's deployment controller wakes on pod deletion (Recreate waits for all old pods to be gone). */
function pushDeploymentOfPod(
  ref: V1OwnerReference,
  namespace: string,
  ctx: KeyContext,
  push: (kind: Kind, ns: string, name: string) => void,
): void {
  if (ref.kind !== 'ReplicaSet' || !isGroupOf(ref)) return;
  const owner = ctx.index.get('ReplicaSet', namespace, ref.name)?.controller;
  if (owner?.kind === 'Deployment') push('Deployment', namespace, owner.name);
}

export function controllerRef(object: KubeObject): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

function isGroupOf(ref: V1OwnerReference): boolean {
  const group = GROUP[ref.kind];
  return group !== undefined && ref.apiVersion.startsWith(`${group}/`);
}

function dedupe(keys: readonly ReconcileKey[]): ReconcileKey[] {
  const seen = new Map<string, ReconcileKey>();
  for (const k of keys) seen.set(keyString(k), k);
  return [...seen.values()];
}
