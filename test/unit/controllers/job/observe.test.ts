// What one Job reconcile reads: its pods and the namespace's orphans; and the namespace's terminating pods that
// still name a Job of its name under another uid with the tracking finalizer (a Job deleted and created again).
import { describe, expect, it } from '@jest/globals';
import { observeJob } from '../../../../shared/controllers/job/observe.js';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { JOB, NS, aJob, aPod, jobRef } from './builders.js';

/** A view over fixed objects with no listControlledOrOrphaned: controlledOrOrphaned() lists and filters. */
class ListView implements ClusterView {
  readonly cluster = 'c';
  constructor(private readonly objects: ApiObject[]) {}
  async get<T extends ApiObject>(kind: string, _ns: string, name: string): Promise<T | null> {
    return Promise.resolve(
      (this.objects.find((x) => x.kind === kind && x.metadata?.name === name) ?? null) as T | null,
    );
  }
  async list<T extends ApiObject>(kind: string): Promise<T[]> {
    return Promise.resolve(this.objects.filter((x) => x.kind === kind) as T[]);
  }
}

const key = { cluster: 'c', kind: 'Job', namespace: NS, name: JOB };
const names = (pods: readonly Pod[] | undefined) => (pods ?? []).map((p) => p.metadata?.name);

/** A pod whose controller reference names a Job called `job` with uid `uid`. */
function ownedBy(name: string, job: string, uid: string, o: { deleting?: boolean; finalizer?: boolean } = {}): Pod {
  const p = aPod(name, o);
  return { ...p, metadata: { ...p.metadata, ownerReferences: [{ ...jobRef, name: job, uid }] } };
}

describe('observeJob', () => {
  it("a Job created again: the replaced Job's terminating pods with the finalizer, apart from the Job's own", async () => {
    const pods = [
      aPod('mine'),
      aPod('orphan', { orphan: true }),
      ownedBy('replaced-going', JOB, 'uid-replaced', { deleting: true }),
      ownedBy('replaced-released', JOB, 'uid-replaced', { deleting: true, finalizer: false }),
      ownedBy('other-job-going', 'another', 'uid-another', { deleting: true }),
      ownedBy('replaced-running', JOB, 'uid-replaced'),
    ];
    const got = await observeJob(new ListView([aJob(), ...pods]), key);
    expect(names(got.pods)).toEqual(['mine', 'orphan']);
    expect(names(got.replacedJobPods)).toEqual(['replaced-going']);
  });

  it('no replaced pods: the field is absent', async () => {
    const got = await observeJob(new ListView([aJob(), aPod('mine')]), key);
    expect(got.replacedJobPods).toBeUndefined();
  });
});
