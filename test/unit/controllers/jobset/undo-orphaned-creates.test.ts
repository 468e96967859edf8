// After a pass created Jobs, the JobSet is read again: gone (or another object of its name), or marked for deletion in
// the foreground, and the Jobs the pass created for it are deleted at once; still there otherwise, nothing is undone.
import { describe, expect, it } from '@jest/globals';
import { undoCreatesForGoneJobSet } from '../../../../shared/controllers/jobset/undo-orphaned-creates.js';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { aChildJob, aJobSet, aReplicatedJob, JS, NOW, NS, observed } from './builders.js';

/** Fresh reads only: what the apiserver holds now, by kind and name. */
class FreshView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  constructor(private readonly objects: ApiObject[]) {}
  async get<T extends ApiObject>(
    kind: string,
    _ns: string,
    name: string,
    o?: { readonly fresh?: boolean },
  ): Promise<T | null> {
    this.requests.push(`GET ${kind} ${name}${o?.fresh === true ? ' (fresh)' : ''}`);
    return Promise.resolve(
      (this.objects.find((x) => x.kind === kind && x.metadata?.name === name) ?? null) as T | null,
    );
  }
  async list<T extends ApiObject>(): Promise<T[]> {
    return Promise.reject(new Error('not read by the undo'));
  }
}

const key = { cluster: 'c', kind: 'JobSet', namespace: NS, name: JS };
const jobSet = aJobSet({ replicatedJobs: [aReplicatedJob('workers', 2)] });
const seen = observed(jobSet, []);
const pass = planJobSet(seen, NOW);
/** The two Jobs the pass created, as the apiserver holds them (uids given on create). */
const createdJobs = [0, 1].map((i) => {
  const job = aChildJob('workers', i);
  return { ...job, metadata: { ...job.metadata, uid: `job-uid-${i}` } };
});

describe('undoCreatesForGoneJobSet', () => {
  it('the pass creates two Jobs (the premise)', () => {
    expect(pass.actions.filter((a) => a.type === 'create').length).toBe(2);
  });

  it('the JobSet gone: each Job it created is deleted by its uid', async () => {
    const view = new FreshView(createdJobs);
    const undo = await undoCreatesForGoneJobSet(view, key, seen, pass);
    expect(undo).toEqual(
      createdJobs.map((j) => ({
        type: 'delete',
        target: { kind: 'Job', namespace: NS, name: j.metadata.name },
        uid: j.metadata.uid,
        reason: 'OwnerJobSetGone',
      })),
    );
    expect(view.requests[0]).toBe(`GET JobSet ${JS} (fresh)`);
  });

  it('another JobSet of the name: the old one’s Jobs are deleted, not the new one’s', async () => {
    const again = aJobSet({}, {}, { uid: 'uid-new' });
    const theirs = { ...createdJobs[1]!, metadata: { ...createdJobs[1]!.metadata, ownerReferences: [] } };
    const view = new FreshView([again, createdJobs[0]!, theirs]);
    const undo = await undoCreatesForGoneJobSet(view, key, seen, pass);
    expect(undo.map((a) => (a.type === 'delete' ? a.uid : ''))).toEqual(['job-uid-0']);
  });

  it('the JobSet marked for deletion in the foreground: its new Jobs deleted in the foreground, as the collector would', async () => {
    const deleting = aJobSet({}, {}, { deletionTimestamp: NOW.toISOString(), finalizers: ['foregroundDeletion'] });
    const view = new FreshView([deleting, ...createdJobs]);
    expect(await undoCreatesForGoneJobSet(view, key, seen, pass)).toEqual(
      createdJobs.map((j) => ({
        type: 'delete',
        target: { kind: 'Job', namespace: NS, name: j.metadata.name },
        uid: j.metadata.uid,
        reason: 'OwnerJobSetGone',
        propagationPolicy: 'Foreground',
      })),
    );
  });

  it('the JobSet still there, marked for deletion behind another finalizer or orphaning: nothing undone', async () => {
    for (const finalizers of [['example.com/hold'], ['orphan'], undefined]) {
      const deleting = aJobSet({}, {}, { deletionTimestamp: NOW.toISOString(), ...(finalizers && { finalizers }) });
      const view = new FreshView([deleting, ...createdJobs]);
      expect(await undoCreatesForGoneJobSet(view, key, seen, pass)).toEqual([]);
      expect(view.requests).toEqual([`GET JobSet ${JS} (fresh)`]);
    }
  });

  it('a pass that created nothing reads nothing', async () => {
    const view = new FreshView([]);
    expect(await undoCreatesForGoneJobSet(view, key, seen, { actions: [] })).toEqual([]);
    expect(view.requests).toEqual([]);
  });
});
