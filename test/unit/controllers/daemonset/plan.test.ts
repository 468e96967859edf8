// The core loop through the whole planner: one pod per eligible node, pinned by node affinity (no nodeName), with
// the default tolerations; excess and misplaced pods deleted; pods for vanished nodes; SelectingAll; a
// DaemonSet being deleted; the burst cap.
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import { describe, expect, it } from '@jest/globals';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { templateHash } from '../../../../shared/controllers/daemonset/history.js';
import { aDaemonSet, aNode, aPod, currentRevision, NOW, observed, taint } from './builders.js';
import { statusLine, summarize } from './summary.js';

const ds = aDaemonSet();
const H = templateHash(ds);
const n1 = aNode('n1');
const n2 = aNode('n2', { labels: { role: 'edge' } });
const n3 = aNode('n3', { taints: [taint('dedicated', 'NoSchedule')] });
const n4 = aNode('n4', { taints: [taint('dedicated', 'NoExecute')] });
const run1 = aPod(ds, 'n1', { readyFor: 60, age: 100 });
const run2 = aPod(ds, 'n2', { readyFor: 60, age: 100 });
const younger1 = aPod(ds, 'n1', { readyFor: 10, age: 20 });
const onN3 = aPod(ds, 'n3', { readyFor: 60 });
const onN4 = aPod(ds, 'n4', { readyFor: 60 });
const unbound = aPod(ds, 'gone', { bound: false });
const edge = aDaemonSet({ spec: { nodeSelector: { role: 'edge' } } });
const edgePod1 = aPod(edge, 'n1', { readyFor: 60 });

describe('DaemonSet plan: one pod per eligible node', () => {
  it.each([
    {
      name: 'creates a pod on every eligible node, skips NoSchedule and NoExecute nodes',
      o: observed(ds, [n1, n2, n3, n4], []),
      want: {
        actions: [
          `create Pod on n1 (${H})`,
          `create Pod on n2 (${H})`,
          statusLine({ desired: 2, current: 0, ready: 0, updated: 0, available: 0 }),
        ],
      },
    },
    {
      name: 'steady state: nothing to do, status already written',
      o: observed(
        aDaemonSet({
          status: {
            desiredNumberScheduled: 2,
            currentNumberScheduled: 2,
            numberReady: 2,
            numberAvailable: 2,
            updatedNumberScheduled: 2,
            numberUnavailable: 0,
          },
        }),
        [n1, n2],
        [run1, run2],
      ),
      want: { actions: [] },
    },
    {
      name: 'a second pod on a node: the younger one is deleted',
      o: observed(ds, [n1], [younger1, run1]),
      want: {
        actions: [
          `delete Pod ${younger1.metadata?.name}`,
          statusLine({ desired: 1, current: 1, ready: 1, updated: 1, available: 1 }),
        ],
      },
    },
    {
      name: 'NoSchedule taint keeps the pod there (misscheduled); NoExecute deletes it',
      o: observed(ds, [n3, n4], [onN3, onN4]),
      want: {
        actions: [
          `delete Pod ${onN4.metadata?.name}`,
          statusLine({ desired: 0, current: 0, misscheduled: 2, ready: 0, updated: 0, available: 0 }),
        ],
      },
    },
    {
      name: 'nodeSelector: only the labelled node; a pod on an unlabelled node is deleted',
      o: observed(edge, [n1, n2], [edgePod1], [currentRevision(edge)]),
      want: {
        actions: [
          `create Pod on n2 (${templateHash(edge)})`,
          `delete Pod ${edgePod1.metadata?.name}`,
          statusLine({ desired: 1, current: 0, misscheduled: 1, ready: 0, updated: 0, available: 0 }),
        ],
      },
    },
    {
      name: 'an unbound pod pinned to a node that no longer exists is deleted',
      o: observed(ds, [n1], [run1, unbound]),
      want: {
        actions: [
          `delete Pod ${unbound.metadata?.name}`,
          statusLine({ desired: 1, current: 1, ready: 1, updated: 1, available: 1 }),
        ],
      },
    },
    {
      name: 'a DaemonSet being deleted does nothing',
      o: observed({ ...ds, metadata: { ...ds.metadata, deletionTimestamp: wireTime(NOW) } }, [n1], []),
      want: { actions: [] },
    },
    {
      name: 'gone: nothing',
      o: { daemonSet: null, nodes: [n1], pods: [], revisions: [] },
      want: { actions: [] },
    },
    {
      name: 'an empty selector: SelectingAll and nothing else',
      o: observed({ ...ds, spec: { ...ds.spec!, selector: {} } }, [n1], []),
      want: {
        actions: [
          'event Warning SelectingAll: This daemon set is selecting all pods. A non-empty selector is required.',
        ],
      },
    },
  ])('$name', ({ o, want }) => {
    expect(summarize(planDaemonSet(o, NOW))).toEqual(want);
  });

  it('the created pod: template, default tolerations, pinning affinity, no nodeName, controller reference', () => {
    const withAffinity = aDaemonSet({
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
              ],
            },
          },
        },
      },
    });
    const linux = aNode('n1', { labels: { 'kubernetes.io/os': 'linux' } });
    const [create] = planDaemonSet(observed(withAffinity, [linux], [], [currentRevision(withAffinity)]), NOW).actions;
    expect(create).toEqual({
      type: 'create',
      reason: 'SuccessfulCreate',
      events: expect.anything(),
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: 'agent-',
          namespace: 'ns',
          labels: { app: 'agent', 'controller-revision-hash': templateHash(withAffinity) },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'DaemonSet',
              name: 'agent',
              uid: 'uid-ds',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: {
          containers: [{ name: 'c', image: 'agent:1' }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
              },
            },
          },
          tolerations: [
            { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
            { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
            { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
          ],
        },
      },
    });
  });

  it('creates at most 250 pods a pass and continues at once', () => {
    const nodes = Array.from({ length: 260 }, (_, i) => aNode(`n${String(i).padStart(3, '0')}`));
    const result = planDaemonSet(observed(ds, nodes, []), NOW);
    expect(result.actions.filter((a) => a.type === 'create')).toHaveLength(250);
    expect(result.requeueAfter).toBe(0);
  });

  it('a legacy template-generation annotation labels the pods pod-template-generation', () => {
    const legacy = aDaemonSet({ annotations: { 'deprecated.daemonset.template.generation': '3' } });
    const [create] = planDaemonSet(observed(legacy, [n1], [], [currentRevision(legacy)]), NOW).actions;
    expect(create?.type === 'create' && create.object.metadata?.labels).toEqual({
      app: 'agent',
      'pod-template-generation': '3',
      'controller-revision-hash': templateHash(legacy),
    });
  });
});
