// A plan as one line per action, so a table can state a whole plan result (every action, in order, and the
// requeue) without repeating full objects: `create Pod on n1 (hash)`, `delete Pod <name>`, `status {…}`, ….
import type { ControllerRevision, DaemonSet, Pod } from '../../../../shared/kube/api/objects.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import { targetNodeName } from '../../../../shared/controllers/daemonset/pod-template.js';

export type Summary = { readonly actions: string[]; readonly requeueAfter?: number };

export function summarize(result: PlanResult): Summary {
  const actions = result.actions.map((a): string => {
    switch (a.type) {
      case 'create': {
        if (a.object.kind === 'Pod') {
          const pod = a.object as Pod;
          return `create Pod on ${targetNodeName(pod) ?? '?'} (${pod.metadata?.labels?.['controller-revision-hash'] ?? ''})`;
        }
        const cr = a.object as ControllerRevision;
        return `create ControllerRevision ${cr.metadata?.name ?? ''} revision ${cr.revision}`;
      }
      case 'update': {
        const cr = a.object as ControllerRevision;
        return `update ${a.object.kind ?? ''} ${a.object.metadata?.name ?? ''} revision ${cr.revision}`;
      }
      case 'delete':
        return `delete ${a.target.kind} ${a.target.name}`;
      case 'patch':
        return `patch ${a.target.kind} ${a.target.name} ${JSON.stringify(a.patch)}`;
      case 'apply':
        return `apply ${a.target.kind} ${a.target.name}`;
      case 'updateStatus':
        return `status ${sortedJson((a.object as DaemonSet).status)}`;
      case 'event':
        return `event ${a.event.type} ${a.event.reason}: ${a.event.message}`;
    }
  });
  return result.requeueAfter === undefined ? { actions } : { actions, requeueAfter: result.requeueAfter };
}

/** The status line a plan writes for these counts (observedGeneration 1, collisionCount absent). */
export function statusLine(c: {
  desired: number;
  current: number;
  misscheduled?: number;
  ready: number;
  updated: number;
  available: number;
  generation?: number;
}): string {
  return `status ${sortedJson({
    currentNumberScheduled: c.current,
    desiredNumberScheduled: c.desired,
    numberMisscheduled: c.misscheduled ?? 0,
    numberReady: c.ready,
    observedGeneration: c.generation ?? 1,
    updatedNumberScheduled: c.updated,
    numberAvailable: c.available,
    numberUnavailable: c.desired - c.available,
  })}`;
}

function sortedJson(o: object | undefined): string {
  return JSON.stringify(Object.fromEntries(Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))));
}
