// The Kubernetes Events job-controller records (kube-controller-manager 1.37), all on the Job:
//   SuccessfulCreate       Normal   "Created pod: <name>"        a pod create succeeded (RealPodControl)
//   FailedCreate           Warning  "Error creating: <error>"    a pod create refused (not: namespace terminating)
//   SuccessfulDelete       Normal   "Deleted pod: <name>"        a pod delete succeeded (not: already gone)
//   FailedDelete           Warning  "Error deleting: <error>"    a pod delete refused (not: 404)
//   Suspended / Resumed    Normal   "Job suspended" / "Job resumed"   the Suspended condition changed
//   Completed              Normal   "Job completed"              the Complete condition was written
//   TooManySucceededPods   Warning  "Too many succeeded pods running after completion count reached"
//   <Failed reason>        Warning  <Failed message>             the Failed condition was written (BackoffLimitExceeded,
//                                                                 DeadlineExceeded, ...)
//   UnknownCompletionMode  Warning  "Skipped Job sync because completion mode is unknown"
// Adoption, release and finalizer removal (pod patches) record nothing.
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { JOB_API_VERSION, JOB_EVENT_SOURCE, JOB_KIND, Reason, type Job } from './types.js';

export function regardingJob(job: Job): InvolvedObject {
  return regardingObject(JOB_KIND, JOB_API_VERSION, job.metadata);
}

export function jobEvent(job: Job, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingJob(job), source: JOB_EVENT_SOURCE, type, reason, message };
}

export function podCreateEvents(job: Job): WriteEvents {
  return {
    onSuccess: [
      { ...jobEvent(job, EventType.Normal, Reason.SuccessfulCreate, 'Created pod: '), detail: 'createdName' },
    ],
    onFailure: { ...jobEvent(job, EventType.Warning, Reason.FailedCreate, 'Error creating: '), detail: 'error' },
  };
}

export function podDeleteEvents(job: Job, podName: string): WriteEvents {
  return {
    onSuccess: [jobEvent(job, EventType.Normal, Reason.SuccessfulDelete, `Deleted pod: ${podName}`)],
    onFailure: { ...jobEvent(job, EventType.Warning, Reason.FailedDelete, 'Error deleting: '), detail: 'error' },
  };
}
