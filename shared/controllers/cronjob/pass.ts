// The state one CronJob pass works on (sync's cronJobCopy), and how it ends: the CronJob planned on (the cached copy,
// or the fresh one once syncCronJob switched to it), status.active and the other status fields as the pass changes
// them, the actions so far in upstream's order (events are `event` actions, or ride on their writes), and at the end
// the status write, only if the status changed (upstream writes whenever a step flagged it; an unchanged status is
// the same object), then the requeue.
import { isDeepStrictEqual } from 'node:util';
import type { Action } from '../../kube/actions.js';
import { ReconcileError } from '../../kube/errors.js';
import type { EventSpec, EventType } from '../../kube/events/types.js';
import type { PlanResult } from '../controller.js';
import { cronJobEvent } from './events.js';
import { timeMs, wireTime } from '../common/wire-time.js';
import type { CronJob, CronJobStatus, Job, ObjectReference } from './types.js';
import { jsonCopy } from '../common/json-copy.js';

/** How soon a pass that upstream ends with an error, after writing status, looks again. */
export const ERROR_RETRY_MS = 1000;

/** The state one pass works on: the CronJob planned on, and its status as the pass changes it. */
export type Pass = {
  cj: CronJob;
  active: ObjectReference[];
  status: CronJobStatus;
  readonly actions: Action[];
};

export type Outcome = { readonly requeueAfter?: number } | 'gone' | 'error';

export function start(cj: CronJob): Pass {
  const status = jsonCopy(cj.status ?? {});
  return { cj, active: [...(status.active ?? [])], status, actions: [] };
}

/** Plan on the CronJob read fresh from here on, keeping what the pass did to status.active so far. */
export function switchTo(pass: Pass, fresh: CronJob): void {
  const dropped = (pass.cj.status?.active ?? []).filter((r) => !pass.active.some((a) => a.uid === r.uid));
  const status = jsonCopy(fresh.status ?? {});
  pass.cj = fresh;
  pass.status = { ...status, lastSuccessfulTime: pass.status.lastSuccessfulTime ?? status.lastSuccessfulTime };
  pass.active = (status.active ?? []).filter((r) => !dropped.some((d) => d.uid === r.uid));
}

export function recordSuccess(pass: Pass, job: Job): void {
  const completed = timeMs(job.status?.completionTime);
  const last = timeMs(pass.status.lastSuccessfulTime);
  if (pass.status.lastSuccessfulTime === undefined || pass.status.lastSuccessfulTime === null) {
    if (completed !== undefined) pass.status.lastSuccessfulTime = wireTime(completed);
    return;
  }
  if (completed !== undefined && (last === undefined || completed > last)) {
    pass.status.lastSuccessfulTime = wireTime(completed);
  }
}

/** The CronJob as the pass has changed it (status.active included). */
export function withStatus(pass: Pass): CronJob {
  return { ...pass.cj, status: { ...pass.status, active: pass.active } };
}

/** The pass's actions, then its status write (only if the status changed), then the requeue. */
export function finish(pass: Pass, outcome: Exclude<Outcome, 'gone'>): PlanResult {
  const before = pass.cj.status ?? {};
  // deleteFromActiveList leaves an empty list, which the apiserver keeps as no list (omitempty).
  const after: CronJobStatus = { ...pass.status, active: pass.active };
  if (pass.active.length === 0) delete after.active;
  const changed = !isDeepStrictEqual(normalizeStatus(before), normalizeStatus(after));
  const actions = [...pass.actions];
  if (changed) {
    const object: CronJob = { ...pass.cj, status: after };
    actions.push({ type: 'updateStatus', object });
  }
  if (outcome === 'error') {
    if (actions.length === 0)
      throw new ReconcileError(
        'PlanFailed',
        `CronJob ${pass.cj.metadata.namespace}/${pass.cj.metadata.name}: see its events`,
      );
    return { actions, requeueAfter: ERROR_RETRY_MS };
  }
  return { actions, ...(outcome.requeueAfter !== undefined && { requeueAfter: outcome.requeueAfter }) };
}

/** Status compared as the apiserver keeps it: an empty active list is no list. */
function normalizeStatus(s: CronJobStatus): CronJobStatus {
  const out: CronJobStatus = { ...s };
  if (!out.active || out.active.length === 0) delete out.active;
  for (const k of ['lastScheduleTime', 'lastSuccessfulTime'] as const)
    if (out[k] === null || out[k] === undefined) delete out[k];
  return out;
}

export function event(pass: Pass, type: EventType, reason: string, message: string): void {
  pass.actions.push({ type: 'event', event: cronJobEvent(pass.cj, type, reason, message) });
}

export function eventsOf(pass: Pass, events: EventSpec[]): void {
  for (const e of events.splice(0)) pass.actions.push({ type: 'event', event: e });
}
