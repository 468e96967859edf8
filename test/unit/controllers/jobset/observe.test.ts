// What one JobSet reconcile reads: the JobSet, the Jobs it controls (not another owner's, not orphans), and the
// headless Service only with DNS hostnames enabled.
import { describe, expect, it } from '@jest/globals';
import { observeJobSet } from '../../../../shared/controllers/jobset/observe.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { aChildJob, aJobSet, aReplicatedJob, cond, JS, NS } from './builders.js';

class ListView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  constructor(private readonly objects: ApiObject[]) {}
  /** What a fresh read finds instead of the cached object (a JobSet deleted since the cache saw it). */
  freshJobSet?: ApiObject | null;
  async get<T extends ApiObject>(
    kind: string,
    _ns: string,
    name: string,
    o?: { readonly fresh?: boolean },
  ): Promise<T | null> {
    this.requests.push(`GET ${kind} ${name}${o?.fresh === true ? ' (fresh)' : ''}`);
    if (o?.fresh === true && this.freshJobSet !== undefined) return Promise.resolve(this.freshJobSet as T | null);
    return Promise.resolve(
      (this.objects.find((x) => x.kind === kind && x.metadata?.name === name) ?? null) as T | null,
    );
  }
  async list<T extends ApiObject>(kind: string): Promise<T[]> {
    this.requests.push(`LIST ${kind}`);
    return Promise.resolve(this.objects.filter((x) => x.kind === kind) as T[]);
  }
}

const key = { cluster: 'c', kind: 'JobSet', namespace: NS, name: JS };

describe('observeJobSet', () => {
  it('gone: one GET', async () => {
    const view = new ListView([]);
    expect(await observeJobSet(view, key)).toEqual({ namespace: NS, name: JS, jobSet: null, jobs: [] });
    expect(view.requests).toEqual(['GET JobSet test-jobset']);
  });
  it('its own Jobs only; no Service read without DNS hostnames', async () => {
    const mine = aChildJob('a', 0);
    const other = aChildJob('a', 1);
    other.metadata.ownerReferences = [
      { apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'uid-other', controller: true },
    ];
    const orphan = aChildJob('a', 2);
    delete orphan.metadata.ownerReferences;
    const js = aJobSet();
    const view = new ListView([js, mine, other, orphan]);
    const got = await observeJobSet(view, key);
    expect(got.jobs).toEqual([mine]);
    expect(got.service).toBeUndefined();
    expect(view.requests).toEqual(['GET JobSet test-jobset', 'LIST Job']);
  });
  it('with DNS hostnames: the Service named by the subdomain, null when missing; the fresh JobSet read last', async () => {
    const js = aJobSet({ network: { enableDNSHostnames: true, subdomain: 'net' } });
    const view = new ListView([js]);
    expect((await observeJobSet(view, key)).service).toBeNull();
    expect(view.requests).toEqual([
      'GET JobSet test-jobset',
      'LIST Job',
      'GET Service net',
      'GET JobSet test-jobset (fresh)',
    ]);
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'net', namespace: NS } };
    expect((await observeJobSet(new ListView([js, svc]), key)).service).toEqual(svc);
  });
  it('Jobs missing: the JobSet read again fresh; deleted meanwhile, nothing to create for', async () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob('a', 2)] });
    const deleting = { ...js, metadata: { ...js.metadata, deletionTimestamp: '2026-03-10T10:00:29Z' } };
    const view = new ListView([js, aChildJob('a', 0)]);
    view.freshJobSet = deleting;
    expect((await observeJobSet(view, key)).jobSet).toEqual(deleting);
    expect(view.requests).toEqual(['GET JobSet test-jobset', 'LIST Job', 'GET JobSet test-jobset (fresh)']);
    view.freshJobSet = null;
    expect(await observeJobSet(view, key)).toEqual({ namespace: NS, name: JS, jobSet: null, jobs: [] });
  });
  it('every Job there, or finished: no second read', async () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob('a', 2)] });
    const view = new ListView([js, aChildJob('a', 0), aChildJob('a', 1)]);
    await observeJobSet(view, key);
    expect(view.requests).toEqual(['GET JobSet test-jobset', 'LIST Job']);
    const finished = aJobSet({}, { conditions: [cond('Completed', 'True', 'AllJobsCompleted')] });
    const afterFinish = new ListView([finished]);
    await observeJobSet(afterFinish, key);
    expect(afterFinish.requests).toEqual(['GET JobSet test-jobset', 'LIST Job']);
  });
});
