// Which DaemonSets a Node event can affect (upstream's addNode/updateNode → syncNodeUpdate), decided in the
// forwarder from the event alone: the node now, its previous view (nodeView, which the forwarder keeps per node)
// and what the workload index keeps of each DaemonSet (daemonSetFacts: its placement, numberMisscheduled and
// whether it opted into the unhealthy-nodes policy). A node event wakes a DaemonSet when
//   ADDED     the node fits it (shouldRun), or it has misscheduled pods;
//   MODIFIED  its fit on the node changed (shouldRun or shouldContinueRunning), or the node's labels or taints
//             changed and it has misscheduled pods, or (policy) the node's health changed and its pod may run there;
//   DELETED   the node fitted it or its pod could stay there (its desired count, or a pod to go);
// and any event the forwarder cannot compare (no previous view after a restart, facts missing, data it cannot
// read) wakes every DaemonSet, as before. Upstream looks at whether the DaemonSet has a pod on the node; the
// forwarder does not hold pods, so it wakes on a change of fit instead (a DaemonSet whose fit did not change
// already acts on its pods by its own pod events and requeues). A heartbeat-only update wakes nothing.
import { isDeepStrictEqual } from 'node:util';
import type { DaemonSet, Node } from '../../kube/api/objects.js';
import type { KeyName, Mapping } from '../descriptor.js';
import type { KubeObject } from '../../kube/meta/object.js';
import { nodeShouldRunDaemonPod, placementOf, type Fit, type Placement } from './eligibility.js';
import { NodeTaint } from './tolerations.js';
import { LIFECYCLE_CONDITIONS, unhealthyPolicyOf } from './unhealthy-nodes.js';

const DAEMON_SETS = new Set(['DaemonSet']);

type NodeSpecView = { taints?: unknown; unschedulable?: unknown };
type Condition = { type?: string; status?: string; lastTransitionTime?: unknown };

/** What the workload index keeps of a DaemonSet for node events. */
export type DaemonSetFacts = {
  readonly placement: Placement;
  readonly misscheduled: number;
  /** It opted into the unhealthy-nodes policy: a node's health matters to it. */
  readonly policy: boolean;
};

export function daemonSetFacts(object: KubeObject): DaemonSetFacts | undefined {
  try {
    const ds = object as DaemonSet;
    const misscheduled = ds.status?.numberMisscheduled;
    return {
      placement: placementOf(ds),
      misscheduled: typeof misscheduled === 'number' ? misscheduled : 0,
      policy: unhealthyPolicyOf(ds) !== null,
    };
  } catch {
    return undefined;
  }
}

const HEALTH_CONDITIONS = new Set(['Ready', ...LIFECYCLE_CONDITIONS]);

/**
 * The parts of a Node that DaemonSet scheduling and the unhealthy-nodes policy depend on: name, labels, taints,
 * unschedulable, and the Ready and KEP-5683 lifecycle conditions (status and transition time, no heartbeat).
 */
export function nodeView(object: KubeObject): KubeObject {
  const spec = (object.spec ?? {}) as NodeSpecView;
  const conditions = ((object.status as { conditions?: Condition[] } | undefined)?.conditions ?? [])
    .filter((c) => HEALTH_CONDITIONS.has(c.type ?? ''))
    .map((c) => ({ type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime }));
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

function labelsAndTaints(view: KubeObject): string {
  return JSON.stringify([view.metadata?.labels ?? {}, (view.spec as NodeSpecView | undefined)?.taints ?? []]);
}

const HEALTH_TAINTS = new Set<unknown>([NodeTaint.NotReady, NodeTaint.Unreachable]);

/** The signals the unhealthy-nodes policy reads (unhealthy-nodes.ts nodeHealth), of a node view. */
function health(view: KubeObject): string {
  const spec = view.spec as NodeSpecView | undefined;
  const taints = Array.isArray(spec?.taints) ? (spec.taints as Array<{ key?: unknown }>) : [];
  return JSON.stringify([
    taints.filter((t) => HEALTH_TAINTS.has(t?.key)),
    spec?.unschedulable ?? false,
    (view.status as unknown) ?? {},
  ]);
}

function fitOf(view: KubeObject, placement: Placement): Fit {
  return nodeShouldRunDaemonPod(view as Node, placement);
}

/** Does this node event concern a DaemonSet with these facts? */
export function nodeEventWakes(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  current: KubeObject,
  previous: KubeObject | undefined,
  facts: DaemonSetFacts,
): boolean {
  const now = fitOf(nodeView(current), facts.placement);
  if (type === 'ADDED') return now.shouldRun || facts.misscheduled > 0;
  if (type === 'DELETED') return now.shouldRun || now.shouldContinueRunning;
  if (previous === undefined) return true;
  const before = fitOf(previous, facts.placement);
  if (before.shouldRun !== now.shouldRun || before.shouldContinueRunning !== now.shouldContinueRunning) return true;
  const view = nodeView(current);
  if (facts.misscheduled > 0 && labelsAndTaints(previous) !== labelsAndTaints(view)) return true;
  if (!facts.policy || health(previous) === health(view)) return false;
  return before.shouldContinueRunning || now.shouldContinueRunning;
}

/** The Node mapping of the DaemonSet descriptor: the keys of the DaemonSets the event can affect. */
export const nodeKeys: Mapping['keys'] = (event, index) => {
  const { previous } = event;
  if (event.type === 'MODIFIED' && previous !== undefined && isNodeUnchanged(previous, event.object)) return [];
  return index
    .all(DAEMON_SETS)
    .filter((ds) => {
      const facts = ds.facts as DaemonSetFacts | undefined;
      if (facts === undefined) return true;
      try {
        return nodeEventWakes(event.type, event.object, previous, facts);
      } catch {
        return true; // data it cannot read: wake, as a full resync would
      }
    })
    .map((ds): KeyName => ({ namespace: ds.namespace, name: ds.name }));
};
