// updateDaemonSetStatus through the planner: the counts per node (desired, current, misscheduled, ready,
// available with minReadySeconds, updated by hash or legacy generation), written only when changed or when
// observedGeneration is behind, and the minReadySeconds requeue.
import { describe, expect, it } from '@jest/globals';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { aDaemonSet, aNode, aPod, NOW, observed, taint } from './builders.js';
import { statusLine, summarize } from './summary.js';

const n1 = aNode('n1');
const n2 = aNode('n2');
const n3 = aNode('n3', { taints: [taint('dedicated', 'NoSchedule')] });

describe('DaemonSet status', () => {
  it.each([
    {
      name: 'ready, available, updated, misscheduled counted per node',
      ds: aDaemonSet(),
      pods: (ds: ReturnType<typeof aDaemonSet>) => [
        aPod(ds, 'n1', { readyFor: 60 }),
        aPod(ds, 'n2', { hash: 'old', readyFor: 60 }),
        aPod(ds, 'n3', { readyFor: 60 }),
      ],
      // the outdated pod on n2 is the rolling update's to delete in the same pass
      want: { desired: 2, current: 2, misscheduled: 1, ready: 2, updated: 1, available: 2 },
      requeueAfter: undefined,
    },
    {
      // looked at again when the pod becomes available and a second (updatePod's minReadySeconds + 1 s after it
      // turned ready, 10 s ago), before the status rule's minReadySeconds
      name: 'minReadySeconds: ready for less is not available; looked at again when it becomes available',
      ds: aDaemonSet({ minReadySeconds: 30 }),
      pods: (ds: ReturnType<typeof aDaemonSet>) => [aPod(ds, 'n1', { readyFor: 60 }), aPod(ds, 'n2', { readyFor: 10 })],
      want: { desired: 2, current: 2, ready: 2, updated: 2, available: 1 },
      requeueAfter: 21_000,
    },
    {
      name: 'exactly minReadySeconds ready is not yet available (strictly longer)',
      ds: aDaemonSet({ minReadySeconds: 30 }),
      pods: (ds: ReturnType<typeof aDaemonSet>) => [aPod(ds, 'n1', { readyFor: 30 }), aPod(ds, 'n2', { readyFor: 31 })],
      want: { desired: 2, current: 2, ready: 2, updated: 2, available: 1 },
      requeueAfter: 30_000,
    },
    {
      name: 'a node with two pods counts its oldest (bound first) for readiness',
      ds: aDaemonSet(),
      pods: (ds: ReturnType<typeof aDaemonSet>) => [
        aPod(ds, 'n1', { age: 10 }),
        aPod(ds, 'n1', { readyFor: 50, age: 100 }),
        aPod(ds, 'n2', { readyFor: 50 }),
      ],
      want: { desired: 2, current: 2, ready: 2, updated: 2, available: 2 },
      requeueAfter: undefined,
    },
    {
      name: 'legacy generation label counts as updated',
      ds: aDaemonSet({ annotations: { 'deprecated.daemonset.template.generation': '1' } }),
      pods: (ds: ReturnType<typeof aDaemonSet>) => [
        {
          ...aPod(ds, 'n1', { hash: 'other', readyFor: 60 }),
          metadata: {
            ...aPod(ds, 'n1', { hash: 'other', readyFor: 60 }).metadata,
            labels: { app: 'agent', 'pod-template-generation': '1', 'controller-revision-hash': 'other' },
          },
        },
        aPod(ds, 'n2', { readyFor: 60 }),
      ],
      want: { desired: 2, current: 2, ready: 2, updated: 2, available: 2 },
      requeueAfter: undefined,
    },
  ])('$name', ({ ds, pods, want, requeueAfter }) => {
    const result = summarize(planDaemonSet(observed(ds, [n1, n2, n3], pods(ds)), NOW));
    expect(result.actions.filter((a) => a.startsWith('status'))).toEqual([statusLine(want)]);
    expect(result.requeueAfter).toBe(requeueAfter);
  });

  it('unchanged counts and a current observedGeneration: no write', () => {
    const ds = aDaemonSet({
      status: {
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        numberReady: 1,
        numberAvailable: 1,
        numberUnavailable: 0,
        updatedNumberScheduled: 1,
      },
    });
    expect(summarize(planDaemonSet(observed(ds, [n1], [aPod(ds, 'n1', { readyFor: 60 })]), NOW))).toEqual({
      actions: [],
    });
  });

  it('unchanged counts but a new generation: written with observedGeneration', () => {
    const ds = aDaemonSet({
      generation: 2,
      status: {
        observedGeneration: 1,
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        numberReady: 1,
        numberAvailable: 1,
        numberUnavailable: 0,
        updatedNumberScheduled: 1,
      },
    });
    expect(summarize(planDaemonSet(observed(ds, [n1], [aPod(ds, 'n1', { readyFor: 60 })]), NOW)).actions).toEqual([
      statusLine({ desired: 1, current: 1, ready: 1, updated: 1, available: 1, generation: 2 }),
    ]);
  });
});
