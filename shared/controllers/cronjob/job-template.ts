// The Job a CronJob runs (getJobFromTemplate2, getJobName and getTimeHashInMinutes of pkg/controller/cronjob, 1.37),
// and the reference status.active keeps of it (ref.GetReference).
//   name         <cronjob>-<scheduled time in minutes since the epoch>: one name per run, so a second create of
//                the same run is refused AlreadyExists
//   labels       the jobTemplate's, copied
//   annotations  the jobTemplate's, copied, plus batch.kubernetes.io/cronjob-scheduled-timestamp: the scheduled
//                time in RFC 3339, in spec.timeZone (UTC without one; not a TZ= prefix's zone)
//   owner        metav1.NewControllerRef (controller, blockOwnerDeletion)
//   spec         the jobTemplate's spec, copied
// Upstream also sets metadata.creationTimestamp to the scheduled time; the apiserver overwrites it, so it is not sent.
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { offsetMs } from './time-zone.js';
import {
  CRONJOB_API_VERSION,
  CRONJOB_KIND,
  JOB_API_VERSION,
  JOB_KIND,
  SCHEDULED_TIMESTAMP_ANNOTATION,
  type CronJob,
  type Job,
  type ObjectReference,
} from './types.js';
import { jsonCopy } from '../common/json-copy.js';

/** getJobName. */
export function jobNameFor(cj: CronJob, scheduledMs: number): string {
  return `${cj.metadata.name ?? ''}-${Math.floor(scheduledMs / 60_000)}`;
}

/** getJobFromTemplate2 (the time zone is known: the planner checked it before). */
export function jobFromTemplate(cj: CronJob, scheduledMs: number): Job {
  const template = cj.spec.jobTemplate;
  const labels = { ...(template.metadata?.labels ?? {}) };
  const annotations = {
    ...(template.metadata?.annotations ?? {}),
    [SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339In(cj.spec.timeZone ?? '', scheduledMs),
  };
  return {
    apiVersion: JOB_API_VERSION,
    kind: JOB_KIND,
    metadata: {
      name: jobNameFor(cj, scheduledMs),
      namespace: cj.metadata.namespace ?? '',
      ...(Object.keys(labels).length > 0 && { labels }),
      annotations,
      ownerReferences: [
        newControllerRef({
          apiVersion: CRONJOB_API_VERSION,
          kind: CRONJOB_KIND,
          name: cj.metadata.name ?? '',
          uid: cj.metadata.uid ?? '',
        }),
      ],
    },
    spec: jsonCopy(template.spec ?? {}),
  };
}

/** ref.GetReference of a Job: what status.active holds. */
export function jobReference(job: Job): ObjectReference {
  return {
    kind: JOB_KIND,
    namespace: job.metadata.namespace ?? '',
    name: job.metadata.name ?? '',
    uid: job.metadata.uid ?? '',
    apiVersion: JOB_API_VERSION,
    ...(job.metadata.resourceVersion !== undefined && { resourceVersion: job.metadata.resourceVersion }),
  };
}

/** Go's time.Time.In(zone).Format(time.RFC3339): seconds, and `Z` for a zero offset. */
export function rfc3339In(zone: string, ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  const offset = offsetMs(zone, whole);
  const local = new Date(whole + offset).toISOString().replace(/\.\d{3}Z$/, '');
  if (offset === 0) return `${local}Z`;
  const minutes = Math.round(Math.abs(offset) / 60_000);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}
