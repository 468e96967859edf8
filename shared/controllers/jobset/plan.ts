// The JobSet planner (Reconcile and reconcile of jobset_controller.go, sigs.k8s.io/jobset v0.12.0), pure: what was
// observed and `now` in, actions and a requeue out. In upstream's order:
//   0  gone, being deleted, or spec.managedBy naming another controller → nothing
//   1  the child Jobs are sorted: current attempt active / successful / failed, and earlier attempts (previous)
//   2  replicatedJobsStatus recounted (status.ts); written if it changed
//   3  finished (Completed or Failed True): its active Jobs are deleted (foreground); ttlSecondsAfterFinished
//      deletes the JobSet once expired (foreground), or looks again when it expires; nothing more
//   4  Jobs of earlier attempts are deleted (foreground; not those already being deleted)
//   5  not suspended and every Job ready or succeeded → RestartingJobSet False (JobsReady)
//   6  a failed Job → the failure policy (failure-policy.ts); nothing more
//   7  a succeeded Job → the success policy (success-policy.ts); completed → nothing more
//   8  network.enableDNSHostnames → the headless Service named by the subdomain, created if missing; then the
//      claims of volumeClaimPolicies, created if missing (volume-claims.ts)
//   9  the missing Jobs of each replicatedJob are created (child-jobs.ts), held back by dependsOn, by InOrder
//      (one replicatedJob at a time: StartupPolicyInProgress, then StartupPolicyCompleted), and, under
//      BlockingRecreate, by any Job of an earlier attempt still there. Under Recreate a Job is recreated once its
//      predecessor of the same name is gone.
//  10  suspend / resume of the active Jobs (suspend.ts)
//  11  one status write, if anything changed, carrying the events of the conditions it changed
// Where fleetq differs (the writer applies creates, then updates and deletes, then status writes):
//  - A create refused records JobCreationFailed per Job (`job "<name>" creation failed with error: <error>`);
//    upstream records one event joining the errors of its parallel creates.
//  - When the TTL has expired, the JobSet's delete goes without the status write: the delete changes its
//    resourceVersion, so upstream's status write after it is refused with a conflict, and the next pass skips a
//    JobSet being deleted.
//  - A started Job to resume gets its startTime cleared in one pass and its update in the next (suspend.ts).
//  - A suspend and a resume that came before one pass read the JobSet (the cache keeps the suspended state:
//    observe.ts suspensionMissed) are both acted on: this pass suspends the running Jobs as the suspended state's
//    pass would have (Suspended True), the next resumes them with the pod template the JobSet has now.
// Beyond upstream, opt-in per JobSet (early-failure.ts): with fleetq.dev/jobset-restart-on-failure-target, a child
// Job's FailureTarget condition counts as its failure in step 1, so a restart need not wait for its pods to end.
// Not implemented (left as upstream leaves them with their feature gates off): the ElasticJobSet gate (scaling
// active Jobs in place), the InPlaceRestart gate (its restart strategy then behaves as upstream's does without the
// gate: a failed Job restarts the JobSet).
import type { Action } from '../../kube/actions.js';
import { ReconcileError } from '../../kube/errors.js';
import { EventType } from '../../kube/events/types.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import type { PlanResult } from '../controller.js';
import {
  classifyChildJobs,
  isDnsHostnamesEnabled,
  isJobSetSuspended,
  jobsToCreate,
  type ChildJobs,
} from './child-jobs.js';
import { withEarlyFailures } from './early-failure.js';
import { executeFailurePolicy } from './failure-policy.js';
import { JOBSET_NAME_KEY, subdomainOf } from './labels.js';
import { allReplicasStarted, dependencyReachedStatus, isInOrderStartup } from './startup-policy.js';
import {
  allJobsReady,
  isJobSetFinished,
  jobSetEvent,
  replicatedJobStatuses,
  setInOrderCompleted,
  setInOrderInProgress,
  setRestartingConditionFalse,
  startPass,
  statusOf,
  updateReplicatedJobsStatuses,
  type Pass,
} from './status.js';
import { executeSuccessPolicy } from './success-policy.js';
import { resumeJobsIfNecessary, suspendJobs } from './suspend.js';
import { ttlAfterFinished } from './ttl-after-finished.js';
import { missingClaims } from './volume-claims.js';
import {
  JOBSET_API_VERSION,
  JOBSET_CONTROLLER_NAME,
  JOBSET_KIND,
  Message,
  Reason,
  SERVICE_KIND,
  type Job,
  type JobSet,
  type ObservedJobSet,
  type PlanOptions,
  type PersistentVolumeClaim,
  type ReplicatedJobStatus,
  type Service,
} from './types.js';

export const DELETE_REASON = { OldAttempt: 'DeleteJobOfEarlierAttempt', Finished: 'DeleteActiveJobOfFinishedJobSet' };

/** managedByExternalController: spec.managedBy set to another controller's name. */
export function isManagedByOther(js: JobSet): boolean {
  const by = js.spec.managedBy;
  return by !== undefined && by !== null && by !== JOBSET_CONTROLLER_NAME;
}

export function planJobSet(o: ObservedJobSet, now: Date, options: PlanOptions = {}): PlanResult {
  const observed = o.jobSet;
  if (observed === null || observed.metadata.deletionTimestamp !== undefined) return { actions: [] };
  if (isManagedByOther(observed)) return { actions: [] };

  const pass = startPass(observed, now, options);
  const owned = classifyChildJobs(pass.js, withEarlyFailures(pass.js, o.jobs), options);
  const statuses = replicatedJobStatuses(pass.js, owned, options);
  updateReplicatedJobsStatuses(pass, statuses);

  if (isJobSetFinished(pass.js)) {
    deleteJobs(pass, owned.active, DELETE_REASON.Finished);
    const ttl = ttlAfterFinished(pass.js, now);
    if (ttl.expired) {
      pass.actions.push({
        type: 'delete',
        target: { kind: JOBSET_KIND, namespace: observed.metadata.namespace ?? '', name: observed.metadata.name ?? '' },
        uid: observed.metadata.uid ?? '',
        reason: 'TTLAfterFinished',
        propagationPolicy: 'Foreground',
      });
      return { actions: pass.actions };
    }
    return finish(pass, ttl.requeueAfter);
  }

  deleteJobs(pass, owned.previous, DELETE_REASON.OldAttempt);
  const suspended = isJobSetSuspended(pass.js) || o.missedSuspension === true;
  if (!suspended && allJobsReady(pass.js, statuses)) {
    setRestartingConditionFalse(pass, Reason.RestartingJobsReady, Message.RestartingJobsReady);
  }
  if (owned.failed.length > 0) {
    executeFailurePolicy(pass, owned);
    return finish(pass);
  }
  if (owned.successful.length > 0 && executeSuccessPolicy(pass, owned)) return finish(pass);

  if (isDnsHostnamesEnabled(pass.js)) {
    if (o.service === undefined) {
      throw new ReconcileError('PlanFailed', 'JobSet observe did not read the headless Service');
    }
    if (o.service === null) pass.actions.push(headlessServiceCreate(pass.js));
  }
  if ((pass.js.spec.volumeClaimPolicies ?? []).length > 0) {
    if (o.claims === undefined) throw new ReconcileError('PlanFailed', 'JobSet observe did not read the claims');
    for (const claim of missingClaims(pass.js, o.claims)) pass.actions.push(claimCreate(pass.js, claim));
  }

  reconcileReplicatedJobs(pass, owned, statuses);

  let requeue = false;
  if (suspended) suspendJobs(pass, owned.active);
  else requeue = resumeJobsIfNecessary(pass, owned, statuses).requeue;
  return finish(pass, requeue ? 0 : undefined);
}

/** deleteJobs: foreground, by uid, skipping Jobs already being deleted. Upstream records no event for them. */
function deleteJobs(pass: Pass, jobs: readonly Job[], reason: string): void {
  for (const job of jobs) {
    if (job.metadata.deletionTimestamp !== undefined) continue;
    pass.actions.push({
      type: 'delete',
      target: { kind: 'Job', namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '' },
      uid: job.metadata.uid ?? '',
      reason,
      propagationPolicy: 'Foreground',
    });
  }
}

/** createHeadlessSvcIfNecessary's Service. */
export function headlessService(js: JobSet): Service {
  return {
    apiVersion: 'v1',
    kind: SERVICE_KIND,
    metadata: {
      name: subdomainOf(js),
      namespace: js.metadata.namespace ?? '',
      ownerReferences: [
        newControllerRef({
          apiVersion: JOBSET_API_VERSION,
          kind: JOBSET_KIND,
          name: js.metadata.name ?? '',
          uid: js.metadata.uid ?? '',
        }),
      ],
    },
    spec: {
      clusterIP: 'None',
      selector: { [JOBSET_NAME_KEY]: js.metadata.name ?? '' },
      publishNotReadyAddresses: js.spec.network?.publishNotReadyAddresses ?? true,
    },
  };
}

/** A missing claim of volumeClaimPolicies; a refused create records PVCCreationFailed (not for AlreadyExists). */
function claimCreate(js: JobSet, claim: PersistentVolumeClaim): Action {
  return {
    type: 'create',
    object: claim,
    reason: 'VolumeClaimPolicy',
    events: {
      onFailure: {
        ...jobSetEvent(js, EventType.Warning, Reason.PVCCreationFailed, ''),
        detail: 'error',
        quietOn: ['AlreadyExists'],
      },
    },
  };
}

function headlessServiceCreate(js: JobSet): Action {
  return {
    type: 'create',
    object: headlessService(js),
    reason: 'HeadlessService',
    events: {
      onFailure: {
        ...jobSetEvent(js, EventType.Warning, Reason.HeadlessServiceCreationFailed, ''),
        detail: 'error',
      },
    },
  };
}

/** reconcileReplicatedJobs. */
function reconcileReplicatedJobs(pass: Pass, owned: ChildJobs, statuses: readonly ReplicatedJobStatus[]): void {
  const suspended = isJobSetSuspended(pass.js);
  const inOrder = !suspended && isInOrderStartup(pass.js);
  const replicasSoFar = new Map<string, number>();
  for (const rjob of pass.js.spec.replicatedJobs ?? []) {
    const jobs = jobsToCreate(pass.js, rjob, owned, pass.options);
    replicasSoFar.set(rjob.name, rjob.replicas ?? 0);
    if (!dependencyReachedStatus(rjob, replicasSoFar, statuses)) continue;
    if (inOrder && allReplicasStarted(rjob.replicas ?? 0, statusOf(statuses, rjob.name))) continue;
    for (const job of jobs) {
      pass.actions.push({
        type: 'create',
        object: job,
        reason: 'CreateJob',
        events: {
          onFailure: {
            ...jobSetEvent(
              pass.js,
              EventType.Warning,
              Reason.JobCreationFailed,
              `job "${job.metadata.name ?? ''}" creation failed with error: `,
            ),
            detail: 'error',
          },
        },
      });
    }
    if (inOrder) {
      setInOrderInProgress(pass);
      return;
    }
  }
  if (inOrder) setInOrderCompleted(pass);
}

/** updateJobSetStatus: the actions, then the one status write if anything changed, with its events. */
function finish(pass: Pass, requeueAfter?: number): PlanResult {
  const actions = [...pass.actions];
  if (pass.shouldUpdate) {
    actions.push({ type: 'updateStatus', object: pass.js, events: { onSuccess: [...pass.statusEvents] } });
  }
  return { actions, ...(requeueAfter !== undefined && { requeueAfter }) };
}
