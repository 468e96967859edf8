// What one TTL-after-finished reconcile reads: the Job through the view, and a fresh GET only once it is due.
import { describe, expect, it } from '@jest/globals';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { Job } from '../../../../shared/controllers/job/types.js';
import { observeTtlJob } from '../../../../shared/controllers/ttl-after-finished/observe.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { JOB, NOW, NS, aJob, complete } from './builders.js';

/** A view holding one cached copy of the Job and another the apiserver would answer a fresh GET with. */
class TwoCopiesView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  constructor(
    private readonly cached: Job | null,
    private readonly live: Job | null = cached,
  ) {}
  async get<T extends ApiObject>(kind: string, _ns: string, _name: string, o?: { fresh?: boolean }): Promise<T | null> {
    this.requests.push(`GET ${kind}${o?.fresh ? ' fresh' : ''}`);
    return Promise.resolve((o?.fresh ? this.live : this.cached) as T | null);
  }
  async list<T extends ApiObject>(): Promise<T[]> {
    this.requests.push('LIST');
    return Promise.resolve([]);
  }
}

const key = { cluster: 'c', kind: 'TTLAfterFinished', namespace: NS, name: JOB };
const base = { namespace: NS, name: JOB };

describe('observeTtlJob', () => {
  it.each([
    { name: 'gone', job: null },
    { name: 'not finished', job: aJob({ ttl: 0 }) },
    { name: 'finished without a TTL', job: aJob({ finished: complete(-100) }) },
    { name: 'being deleted', job: aJob({ ttl: 0, finished: complete(-100), deleting: true }) },
    { name: 'not yet expired', job: aJob({ ttl: 100, finished: complete(-10) }) },
    { name: 'no finish time (plan says so)', job: aJob({ ttl: 0, finished: { type: 'Complete', at: null } }) },
  ])('$name: one GET through the view, no fresh read', async ({ job }) => {
    const view = new TwoCopiesView(job);
    expect(await observeTtlJob(view, key, NOW)).toEqual({ ...base, job });
    expect(view.requests).toEqual(['GET Job']);
  });

  it('expired by now: the Job again, uncached (what the delete is decided on)', async () => {
    const cached = aJob({ ttl: 100, finished: complete(-120) });
    const fresh = aJob({ ttl: 3600, finished: complete(-120) });
    const view = new TwoCopiesView(cached, fresh);
    expect(await observeTtlJob(view, key, NOW)).toEqual({ ...base, job: cached, fresh });
    expect(view.requests).toEqual(['GET Job', 'GET Job fresh']);
  });

  it('expired, gone by the fresh read: fresh is null', async () => {
    const cached = aJob({ ttl: 0, finished: complete(0) });
    const view = new TwoCopiesView(cached, null);
    expect(await observeTtlJob(view, key, NOW)).toEqual({ ...base, job: cached, fresh: null });
  });

  it('without a clock: every Job that needs cleanup is re-read fresh', async () => {
    const job = aJob({ ttl: 100, finished: complete(-10) });
    const view = new TwoCopiesView(job);
    expect(await observeTtlJob(view, key)).toEqual({ ...base, job, fresh: job });
    expect(view.requests).toEqual(['GET Job', 'GET Job fresh']);
  });
});
