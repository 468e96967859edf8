// What the controller reads off pods and StatefulSets: upstream's TestContainerRestarted (pod_utils_test.go),
// TestGetParentNameAndOrdinal and TestStatefulsetReady (statefulset_utils_test.go), Test_SortByIndex (utils_test.go),
// and getReplicaStates.
import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import {
  groupUniqueKey,
  hasContainerRestarted,
  isStatefulSetReady,
  parentNameAndOrdinal,
  replicaStates,
  sortByIndex,
} from '../../../../shared/controllers/leaderworkerset/group-state.js';
import { anLws, aPod, aWorkerSts } from './builders.js';

describe('hasContainerRestarted (upstream TestContainerRestarted)', () => {
  const withStatus = (status: Pod['status']): Pod => ({ status });
  it.each([
    {
      name: 'running, an init container restarted',
      pod: withStatus({
        phase: 'Running',
        initContainerStatuses: [{ name: 'i', image: '', imageID: '', ready: true, restartCount: 1 }],
      }),
      want: true,
    },
    {
      name: 'pending, an init container restarted',
      pod: withStatus({
        phase: 'Pending',
        initContainerStatuses: [{ name: 'i', image: '', imageID: '', ready: true, restartCount: 1 }],
      }),
      want: true,
    },
    {
      name: 'running, a container restarted',
      pod: withStatus({
        phase: 'Running',
        containerStatuses: [{ name: 'c', image: '', imageID: '', ready: true, restartCount: 1 }],
      }),
      want: true,
    },
    { name: 'failed', pod: withStatus({ phase: 'Failed' }), want: false },
    {
      name: 'failed with restarts: not counted',
      pod: withStatus({
        phase: 'Failed',
        containerStatuses: [{ name: 'c', image: '', imageID: '', ready: false, restartCount: 3 }],
      }),
      want: false,
    },
    {
      name: 'running, no restarts',
      pod: withStatus({
        phase: 'Running',
        initContainerStatuses: [{ name: 'i', image: '', imageID: '', ready: true, restartCount: 0 }],
        containerStatuses: [{ name: 'c', image: '', imageID: '', ready: true, restartCount: 0 }],
      }),
      want: false,
    },
  ])('$name: $want', ({ pod, want }) => expect(hasContainerRestarted(pod)).toBe(want));
});

describe('parentNameAndOrdinal (upstream TestGetParentNameAndOrdinal)', () => {
  it.each([
    { name: 'lws-samples-132', parent: 'lws-samples', ordinal: 132 },
    { name: 'lws-samples-132-u', parent: '', ordinal: -1 },
    { name: 'lws-samples-', parent: '', ordinal: -1 },
    { name: 'lws-samples-0', parent: 'lws-samples', ordinal: 0 },
    { name: 'lws-samples--1', parent: 'lws-samples-', ordinal: 1 },
    { name: 'lws-samples1', parent: '', ordinal: -1 },
    { name: 'lws-samples-1-0', parent: 'lws-samples-1', ordinal: 0 },
  ])('$name → $parent, $ordinal', ({ name, parent, ordinal }) => {
    expect(parentNameAndOrdinal(name)).toEqual({ parent, ordinal });
  });
});

describe('isStatefulSetReady (upstream TestStatefulsetReady)', () => {
  const sts = (available: number, current: string, update: string) => ({
    spec: { replicas: 3, selector: {}, serviceName: '', template: {} },
    status: { replicas: 3, availableReplicas: available, currentRevision: current, updateRevision: update },
  });
  it.each([
    { name: 'all available, revisions equal', s: sts(3, 'rev-1', 'rev-1'), want: true },
    { name: 'fewer available', s: sts(2, 'rev-1', 'rev-1'), want: false },
    { name: 'revisions differ', s: sts(3, 'rev-1', 'rev-2'), want: false },
    { name: 'both', s: sts(2, 'rev-1', 'rev-2'), want: false },
  ])('$name: $want', ({ s, want }) => expect(isStatefulSetReady(s)).toBe(want));
});

describe('sortByIndex (upstream Test_SortByIndex)', () => {
  const byValue = (n: number) => n;
  it.each([
    { name: 'as many items as slots', items: [0, 1, 2, 3], want: [0, 1, 2, 3] },
    { name: 'fewer items: empty slots', items: [0, 1, 3], want: [0, 1, null, 3] },
    { name: 'more items: past the end left out', items: [0, 2, 3, 4], want: [0, null, 2, 3] },
  ])('$name', ({ items, want }) => expect(sortByIndex(items, byValue, 4)).toEqual(want));
});

describe("groupUniqueKey (the pod webhook's genGroupUniqueKey)", () => {
  it('is the hex SHA-1 of <namespace>/<leader pod name>', () => {
    expect(groupUniqueKey('default', 'test-sample-0')).toBe('40bb642a1417b0c5aea271dac9e8065b7e86f411');
  });
});

describe('replicaStates (getReplicaStates)', () => {
  it('per group: ready and updated only when its leader and worker StatefulSet are named for it', () => {
    const lws = anLws({ replicas: 3, size: 2 });
    const pods = [
      aPod(0, 0, { revision: 'new' }),
      aPod(1, 0, { revision: 'old' }),
      aPod(2, 0, { revision: 'new', ready: false }),
      aPod(0, 1, { revision: 'new' }),
    ];
    const sts = [
      aWorkerSts(0, { revision: 'new' }),
      aWorkerSts(1, { revision: 'new' }),
      aWorkerSts(2, { revision: 'new' }),
    ];
    expect(replicaStates(lws, 4, 'new', pods, sts)).toEqual([
      { ready: true, updated: true },
      { ready: true, updated: false },
      { ready: false, updated: true },
      { ready: false, updated: false },
    ]);
  });
  it('a missing worker StatefulSet makes the group neither ready nor updated, unless size is 1', () => {
    const pods = [aPod(0, 0, { revision: 'new' })];
    expect(replicaStates(anLws({ size: 2 }), 1, 'new', pods, [])).toEqual([{ ready: false, updated: false }]);
    expect(replicaStates(anLws({ size: 1 }), 1, 'new', pods, [])).toEqual([{ ready: true, updated: true }]);
  });
  it('a pending leader is not ready', () => {
    const pods = [aPod(0, 0, { revision: 'new', phase: 'Pending' })];
    expect(replicaStates(anLws({ size: 1 }), 1, 'new', pods, [])).toEqual([{ ready: false, updated: true }]);
  });
});
