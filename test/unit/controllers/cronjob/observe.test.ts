// What one CronJob reconcile reads: the CronJob and its Jobs through the view; fresh reads only where upstream
// makes them (an unfinished Job missing from status.active, an active Job the cache lacks, Replace), and the run's
// Job only when a run is due.
import { describe, expect, it } from '@jest/globals';
import { observeCronJob } from '../../../../shared/controllers/cronjob/observe.js';
import type { CronJob, Job } from '../../../../shared/controllers/cronjob/types.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { CJ, NOW, NS, aCronJob, aJob, ref, runName } from './builders.js';

/** The cache's objects, and what the apiserver would answer a fresh GET with. */
class TwoCopiesView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  constructor(
    private readonly cached: ApiObject[],
    private readonly live: ApiObject[] = cached,
  ) {}
  async get<T extends ApiObject>(kind: string, _ns: string, name: string, o?: { fresh?: boolean }): Promise<T | null> {
    this.requests.push(`GET ${kind} ${name}${o?.fresh ? ' fresh' : ''}`);
    const from = o?.fresh ? this.live : this.cached;
    return Promise.resolve((from.find((x) => x.kind === kind && x.metadata?.name === name) ?? null) as T | null);
  }
  async list<T extends ApiObject>(kind: string): Promise<T[]> {
    this.requests.push(`LIST ${kind}`);
    return Promise.resolve(this.cached.filter((x) => x.kind === kind) as T[]);
  }
}

const key = { cluster: 'c', kind: 'CronJob', namespace: NS, name: CJ };
const base = { namespace: NS, name: CJ };
const RUN = '2026-03-10T10:00:00Z';

describe('observeCronJob', () => {
  it('gone: one GET', async () => {
    const view = new TwoCopiesView([]);
    expect(await observeCronJob(view, key, NOW)).toEqual({ ...base, cronJob: null, jobs: [] });
    expect(view.requests).toEqual(['GET CronJob backup']);
  });

  it('between runs: the CronJob and its Jobs (others filtered out), nothing fresh', async () => {
    const job = aJob(runName(RUN));
    const other = aJob('other', { owner: 'uid-other' });
    const orphan = aJob('orphan', { owner: null });
    const cj = aCronJob({ lastSchedule: RUN, active: [ref(job)] });
    const view = new TwoCopiesView([cj, job, other, orphan]);
    expect(await observeCronJob(view, key, NOW)).toEqual({ ...base, cronJob: cj, jobs: [job], jobsByName: {} });
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job']);
  });

  it("a run due: the run's Job by name (from the cache)", async () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    const view = new TwoCopiesView([cj]);
    expect(await observeCronJob(view, key, NOW)).toEqual({
      ...base,
      cronJob: cj,
      jobs: [],
      jobsByName: {},
      existing: null,
    });
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job', `GET Job ${runName(RUN)}`]);
  });

  it('Replace with a run due: each active Job read fresh', async () => {
    const running = aJob('r1');
    const cj = aCronJob({ policy: 'Replace', lastSchedule: '2026-03-10T09:55:00Z', active: [ref(running)] });
    const view = new TwoCopiesView([cj, running]);
    const o = await observeCronJob(view, key, NOW);
    expect(o.jobsByName).toEqual({ r1: running });
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job', 'GET Job r1 fresh', `GET Job ${runName(RUN)}`]);
  });

  it('an unfinished Job not in status.active (kubectl create job --from): the CronJob read fresh', async () => {
    const manual = aJob('backup-manual');
    const cj = aCronJob({ lastSchedule: RUN });
    const fresh: CronJob = { ...cj, metadata: { ...cj.metadata, resourceVersion: '11' } };
    const view = new TwoCopiesView([cj, manual], [fresh, manual]);
    const o = await observeCronJob(view, key, NOW);
    expect(o.fresh).toEqual(fresh);
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job', 'GET CronJob backup fresh']);
  });

  it('the run just created, not yet in status.active: no fresh read (the plan adds it)', async () => {
    const job = aJob(runName(RUN));
    const cj = aCronJob({ lastSchedule: RUN });
    const view = new TwoCopiesView([cj, job]);
    expect((await observeCronJob(view, key, NOW)).fresh).toBeUndefined();
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job']);
  });

  it('an active reference the cache lacks: a fresh GET of that Job by name', async () => {
    const late: Job = aJob('late');
    const cj = aCronJob({ lastSchedule: RUN, active: [ref(late), ref(aJob('gone'))] });
    const view = new TwoCopiesView([cj], [cj, late]);
    expect((await observeCronJob(view, key, NOW)).jobsByName).toEqual({ late, gone: null });
    expect(view.requests).toEqual(['GET CronJob backup', 'LIST Job', 'GET Job late fresh', 'GET Job gone fresh']);
  });
});
