// Job conditions as job_controller.go writes them: newCondition (probe and transition time both now) and
// ensureJobConditionStatus (update in place when status, reason or message differ; never add a False one). The
// finished test (util.IsJobFinished) is common/job-api.ts's, shared with the CronJob and TTL controllers.
import { wireTime } from '../common/wire-time.js';
import type { JobCondition } from './types.js';

export function newCondition(
  type: string,
  status: JobCondition['status'],
  reason: string,
  message: string,
  now: Date,
): JobCondition {
  const t = wireTime(now);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, reason, message };
}

export function findCondition(conditions: readonly JobCondition[] | undefined, type: string): JobCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** ensureJobConditionStatus: the new list, and whether it changed. */
export function ensureCondition(
  conditions: readonly JobCondition[],
  type: string,
  status: JobCondition['status'],
  reason: string,
  message: string,
  now: Date,
): { conditions: JobCondition[]; changed: boolean } {
  const i = conditions.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = conditions[i]!;
    if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message) {
      return { conditions: [...conditions], changed: false };
    }
    const next = [...conditions];
    next[i] = newCondition(type, status, reason, message, now);
    return { conditions: next, changed: true };
  }
  if (status === 'False') return { conditions: [...conditions], changed: false };
  return { conditions: [...conditions, newCondition(type, status, reason, message, now)], changed: true };
}
