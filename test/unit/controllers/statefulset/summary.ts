// A plan as one line per action, so a table states a whole plan result (every action, in order, and the requeue).
import type {
  ControllerRevision,
  PersistentVolumeClaim,
  Pod,
  StatefulSet,
} from '../../../../shared/kube/api/objects.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';

export type Summary = { readonly actions: string[]; readonly requeueAfter?: number };

const owners = (o: PersistentVolumeClaim) =>
  (o.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`).join(',');

export function summarize(result: PlanResult): Summary {
  const actions = result.actions.map((a): string => {
    switch (a.type) {
      case 'create':
        if (a.object.kind === 'Pod') {
          const pod = a.object as Pod;
          return `create Pod ${pod.metadata?.name ?? ''} (${pod.metadata?.labels?.['controller-revision-hash'] ?? ''})`;
        }
        if (a.object.kind === 'ControllerRevision') {
          const cr = a.object as ControllerRevision;
          return `create ControllerRevision ${cr.metadata?.name ?? ''} revision ${cr.revision}`;
        }
        return `create ${a.object.kind ?? ''} ${a.object.metadata?.name ?? ''}`;
      case 'update':
        if (a.object.kind === 'ControllerRevision') {
          return `update ControllerRevision ${a.object.metadata?.name ?? ''} revision ${(a.object as ControllerRevision).revision}`;
        }
        if (a.object.kind === 'PersistentVolumeClaim') {
          return `update PersistentVolumeClaim ${a.object.metadata?.name ?? ''} owners [${owners(a.object as PersistentVolumeClaim)}]`;
        }
        return `update ${a.object.kind ?? ''} ${a.object.metadata?.name ?? ''}`;
      case 'delete':
        return `delete ${a.target.kind} ${a.target.name}`;
      case 'patch':
        return `patch ${a.target.kind} ${a.target.name}`;
      case 'apply':
        return `apply ${a.target.kind} ${a.target.name}`;
      case 'updateStatus':
        return `status ${statusLine((a.object as StatefulSet).status ?? { replicas: 0 })}`;
      case 'event':
        return `event ${a.event.type} ${a.event.reason}: ${a.event.message}`;
    }
  });
  return result.requeueAfter === undefined ? { actions } : { actions, requeueAfter: result.requeueAfter };
}

/** replicas/ready/available/current/updated, revisions, generation, collisionCount. */
export function statusLine(s: NonNullable<StatefulSet['status']>): string {
  return (
    `r=${s.replicas} ready=${s.readyReplicas ?? 0} avail=${s.availableReplicas ?? 0} cur=${s.currentReplicas ?? 0}` +
    ` upd=${s.updatedReplicas ?? 0} ${s.currentRevision ?? ''}->${s.updateRevision ?? ''} gen=${s.observedGeneration ?? 0}` +
    ` cc=${s.collisionCount ?? 0}`
  );
}

/** The events the plan records when every write succeeds. */
export function eventsOf(result: PlanResult): string[] {
  return result.actions.flatMap((a) =>
    a.type === 'event'
      ? [`${a.event.reason}: ${a.event.message}`]
      : (a.events?.onSuccess ?? []).map((e) => `${e.reason}: ${e.message}`),
  );
}
