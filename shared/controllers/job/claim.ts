// ControllerRefManager.ClaimPods for one Job (getPodsForJob): every pod it controls and still selects is its own,
// terminal ones included; a selected orphan (not being deleted, same namespace) is adopted unless the Job is being
// deleted; a controlled pod it no longer selects is released unless the Job is being deleted. Both are strategic
// merge patches with the pod's uid as precondition, and both carry the tracking finalizer as upstream's
// PodControllerRefManager does for Jobs: adoption adds it, release deletes it from the list.
import type { V1Pod } from '@kubernetes/client-node';
import { adoptAction, releaseAction, type Action } from '../../kube/actions.js';
import { controllerRefOf, newControllerRef } from '../../kube/meta/controller-ref.js';
import { selectorOf, type Selector } from '../../kube/meta/label-selector.js';
import { podRef } from './job-pods.js';
import { JOB_API_VERSION, JOB_KIND, JOB_TRACKING_FINALIZER, Reason, type Job } from './types.js';

export type Claim = {
  readonly claimed: readonly V1Pod[];
  readonly adopt: readonly V1Pod[];
  readonly release: readonly V1Pod[];
};

export function jobSelector(job: Job): Selector {
  return selectorOf(job.spec.selector);
}

export function claimPods(job: Job, pods: readonly V1Pod[], selects: Selector = jobSelector(job)): Claim {
  const uid = job.metadata.uid ?? '';
  const deleting = !!job.metadata.deletionTimestamp;
  const claimed: V1Pod[] = [];
  const adopt: V1Pod[] = [];
  const release: V1Pod[] = [];
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    const matches = selects.matches(pod.metadata?.labels);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches) claimed.push(pod);
      else if (!deleting) release.push(pod);
      continue;
    }
    if (deleting || !matches || pod.metadata?.deletionTimestamp) continue;
    if (pod.metadata?.namespace !== job.metadata.namespace) continue;
    adopt.push(pod);
    claimed.push(pod);
  }
  return { claimed, adopt, release };
}

/** RecheckDeletionTimestamp: the fresh read is the same Job and it is not being deleted. */
export function canAdopt(job: Job, fresh: Job | null | undefined): boolean {
  return (
    fresh !== undefined &&
    fresh !== null &&
    fresh.metadata.uid === job.metadata.uid &&
    !fresh.metadata.deletionTimestamp
  );
}

export function claimActions(job: Job, claim: Claim): Action[] {
  const uid = job.metadata.uid ?? '';
  const ref = newControllerRef({ apiVersion: JOB_API_VERSION, kind: JOB_KIND, name: job.metadata.name ?? '', uid });
  return [
    ...claim.adopt.map((pod) =>
      adoptAction(podRef(pod), pod.metadata?.uid ?? '', ref, Reason.AdoptPod, {
        finalizers: [JOB_TRACKING_FINALIZER],
      }),
    ),
    ...claim.release.map((pod) =>
      releaseAction(podRef(pod), pod.metadata?.uid ?? '', uid, Reason.ReleasePod, {
        '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER],
      }),
    ),
  ];
}

/** The patch that removes the tracking finalizer (removeTrackingFinalizerPatch), with the uid as precondition. */
export function removeFinalizerAction(pod: V1Pod): Action {
  return {
    type: 'patch',
    target: podRef(pod),
    patch: {
      metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER], uid: pod.metadata?.uid ?? '' },
    },
    reason: Reason.RemoveTrackingFinalizer,
    // Gone, or recreated under another uid: the pod that carried the finalizer no longer exists.
    ignore: ['NotFound', 'Invalid'],
  };
}
