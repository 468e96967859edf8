// The previous version of the objects whose mapping depends on what changed: Nodes (a heartbeat-only update
// wakes no DaemonSet) and mirror-source ConfigMaps (removing the annotation still wakes the source's key).
// Only a trimmed view is kept, and only for those two resources.
import { isDeepStrictEqual } from 'node:util';
import { mirrorSourceView } from './mirror-keys.js';
import type { KubeObject, Resource } from './resources.js';

type NodeSpecView = { taints?: unknown; unschedulable?: unknown };
type Condition = { type?: string; status?: string };

/** The parts of a Node that DaemonSet scheduling depends on: labels, taints, unschedulable, readiness. */
export function nodeView(object: KubeObject): KubeObject {
  const spec = (object.spec ?? {}) as NodeSpecView;
  const conditions = ((object.status as { conditions?: Condition[] } | undefined)?.conditions ?? [])
    .filter((c) => c.type === 'Ready')
    .map((c) => ({ type: c.type, status: c.status }));
  return {
    metadata: { name: object.metadata?.name, labels: { ...object.metadata?.labels } },
    spec: { taints: spec.taints ?? [], unschedulable: spec.unschedulable ?? false },
    status: { conditions },
  };
}

/** True when a Node update changed nothing a DaemonSet cares about. */
export function isNodeUnchanged(previous: KubeObject, current: KubeObject): boolean {
  return isDeepStrictEqual(
    JSON.parse(JSON.stringify(nodeView(previous))),
    JSON.parse(JSON.stringify(nodeView(current))),
  );
}

function viewOf(resource: Resource, object: KubeObject): KubeObject | undefined {
  if (resource === 'nodes') return nodeView(object);
  if (resource === 'configmaps') return mirrorSourceView(object);
  return undefined;
}

export function isPreviousTracked(resource: Resource): boolean {
  return resource === 'nodes' || resource === 'configmaps';
}

export class PreviousState {
  private readonly views = new Map<string, KubeObject>();

  get(resource: Resource, object: KubeObject): KubeObject | undefined {
    return this.views.get(id(resource, object));
  }

  apply(resource: Resource, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    if (!isPreviousTracked(resource)) return;
    const view = type === 'DELETED' ? undefined : viewOf(resource, object);
    if (view === undefined) this.views.delete(id(resource, object));
    else this.views.set(id(resource, object), view);
  }

  replace(resource: Resource, objects: readonly KubeObject[]): void {
    if (!isPreviousTracked(resource)) return;
    for (const key of this.views.keys()) if (key.startsWith(`${resource}/`)) this.views.delete(key);
    for (const object of objects) this.apply(resource, 'ADDED', object);
  }
}

function id(resource: Resource, object: KubeObject): string {
  return `${resource}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
