// The CronJob's reading of a snapshot. A CronJob's Jobs are named `<cronjob>-<scheduled time in minutes since the
// epoch>`, and its status holds times: both sides run at the same wall-clock time but may create their CronJob
// either side of a minute, so each time is written as the minutes since the minute its CronJob was created
// (`backup-+2` is the run two minutes after), a Job of another name (kubectl create job --from) keeps its name, and
// lastSuccessfulTime is compared by presence. The Job plug-in names Jobs through cronJobRuns.
import { controllerOf } from './model.js';
import type { ConformancePlugin } from './plugin.js';
import type { CronJob, Job, Snapshot } from './types.js';

const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
const MINUTE_MS = 60_000;

export type CronJobRuns = {
  /** `<cronjob>-+<n>` of a CronJob's Job named `<cronjob>-<minutes>`. */
  readonly jobKeys: ReadonlyMap<string, string>;
  /** A Job gone by now (named only by an event) whose name is `<cronjob>-<minutes>` of a CronJob here. */
  byName(name: string): string | undefined;
  /** A CronJob's Job: when it was scheduled, and whether its name says that minute. */
  runOf(j: Job): Record<string, unknown> | undefined;
  normalize(c: CronJob): unknown;
};

export function cronJobRuns(s: Snapshot): CronJobRuns {
  const byUid = new Map((s.cronJobs ?? []).map((c) => [c.metadata.uid ?? '', c]));
  const base = (c: CronJob | undefined): number | undefined => {
    const t = Date.parse(c?.metadata.creationTimestamp ?? '');
    return Number.isNaN(t) ? undefined : Math.floor(t / MINUTE_MS);
  };
  const relative = (c: CronJob | undefined, ms: number): string => {
    const b = base(c);
    return b === undefined ? '?' : `+${Math.floor(ms / MINUTE_MS) - b}`;
  };
  const jobKeys = new Map<string, string>();
  const runs = new Map<string, Record<string, unknown>>();
  for (const j of s.jobs) {
    const r = controllerOf(j.metadata);
    if (r?.kind !== 'CronJob') continue;
    const c = byUid.get(r.uid);
    const name = j.metadata.name ?? '';
    const m = /^(.*)-(\d+)$/.exec(name);
    const scheduled = j.metadata.annotations?.[SCHEDULED_TIMESTAMP];
    const at = scheduled === undefined ? undefined : Date.parse(scheduled);
    if (m !== null && m[1] === r.name) jobKeys.set(name, `${r.name}-${relative(c, Number(m[2]) * MINUTE_MS)}`);
    runs.set(name, {
      scheduled: at === undefined ? '(no annotation)' : relative(c, at),
      nameIsScheduledMinute: m !== null && at !== undefined && Number(m[2]) === Math.floor(at / MINUTE_MS),
    });
  }
  return {
    jobKeys,
    byName: (name) => {
      const m = /^(.*)-(\d+)$/.exec(name);
      const c = m === null ? undefined : (s.cronJobs ?? []).find((x) => x.metadata.name === m[1]);
      return m === null || c === undefined ? undefined : `${m[1]}-${relative(c, Number(m[2]) * MINUTE_MS)}`;
    },
    runOf: (j) => runs.get(j.metadata.name ?? ''),
    normalize: (c) => {
      const st = c.status ?? {};
      const last = st.lastScheduleTime === undefined ? undefined : Date.parse(st.lastScheduleTime);
      return {
        spec: { ...c.spec, jobTemplate: '(as written)' },
        status: {
          active: (st.active ?? []).map((a) => jobKeys.get(a.name ?? '') ?? a.name).sort(),
          lastScheduleTime: last === undefined ? undefined : relative(c, last),
          lastSuccessfulTime: st.lastSuccessfulTime !== undefined,
        },
      };
    },
  };
}

function normalizeCronJobs(s: Snapshot): { cronJobs: Record<string, unknown> } {
  const runs = cronJobRuns(s);
  const cronJobs: Record<string, unknown> = {};
  for (const c of s.cronJobs ?? []) cronJobs[c.metadata.name ?? '?'] = runs.normalize(c);
  return { cronJobs };
}

/** The CronJob plug-in: CronJobs listed (before their Jobs) once a scenario created one, times relative. */
export const cronJobPlugin: ConformancePlugin = {
  kind: 'CronJob',
  needs: ['CronJob', 'Job'],
  lists: [{ kind: 'CronJob', field: 'cronJobs', before: 'Job' }],
  normalize: normalizeCronJobs,
};
