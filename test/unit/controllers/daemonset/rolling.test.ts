// RollingUpdate through the whole planner: maxUnavailable accounting (unavailable outdated pods always replaced,
// available ones up to the budget, nodes without a pod count unavailable), maxSurge (a new pod beside the old,
// old deleted once the new is available, unavailable old pods replaced past the budget), OnDelete, and the
// rule that a pass whose core loop wrote does not roll.
import { describe, expect, it } from '@jest/globals';
import type { DaemonSet } from '../../../../shared/kube/api/objects.js';
import { templateHash } from '../../../../shared/controllers/daemonset/history.js';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { aDaemonSet, aNode, aPod, currentRevision, NOW, observed, type DsOptions } from './builders.js';
import { summarize } from './summary.js';

const OLD = 'oldhash';
const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => aNode(n));
const settled = (o: DsOptions = {}): DaemonSet =>
  aDaemonSet({
    image: 'agent:2',
    ...o,
    // the status as written for the pods below, so that only the rolling actions show
    status: {
      desiredNumberScheduled: 4,
      currentNumberScheduled: 4,
      numberReady: 4,
      numberAvailable: 4,
      numberUnavailable: 0,
      updatedNumberScheduled: 0,
    },
  });

/** The plan's pod writes only (status and history aside): what the rolling update decided. */
function podWrites(ds: DaemonSet, pods: ReturnType<typeof aPod>[]): string[] {
  return summarize(planDaemonSet(observed(ds, nodes, pods, [currentRevision(ds)]), NOW)).actions.filter(
    (a) => a.startsWith('create Pod') || a.startsWith('delete Pod'),
  );
}

describe('rolling update, maxSurge 0', () => {
  const ds = settled({ strategy: { maxUnavailable: 2 } });
  const H = templateHash(ds);
  it.each([
    {
      name: 'all old and available: the first maxUnavailable (2) are deleted',
      pods: ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD, readyFor: 60 })),
      want: [0, 1],
    },
    {
      name: 'one old pod unavailable: it is replaced, and one available one within the budget',
      pods: [
        aPod(ds, 'n1', { hash: OLD, readyFor: 60 }),
        aPod(ds, 'n2', { hash: OLD }),
        aPod(ds, 'n3', { hash: OLD, readyFor: 60 }),
        aPod(ds, 'n4', { hash: OLD, readyFor: 60 }),
      ],
      want: [1, 0],
    },
    {
      name: 'a new pod not yet available uses the budget: one more old pod',
      pods: [
        aPod(ds, 'n1', { hash: H }),
        aPod(ds, 'n2', { hash: OLD, readyFor: 60 }),
        aPod(ds, 'n3', { hash: OLD, readyFor: 60 }),
        aPod(ds, 'n4', { hash: OLD, readyFor: 60 }),
      ],
      want: [1],
    },
    {
      name: 'two new pods not available: budget spent, nothing deleted',
      pods: [
        aPod(ds, 'n1', { hash: H }),
        aPod(ds, 'n2', { hash: H }),
        aPod(ds, 'n3', { hash: OLD, readyFor: 60 }),
        aPod(ds, 'n4', { hash: OLD, readyFor: 60 }),
      ],
      want: [],
    },
    {
      name: 'all unavailable old pods are replaced whatever the budget',
      pods: ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD })),
      want: [0, 1, 2, 3],
    },
  ])('$name', ({ pods, want }) => {
    expect(podWrites(ds, pods)).toEqual(want.map((i) => `delete Pod ${pods[i]!.metadata?.name}`));
  });

  it('maxUnavailable 25% of 4 rounds up to 1', () => {
    const quarter = settled({ strategy: { maxUnavailable: '25%' } });
    const pods = ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(quarter, n, { hash: OLD, readyFor: 60 }));
    expect(podWrites(quarter, pods)).toEqual([`delete Pod ${pods[0]!.metadata?.name}`]);
  });

  it('minReadySeconds: a new pod ready for less is unavailable and spends the budget', () => {
    const slow = settled({ strategy: { maxUnavailable: 1 }, minReadySeconds: 30 });
    const h = templateHash(slow);
    const pods = [
      aPod(slow, 'n1', { hash: h, readyFor: 10 }),
      ...['n2', 'n3', 'n4'].map((n) => aPod(slow, n, { hash: OLD, readyFor: 60 })),
    ];
    expect(podWrites(slow, pods)).toEqual([]);
  });

  it("a missing pod is the core loop's: created, and no rolling delete in that pass", () => {
    const pods = ['n1', 'n2', 'n3'].map((n) => aPod(ds, n, { hash: OLD, readyFor: 60 }));
    expect(podWrites(ds, pods)).toEqual([`create Pod on n4 (${H})`]);
  });

  it('OnDelete: outdated pods stay', () => {
    const onDelete = settled({ strategy: 'OnDelete' });
    const pods = ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(onDelete, n, { hash: OLD }));
    expect(podWrites(onDelete, pods)).toEqual([]);
  });
});

describe('rolling update, maxSurge > 0', () => {
  const ds = settled({ strategy: { maxUnavailable: 0, maxSurge: 1 } });
  const H = templateHash(ds);
  it.each([
    {
      name: 'all old and available: a new pod on maxSurge (1) node',
      pods: ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD, readyFor: 60 })),
      want: [`create Pod on n1 (${H})`],
    },
    {
      name: 'old pods unavailable get their new pod at once, past the surge budget',
      pods: ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD })),
      want: ['n1', 'n2', 'n3', 'n4'].map((n) => `create Pod on ${n} (${H})`),
    },
  ])('$name', ({ pods, want }) => {
    expect(podWrites(ds, pods)).toEqual(want);
  });

  it('new pod beside the old, not yet available: the surge is spent, nothing else', () => {
    const pods = [
      aPod(ds, 'n1', { hash: OLD, readyFor: 60, age: 200 }),
      aPod(ds, 'n1', { hash: H, age: 5 }),
      ...['n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD, readyFor: 60 })),
    ];
    expect(podWrites(ds, pods)).toEqual([]);
  });

  it('a new pod turned ready beside the old: looked at again when it becomes available (minReadySeconds + 1 s)', () => {
    const slow = settled({ strategy: { maxUnavailable: 0, maxSurge: 1 }, minReadySeconds: 10 });
    const pods = [
      aPod(slow, 'n1', { hash: OLD, readyFor: 60, age: 200 }),
      aPod(slow, 'n1', { hash: templateHash(slow), readyFor: 3, age: 5 }),
      ...['n2', 'n3', 'n4'].map((n) => aPod(slow, n, { hash: OLD, readyFor: 60 })),
    ];
    const plan = planDaemonSet(observed(slow, nodes, pods, [currentRevision(slow)]), NOW);
    expect(plan.actions.filter((a) => a.type === 'create' || a.type === 'delete')).toEqual([]);
    expect(plan.requeueAfter).toBe(8000);
  });

  it('new pod beside the old is available: the core loop deletes the old one', () => {
    const old = aPod(ds, 'n1', { hash: OLD, readyFor: 60, age: 200 });
    const pods = [
      old,
      aPod(ds, 'n1', { hash: H, readyFor: 1, age: 5 }),
      ...['n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: OLD, readyFor: 60 })),
    ];
    expect(podWrites(ds, pods)).toEqual([`delete Pod ${old.metadata?.name}`]);
  });

  it('maxSurge 30% of 4 rounds up to 2', () => {
    const surge = settled({ strategy: { maxUnavailable: 0, maxSurge: '30%' } });
    const h = templateHash(surge);
    const pods = ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(surge, n, { hash: OLD, readyFor: 60 }));
    expect(podWrites(surge, pods)).toEqual([`create Pod on n1 (${h})`, `create Pod on n2 (${h})`]);
  });
});
