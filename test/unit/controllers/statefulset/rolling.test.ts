// RollingUpdate (MaxUnavailableStatefulSet on, as in 1.37): from the highest ordinal down to the partition, within
// maxUnavailable (int or percent of replicas rounded down, at least 1); OnDelete deletes nothing; an update is
// complete once every replica is updated and Ready.
import { describe, expect, it } from '@jest/globals';
import { planStatefulSet } from '../../../../shared/controllers/statefulset/plan.js';
import { maxUnavailableOf } from '../../../../shared/controllers/statefulset/rolling.js';
import { aPod, aRevision, aSet, NOW, observed, revOf, type SetOptions } from './builders.js';
import { summarize } from './summary.js';

const v1 = aSet();
const R1 = revOf(v1);
const R2 = revOf(aSet({ image: 'web:2' }));

/** The set at web:2 whose status names R1 current, revisions 1 (web:1) and 2 (web:2). */
function v2(o: SetOptions = {}) {
  const set = aSet({ image: 'web:2', ...o, status: { currentRevision: R1, updateRevision: R2, ...o.status } });
  return { set, revisions: [aRevision(aSet(o), 1), aRevision(set, 2)] };
}
const st = (r: number, ready: number, cur: number, upd: number, c = R1) =>
  `status r=${r} ready=${ready} avail=${ready} cur=${cur} upd=${upd} ${c}->${R2} gen=1 cc=0`;

function obs(o: SetOptions, states: ('old' | 'new' | 'newPending' | 'oldPending' | 'none')[]) {
  const { set, revisions } = v2(o);
  const old = aSet(o);
  const pods = states.flatMap((s, i) =>
    s === 'none' ? [] : [aPod(set, i, s.endsWith('Pending') ? 'pending' : 'ready', s.startsWith('old') ? old : set)],
  );
  return observed(set, pods, revisions);
}

describe('rolling update', () => {
  it.each([
    {
      name: 'the highest ordinal first',
      o: obs({}, ['old', 'old', 'old']),
      want: ['delete Pod web-2', st(3, 3, 2, 0)],
    },
    {
      name: 'its replacement at the update revision',
      o: obs({}, ['old', 'old', 'none']),
      want: [`create Pod web-2 (${R2})`, st(2, 2, 2, 0)],
    },
    {
      name: 'waits while the updated pod is not Ready (OrderedReady)',
      o: obs({}, ['old', 'old', 'newPending']),
      want: [st(3, 2, 2, 1)],
    },
    { name: 'then the next one down', o: obs({}, ['old', 'old', 'new']), want: ['delete Pod web-1', st(3, 3, 1, 1)] },
    {
      name: 'partition 2: ordinals below it stay',
      o: obs({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }, ['old', 'old', 'new']),
      want: [st(3, 3, 2, 1)],
    },
    {
      name: 'partition 2: a missing ordinal below it is recreated at the current revision',
      o: obs({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }, ['old', 'none', 'new']),
      want: [`create Pod web-1 (${R1})`, st(2, 2, 1, 1)],
    },
    {
      name: 'maxUnavailable 2: two at once',
      o: obs({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } }, [
        'old',
        'old',
        'old',
      ]),
      want: ['delete Pod web-2', 'delete Pod web-1', st(3, 3, 1, 0)],
    },
    {
      name: 'Parallel, maxUnavailable 2: an outdated unavailable pod does not use the budget up',
      o: obs(
        {
          podManagementPolicy: 'Parallel',
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } },
        },
        ['old', 'old', 'oldPending'],
      ),
      want: ['delete Pod web-2', 'delete Pod web-1', st(3, 2, 1, 0)],
    },
    {
      name: 'OnDelete: nothing is deleted',
      o: obs({ updateStrategy: { type: 'OnDelete' } }, ['old', 'old', 'old']),
      want: [st(3, 3, 3, 0)],
    },
    {
      name: 'OnDelete: a deleted pod comes back at the update revision',
      o: obs({ updateStrategy: { type: 'OnDelete' } }, ['old', 'none', 'old']),
      want: [`create Pod web-1 (${R2})`, st(2, 2, 2, 0)],
    },
    {
      name: 'complete: every replica updated and Ready makes the update revision current',
      o: obs({}, ['new', 'new', 'new']),
      want: [st(3, 3, 3, 3, R2)],
    },
  ])('$name', ({ o, want }) => expect(summarize(planStatefulSet(o, NOW))).toEqual({ actions: want }));
});

describe('maxUnavailable rounding (intstr, rounded down, at least 1)', () => {
  it.each([
    { maxUnavailable: undefined, replicas: 5, want: 1 },
    { maxUnavailable: 3, replicas: 5, want: 3 },
    { maxUnavailable: '50%', replicas: 3, want: 1 },
    { maxUnavailable: '50%', replicas: 5, want: 2 },
    { maxUnavailable: '10%', replicas: 5, want: 1 },
    { maxUnavailable: '100%', replicas: 4, want: 4 },
    { maxUnavailable: 0, replicas: 4, want: 1 },
  ])('$maxUnavailable of $replicas → $want', ({ maxUnavailable, replicas, want }) => {
    const rollingUpdate = maxUnavailable === undefined ? { partition: 0 } : { partition: 0, maxUnavailable };
    const set = aSet({ replicas, updateStrategy: { type: 'RollingUpdate', rollingUpdate } });
    expect(maxUnavailableOf(set)).toBe(want);
  });
});
