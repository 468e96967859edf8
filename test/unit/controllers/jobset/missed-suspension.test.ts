// A suspend and a resume that both come before one pass reads the JobSet (Kueue moving a JobSet: suspend, change
// the pod template, resume; the JobSet e2e spec "should allow to resume JobSet after updating PodTemplate" does the
// same within milliseconds). The cache holds only the resumed JobSet; its kept suspended state (cache-entry.ts
// keepsState) lets the pass still suspend the running Jobs, so the next pass resumes them with the new template.
// Through the in-process cache store and the cached view, as a worker reads; the live side is never read.
import { describe, expect, it } from '@jest/globals';
import { applyEvent, type CacheEvent } from '../../../../shared/cache/apply-event.js';
import { CachedClusterView } from '../../../../shared/cache/cached-cluster-view.js';
import { MemoryCacheStore } from '../../../../shared/cache/memory-cache-store.js';
import { observeJobSet } from '../../../../shared/controllers/jobset/observe.js';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { Job, JobSet } from '../../../../shared/controllers/jobset/types.js';
import type { LiveClusterView } from '../../../../shared/kube/cluster-view.js';
import type { Action } from '../../../../shared/kube/actions.js';
import { aChildJob, aJobSet, aReplicatedJob, cond, JS, NOW, NS } from './builders.js';

const key = { cluster: 'c', kind: 'JobSet', namespace: NS, name: JS };

/** A live side that fails the test if read: every kind here is cached and synced. */
const noLiveReads = {
  cluster: 'c',
  get: async () => {
    throw new Error('read live');
  },
  list: async () => {
    throw new Error('read live');
  },
} as unknown as LiveClusterView;

function jobSetWith(suspend: boolean, os: string, rv: string, conditions = [cond('Suspended', 'False', 'ResumeJobs')]) {
  const rjob = aReplicatedJob('a', 2);
  rjob.template.spec.template = { spec: { containers: [{ name: 'c' }], nodeSelector: { 'kubernetes.io/os': os } } };
  return aJobSet({ suspend, replicatedJobs: [rjob] }, { conditions }, { resourceVersion: rv });
}

function runningJob(index: number, os: string, rv: string, suspended = false): Job {
  const job = aChildJob('a', index, { kind: 'active', active: suspended ? 0 : 1, suspended });
  job.spec.template = { spec: { containers: [{ name: 'c' }], nodeSelector: { 'kubernetes.io/os': os } } };
  job.metadata.resourceVersion = rv;
  return job;
}

const modified = (kind: string, object: JobSet | Job): CacheEvent => ({ type: 'MODIFIED', kind, object });

async function setup() {
  const store = new MemoryCacheStore();
  const view = new CachedClusterView({ store, live: noLiveReads, cachedKinds: new Set(['JobSet', 'Job']) });
  await applyEvent(store, {
    type: 'LISTED',
    kind: 'JobSet',
    objects: [jobSetWith(false, 'non-existing-os', '10')],
    resourceVersion: '10',
  });
  await applyEvent(store, {
    type: 'LISTED',
    kind: 'Job',
    objects: [runningJob(0, 'non-existing-os', '8'), runningJob(1, 'non-existing-os', '9')],
    resourceVersion: '10',
  });
  return { store, view };
}

async function pass(view: CachedClusterView) {
  const observed = await observeJobSet(view, key);
  return { observed, ...planJobSet(observed, NOW) };
}

const jobUpdates = (actions: readonly Action[]) =>
  actions.flatMap((a) => (a.type === 'update' ? [a.object as Job] : []));
const suspendedCondition = (actions: readonly Action[]) =>
  actions.flatMap((a) =>
    a.type === 'updateStatus'
      ? ((a.object as JobSet).status?.conditions ?? []).filter((c) => c.type === 'Suspended').map((c) => c.status)
      : [],
  );

describe('JobSet: a suspend folded away by a resume before the pass', () => {
  it('the pass suspends the running Jobs, the next resumes them with the new pod template', async () => {
    const { store, view } = await setup();
    // Suspend with the template changed, then resume, before any pass.
    await applyEvent(store, modified('JobSet', jobSetWith(true, 'linux', '11')));
    await applyEvent(store, modified('JobSet', jobSetWith(false, 'linux', '12')));

    const first = await pass(view);
    expect(first.observed.missedSuspension).toBe(true);
    expect(jobUpdates(first.actions).map((j) => [j.metadata.name, j.spec.suspend])).toEqual([
      ['test-jobset-a-0', true],
      ['test-jobset-a-1', true],
    ]);
    expect(suspendedCondition(first.actions)).toEqual(['True']);
    expect(await store.keptState('JobSet/default/test-jobset')).not.toBeNull(); // kept until its effect is seen

    // The Jobs as that pass's updates left them; the status write too.
    await applyEvent(store, modified('Job', runningJob(0, 'non-existing-os', '13', true)));
    await applyEvent(store, modified('Job', runningJob(1, 'non-existing-os', '14', true)));
    const suspendedStatus = [cond('Suspended', 'True', 'SuspendedJobs')];
    await applyEvent(store, modified('JobSet', jobSetWith(false, 'linux', '15', suspendedStatus)));

    const second = await pass(view);
    expect(second.observed.missedSuspension).toBeUndefined();
    expect(await store.keptState('JobSet/default/test-jobset')).toBeNull();
    expect(
      jobUpdates(second.actions).map((j) => [
        j.metadata.name,
        j.spec.suspend,
        j.spec.template?.spec?.nodeSelector?.['kubernetes.io/os'],
      ]),
    ).toEqual([
      ['test-jobset-a-0', false, 'linux'],
      ['test-jobset-a-1', false, 'linux'],
    ]);
    expect(suspendedCondition(second.actions)).toEqual(['False']);

    // Resumed: nothing kept, nothing suspended again.
    await applyEvent(store, modified('Job', runningJob(0, 'linux', '16')));
    await applyEvent(store, modified('Job', runningJob(1, 'linux', '17')));
    const third = await pass(view);
    expect(jobUpdates(third.actions)).toEqual([]);
  });

  it('a suspend the pass sees as such is dropped, and the pass suspends as upstream', async () => {
    const { store, view } = await setup();
    await applyEvent(store, modified('JobSet', jobSetWith(true, 'linux', '11')));
    const { observed, actions } = await pass(view);
    expect(observed.missedSuspension).toBeUndefined();
    expect(await store.keptState('JobSet/default/test-jobset')).toBeNull();
    expect(jobUpdates(actions).map((j) => j.spec.suspend)).toEqual([true, true]);
  });

  it('resumed with no Job running unsuspended: the kept state is dropped, the pass resumes as upstream', async () => {
    const { store, view } = await setup();
    await applyEvent(store, modified('Job', runningJob(0, 'non-existing-os', '11', true)));
    await applyEvent(store, modified('Job', runningJob(1, 'non-existing-os', '12', true)));
    await applyEvent(store, modified('JobSet', jobSetWith(true, 'linux', '13')));
    await applyEvent(store, modified('JobSet', jobSetWith(false, 'linux', '14')));
    const { observed, actions } = await pass(view);
    expect(observed.missedSuspension).toBeUndefined();
    expect(await store.keptState('JobSet/default/test-jobset')).toBeNull();
    expect(jobUpdates(actions).map((j) => [j.spec.suspend, j.spec.template?.spec?.nodeSelector])).toEqual([
      [false, { 'kubernetes.io/os': 'linux' }],
      [false, { 'kubernetes.io/os': 'linux' }],
    ]);
  });

  it('a kept state of an earlier JobSet of that name (another uid) is dropped and not acted on', async () => {
    const { store, view } = await setup();
    const earlier = jobSetWith(true, 'linux', '11');
    earlier.metadata.uid = 'uid-earlier';
    await applyEvent(store, modified('JobSet', earlier));
    await applyEvent(store, modified('JobSet', jobSetWith(false, 'non-existing-os', '12')));
    const { observed, actions } = await pass(view);
    expect(observed.missedSuspension).toBeUndefined();
    expect(await store.keptState('JobSet/default/test-jobset')).toBeNull();
    expect(jobUpdates(actions)).toEqual([]);
  });
});
