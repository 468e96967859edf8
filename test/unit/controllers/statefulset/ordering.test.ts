// Identity and pod management: OrderedReady creates one ordinal at a time after its predecessors are Running and
// Ready, halts on an unhealthy pod and scales down from the highest ordinal; Parallel does all at once; failed
// pods are deleted (and recreated by a later pass); spec.ordinals.start moves the range.
import { describe, expect, it } from '@jest/globals';
import { planStatefulSet } from '../../../../shared/controllers/statefulset/plan.js';
import { aPod, aSet, NOW, observed, revOf } from './builders.js';
import { eventsOf, summarize } from './summary.js';

const set = aSet();
const R1 = revOf(set);
const st = (r: number, ready: number, cur: number, upd = cur, avail = ready) =>
  `status r=${r} ready=${ready} avail=${avail} cur=${cur} upd=${upd} ${R1}->${R1} gen=1 cc=0`;
const parallel = aSet({ podManagementPolicy: 'Parallel' });
const one = aSet({ replicas: 1 });
const oneParallel = aSet({ replicas: 1, podManagementPolicy: 'Parallel' });

describe('pod management', () => {
  it.each([
    {
      name: 'no revision yet: revision 1, then web-0 alone',
      o: observed(set, [], []),
      want: [`create ControllerRevision ${R1} revision 1`, `create Pod web-0 (${R1})`, st(0, 0, 0)],
    },
    { name: 'OrderedReady, no pods: web-0 alone', o: observed(set), want: [`create Pod web-0 (${R1})`, st(0, 0, 0)] },
    { name: 'web-0 Pending: waits', o: observed(set, [aPod(set, 0, 'pending')]), want: [st(1, 0, 1)] },
    { name: 'web-0 Running not Ready: waits', o: observed(set, [aPod(set, 0, 'running')]), want: [st(1, 0, 1)] },
    {
      name: 'web-0 Running and Ready: web-1',
      o: observed(set, [aPod(set, 0)]),
      want: [`create Pod web-1 (${R1})`, st(1, 1, 1)],
    },
    {
      name: 'halts on an unhealthy pod: web-0 not Ready, web-1 Ready, web-2 not created',
      o: observed(set, [aPod(set, 0, 'running'), aPod(set, 1)]),
      want: [st(2, 1, 2)],
    },
    {
      name: 'Parallel, no pods: every ordinal at once',
      o: observed(parallel),
      want: [`create Pod web-0 (${R1})`, `create Pod web-1 (${R1})`, `create Pod web-2 (${R1})`, st(0, 0, 0)],
    },
    {
      name: 'Parallel: a missing ordinal is created although another is not Ready',
      o: observed(parallel, [aPod(parallel, 0, 'pending'), aPod(parallel, 2)]),
      want: [`create Pod web-1 (${R1})`, st(2, 1, 2)],
    },
    {
      name: 'ordinals.start 5: web-5 first',
      o: observed(aSet({ replicas: 2, ordinals: { start: 5 } })),
      want: [`create Pod web-5 (${R1})`, st(0, 0, 0)],
    },
    {
      name: 'ordinals.start 5: web-0 is condemned, web-5 comes first',
      o: observed(aSet({ replicas: 1, ordinals: { start: 5 } }), [aPod(set, 0)]),
      want: [`create Pod web-5 (${R1})`, st(1, 1, 1)],
    },
    {
      name: 'scale down 3 → 1: the highest ordinal only',
      o: observed(one, [aPod(one, 0), aPod(one, 1), aPod(one, 2)]),
      want: ['delete Pod web-2', st(3, 3, 3)],
    },
    {
      name: 'scale down waits while the condemned pod terminates',
      o: observed(one, [aPod(one, 0), aPod(one, 1), aPod(one, 2, 'terminating')]),
      want: [st(3, 3, 2)],
    },
    {
      name: 'scale down waits for an unhealthy condemned pod that is not the first unhealthy one',
      o: observed(one, [aPod(one, 0, 'pending'), aPod(one, 1), aPod(one, 2, 'running')]),
      want: [st(3, 1, 3)],
    },
    {
      name: 'Parallel scale down: every condemned pod at once',
      o: observed(oneParallel, [aPod(oneParallel, 0), aPod(oneParallel, 1), aPod(oneParallel, 2)]),
      want: ['delete Pod web-2', 'delete Pod web-1', st(3, 3, 3)],
    },
    {
      name: 'a failed pod is deleted (recreated by a later pass); OrderedReady stops there',
      o: observed(set, [aPod(set, 0, 'failed')]),
      want: ['delete Pod web-0', st(1, 0, 1)],
    },
    {
      name: 'a succeeded pod is deleted too',
      o: observed(set, [aPod(set, 0), aPod(set, 1, 'succeeded')]),
      want: ['delete Pod web-1', st(2, 1, 2)],
    },
    {
      name: 'a controlled pod whose name is not `web-<n>` is released (isMemberOf), and the pass continues',
      o: observed(set, [{ ...aPod(set, 0), metadata: { ...aPod(set, 0).metadata, name: 'web-x' } }]),
      want: ['patch Pod web-x'],
      requeueAfter: 0,
    },
    {
      name: 'all Ready and counted as written: nothing to write',
      o: observed(
        aSet({
          status: {
            replicas: 3,
            readyReplicas: 3,
            availableReplicas: 3,
            currentReplicas: 3,
            updatedReplicas: 3,
            currentRevision: R1,
            updateRevision: R1,
          },
        }),
        [aPod(set, 0), aPod(set, 1), aPod(set, 2)],
      ),
      want: [],
    },
  ] as { name: string; o: ReturnType<typeof observed>; want: string[]; requeueAfter?: number }[])(
    '$name',
    ({ o, want, requeueAfter }) =>
      expect(summarize(planStatefulSet(o, NOW))).toEqual({
        actions: want,
        ...(requeueAfter !== undefined && { requeueAfter }),
      }),
  );
});

describe('identity of a created pod', () => {
  it('name, hostname, subdomain, labels and owner as upstream sets them', () => {
    const result = planStatefulSet(observed(aSet({ serviceName: 'svc' })), NOW);
    expect(result.actions[0]).toMatchObject({
      type: 'create',
      object: {
        kind: 'Pod',
        metadata: {
          name: 'web-0',
          namespace: 'ns',
          labels: {
            app: 'web',
            'statefulset.kubernetes.io/pod-name': 'web-0',
            'apps.kubernetes.io/pod-index': '0',
            'controller-revision-hash': R1,
          },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'web',
              uid: 'uid-sts',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: { hostname: 'web-0', subdomain: 'svc' },
      },
    });
  });

  it('events are upstream messages', () => {
    expect(eventsOf(planStatefulSet(observed(set), NOW))).toEqual([
      'SuccessfulCreate: Create Pod web-0 in StatefulSet web successful',
    ]);
    expect(eventsOf(planStatefulSet(observed(one, [aPod(one, 0), aPod(one, 1)]), NOW))).toEqual([
      'SuccessfulDelete: Delete Pod web-1 in StatefulSet web successful',
    ]);
  });
});

describe('a pod name held by a pod the set does not own', () => {
  it('no create (upstream: AlreadyExists, no event), the status still written, looked at again in 5 s', () => {
    const set = aSet({ replicas: 2 });
    const released = aPod(set, 0);
    const other = {
      ...released,
      metadata: { ...released.metadata, uid: 'uid-released', labels: { app: 'released' }, ownerReferences: [] },
    };
    const result = planStatefulSet(observed(set, [other, aPod(set, 1)]), NOW);
    expect(summarize(result)).toEqual({
      actions: [expect.stringMatching(/^status r=1 /)],
      requeueAfter: 5000,
    });
  });
});
