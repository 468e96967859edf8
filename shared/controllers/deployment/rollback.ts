// rollback.go: the deprecated rollback annotation (deprecated.deployment.rollback.to: what extensions/v1beta1's
// rollbackTo became, and still honoured on apps/v1 by kube-controller-manager 1.37). Revision 0 means the last
// one (the second highest). The ReplicaSet of that revision gives the Deployment its template (the
// pod-template-hash label dropped) and annotations (all but the skipped ones), and the annotation is cleared in
// the same update of the Deployment; not found or the same template: only the annotation is cleared. Each
// outcome records its event (events.ts) once that update succeeded.
//
// Upstream writes the status of getAllReplicaSetsAndSyncRevision first and then updates the Deployment from its
// stale copy, which fails with a conflict, and the rollback happens in the next sync. Here a pass that would
// change the status writes only that and continues at once (requeueAfter 0); the rollback is the next pass.
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { deploymentEvent, EventReason } from './events.js';
import type { Pass } from './pass.js';
import { equalIgnoreHash } from './replica-sets.js';
import { lastRevision, parseInt64, revisionOf, skipCopyAnnotation } from './revision.js';
import { getAllReplicaSetsAndSyncRevision } from './sync.js';
import { Annotation, POD_TEMPLATE_HASH_LABEL, type Deployment, type ReplicaSet } from './types.js';

/** getRollbackTo: the revision of the deprecated annotation; null when absent or not an int64. */
export function rollbackTo(d: Deployment): bigint | null {
  const v = d.metadata.annotations?.[Annotation.DeprecatedRollbackTo] ?? '';
  return v === '' ? null : parseInt64(v);
}

export function rollback(p: Pass, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, true);
  if (p.statusChanged()) {
    p.requeueAfter = 0;
    return;
  }
  const allRSs = [...oldRSs, ...(newRS ? [newRS] : [])];
  const d = p.d;
  const warn = (reason: string, message: string): EventSpec =>
    deploymentEvent(p.original, EventType.Warning, reason, message);

  let revision = rollbackTo(d) ?? 0n;
  if (revision === 0n) revision = lastRevision(allRSs);
  if (revision === 0n)
    return clearRollbackTo(p, [warn(EventReason.RollbackRevisionNotFound, 'Unable to find last revision.')]);

  const target = allRSs.find((rs) => revisionOf(rs) === revision);
  if (target === undefined) {
    return clearRollbackTo(p, [
      warn(EventReason.RollbackRevisionNotFound, 'Unable to find the revision to rollback to.'),
    ]);
  }
  const name = d.metadata.name ?? '';
  if (equalIgnoreHash(d.spec.template, target.spec.template)) {
    const message = `The rollback revision contains the same template as current deployment "${name}"`;
    return clearRollbackTo(p, [warn(EventReason.RollbackTemplateUnchanged, message)]);
  }
  setFromReplicaSetTemplate(d, target);
  setDeploymentAnnotationsTo(d, target);
  const message = `Rolled back deployment "${name}" to revision ${revision}`;
  clearRollbackTo(p, [deploymentEvent(p.original, EventType.Normal, EventReason.RollbackDone, message)]);
}

function clearRollbackTo(p: Pass, events: EventSpec[]): void {
  const annotations = p.d.metadata.annotations;
  if (annotations) delete annotations[Annotation.DeprecatedRollbackTo];
  p.updateDeployment(events);
}

/** SetFromReplicaSetTemplate: the ReplicaSet's template without the pod-template-hash label. Mutates d. */
function setFromReplicaSetTemplate(d: Deployment, rs: ReplicaSet): void {
  const template = JSON.parse(JSON.stringify(rs.spec.template ?? {})) as NonNullable<ReplicaSet['spec']['template']>;
  if (template.metadata?.labels) delete template.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  d.spec.template = template;
}

/** SetDeploymentAnnotationsTo: keep the Deployment's skipped annotations, take every other from the ReplicaSet. */
function setDeploymentAnnotationsTo(d: Deployment, rs: ReplicaSet): void {
  const kept = Object.entries(d.metadata.annotations ?? {}).filter(([k]) => skipCopyAnnotation(k));
  const taken = Object.entries(rs.metadata.annotations ?? {}).filter(([k]) => !skipCopyAnnotation(k));
  d.metadata.annotations = Object.fromEntries([...kept, ...taken]);
}
