// What a DaemonSet cares about in a Node: a heartbeat-only update wakes no DaemonSet.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../kube/meta/object.js';

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
