// The TTL-after-finished planner against ttlafterfinished_controller.go (1.37) processJob/processTTL, with a
// fixed clock: whole plan results.
import { describe, expect, it } from '@jest/globals';
import { planTtlJob } from '../../../../shared/controllers/ttl-after-finished/plan.js';
import { JOB, JOB_UID, NOW, NS, aJob, at, complete, observed } from './builders.js';

const deleteJob = (uid = JOB_UID) => ({
  type: 'delete',
  target: { kind: 'Job', namespace: NS, name: JOB },
  uid,
  propagationPolicy: 'Foreground',
  reason: 'TTLExpired',
});

const expired = aJob({ ttl: 100, finished: complete(-120) });

describe('TTL-after-finished planner', () => {
  it.each([
    { name: 'the Job is gone: nothing', o: observed(null), want: { actions: [] } },
    {
      name: 'not finished (no terminal condition): nothing, no requeue',
      o: observed(aJob({ ttl: 100 })),
      want: { actions: [] },
    },
    {
      name: 'not finished (Complete is False): nothing',
      o: observed(aJob({ ttl: 100, conditions: [{ type: 'Complete', status: 'False', lastTransitionTime: at(-9) }] })),
      want: { actions: [] },
    },
    {
      name: 'not finished (only SuccessCriteriaMet): nothing',
      o: observed(
        aJob({ ttl: 0, conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at(-9) }] }),
      ),
      want: { actions: [] },
    },
    {
      name: 'finished without a TTL: nothing',
      o: observed(aJob({ finished: complete(-3600) })),
      want: { actions: [] },
    },
    {
      name: 'being deleted: nothing, even when long expired',
      o: observed(aJob({ ttl: 0, finished: complete(-3600), deleting: true })),
      want: { actions: [] },
    },
    {
      name: 'not yet expired: requeued after the time left (finished 10 s ago, ttl 100 → 90 s)',
      o: observed(aJob({ ttl: 100, finished: complete(-10) })),
      want: { actions: [], requeueAfter: 90_000 },
    },
    {
      name: 'not yet expired, a Failed Job the same way',
      o: observed(aJob({ ttl: 2, finished: { type: 'Failed', at: -1 } })),
      want: { actions: [], requeueAfter: 1_000 },
    },
    {
      name: 'finish time in the future (clock skew): deferred, requeued after finish + ttl − now',
      o: observed(aJob({ ttl: 10, finished: complete(30) })),
      want: { actions: [], requeueAfter: 40_000 },
    },
    {
      name: 'finish time in the future with ttl 0: deferred until the finish time',
      o: observed(aJob({ ttl: 0, finished: complete(5) })),
      want: { actions: [], requeueAfter: 5_000 },
    },
    {
      name: 'expired, the fresh copy too: deleted with its uid, Foreground',
      o: observed(expired, expired),
      want: { actions: [deleteJob()] },
    },
    {
      name: 'ttl 0, finished now: expired at once, deleted',
      o: observed(aJob({ ttl: 0, finished: complete(0) }), aJob({ ttl: 0, finished: complete(0) })),
      want: { actions: [deleteJob()] },
    },
    {
      name: 'expired exactly now (finish + ttl = now): deleted (upstream: time left ≤ 0)',
      o: observed(aJob({ ttl: 5, finished: complete(-5) }), aJob({ ttl: 5, finished: complete(-5) })),
      want: { actions: [deleteJob()] },
    },
    {
      name: 'a Failed Job expired: deleted',
      o: observed(
        aJob({ ttl: 1, finished: { type: 'Failed', at: -2 } }),
        aJob({ ttl: 1, finished: { type: 'Failed', at: -2 } }),
      ),
      want: { actions: [deleteJob()] },
    },
    {
      name: 'the finish time is the terminal condition’s, not an earlier SuccessCriteriaMet’s',
      o: observed(
        aJob({
          ttl: 60,
          finished: complete(-30),
          conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at(-90) }],
        }),
      ),
      want: { actions: [], requeueAfter: 30_000 },
    },
    {
      name: 'expired in the cache, the fresh copy’s TTL was raised since: requeued after its time left',
      o: observed(expired, aJob({ ttl: 3600, finished: complete(-120) })),
      want: { actions: [], requeueAfter: 3_480_000 },
    },
    {
      name: 'expired in the cache, the fresh copy has no TTL any more: nothing',
      o: observed(expired, aJob({ finished: complete(-120) })),
      want: { actions: [] },
    },
    {
      name: 'expired in the cache, gone by the fresh read: nothing',
      o: observed(expired, null),
      want: { actions: [] },
    },
    {
      name: 'expired in the cache, the fresh copy is being deleted: nothing',
      o: observed(expired, aJob({ ttl: 100, finished: complete(-120), deleting: true })),
      want: { actions: [] },
    },
    {
      name: 'expired in the cache, recreated under another uid and not finished: nothing',
      o: observed(expired, aJob({ ttl: 100, uid: 'uid-new' })),
      want: { actions: [] },
    },
    {
      name: 'expired in the cache, recreated under another uid and expired too: the fresh uid is the precondition',
      o: observed(expired, aJob({ ttl: 10, finished: complete(-20), uid: 'uid-new' })),
      want: { actions: [deleteJob('uid-new')] },
    },
    {
      name: 'expired by this clock, but observe (a moment earlier) read no fresh copy: look again at once',
      o: observed(expired),
      want: { actions: [], requeueAfter: 0 },
    },
  ])('$name', ({ o, want }) => expect(planTtlJob(o, NOW)).toEqual(want));

  it('spec.managedBy is not looked at: a Job another controller manages is deleted all the same (as upstream)', () => {
    const foreign = { ...expired, spec: { ...expired.spec, managedBy: 'kueue.x-k8s.io/multikueue' } };
    expect(planTtlJob(observed(foreign, foreign), NOW)).toEqual({ actions: [deleteJob()] });
  });

  it('the time left is counted from now, to the millisecond', () => {
    const o = observed(aJob({ ttl: 2, finished: complete(0) }));
    expect(planTtlJob(o, new Date(NOW.getTime() + 250))).toEqual({ actions: [], requeueAfter: 1_750 });
  });

  it('a finished Job without the finish time: a retryable error (upstream retries it with backoff)', () => {
    const o = observed(aJob({ ttl: 10, finished: { type: 'Complete', at: null } }));
    expect(() => planTtlJob(o, NOW)).toThrow(
      expect.objectContaining({
        code: 'PlanFailed',
        retryable: true,
        message: `unable to find the time when the Job ${NS}/${JOB} finished`,
      }),
    );
  });
});
