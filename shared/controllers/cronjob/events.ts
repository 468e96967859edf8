// The Kubernetes Events cronjob-controller records (kube-controller-manager 1.37), all on the CronJob:
//   SuccessfulCreate     Normal   "Created job <name>"                        a Job create succeeded
//   FailedCreate         Warning  "Error creating job: <error>"               refused (not: AlreadyExists, namespace terminating)
//   SuccessfulDelete     Normal   "Deleted job <name>"                        history cleanup, Replace
//   FailedDelete         Warning  "Deleted job: <error>"                      (sic)
//   FailedGet            Warning  "Get job: <error>"                          Replace could not read an active Job
//   SawCompletedJob      Normal   "Saw completed job: <name>, condition: <Complete|Failed>"
//   UnexpectedJob        Warning  "Saw a job that the controller did not create or forgot: <name>"
//   MissingJob           Normal   "Active job went missing: <name>"
//   JobAlreadyActive     Normal   "Not starting job because prior execution is running and concurrency policy is Forbid"
//   MissSchedule         Warning  "Missed scheduled time to start a job: <RFC 1123Z, UTC>"
//   TooManyMissedTimes   Warning  "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
//   UnknownTimeZone      Warning  "invalid timeZone: \"<zone>\": unknown time zone <zone>"
//   UnsupportedSchedule  Warning  "CRON_TZ or TZ used in schedule \"<schedule>\" is not officially supported, see …"
//   UnparseableSchedule  Warning  "unparseable schedule: \"<schedule>\" : <error>"
//   InvalidSchedule      Warning  "invalid schedule: <schedule> : <error>"
// (UnParseableCronJobSchedule, which upstream records from its CronJob update handler when a changed schedule does
// not parse, has no counterpart: fleetq has no update handler, and the reconcile that follows records
// UnparseableSchedule, as upstream's does.)
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { CRONJOB_API_VERSION, CRONJOB_EVENT_SOURCE, CRONJOB_KIND, Reason, type CronJob } from './types.js';

export function regardingCronJob(cj: CronJob): InvolvedObject {
  return regardingObject(CRONJOB_KIND, CRONJOB_API_VERSION, cj.metadata);
}

export function cronJobEvent(cj: CronJob, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingCronJob(cj), source: CRONJOB_EVENT_SOURCE, type, reason, message };
}

export function jobCreateEvents(cj: CronJob, jobName: string): WriteEvents {
  return {
    onSuccess: [cronJobEvent(cj, EventType.Normal, Reason.SuccessfulCreate, `Created job ${jobName}`)],
    // AlreadyExists is upstream's "created by another actor" branch, never a FailedCreate.
    onFailure: {
      ...cronJobEvent(cj, EventType.Warning, Reason.FailedCreate, 'Error creating job: '),
      detail: 'error',
      quietOn: ['AlreadyExists'],
    },
  };
}

export function jobDeleteEvents(cj: CronJob, jobName: string): WriteEvents {
  return {
    onSuccess: [cronJobEvent(cj, EventType.Normal, Reason.SuccessfulDelete, `Deleted job ${jobName}`)],
    onFailure: { ...cronJobEvent(cj, EventType.Warning, Reason.FailedDelete, 'Deleted job: '), detail: 'error' },
  };
}
