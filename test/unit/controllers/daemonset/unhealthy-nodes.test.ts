// fleetq's opt-in unhealthy-nodes policy (unhealthy-nodes.ts, rolling.ts, deferred-report.ts): the annotation, which
// nodes count as unhealthy, and whole plans: upstream stalls on a bad node, the policy finishes the healthy nodes
// first, updates the bad ones last, and reports them in a condition and an Event.
import { describe, expect, it } from '@jest/globals';
import type { DaemonSet, Node, NodeCondition, Pod } from '../../../../shared/kube/api/objects.js';
import { templateHash } from '../../../../shared/controllers/daemonset/history.js';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import {
  nodeHealth,
  parseDurationMs,
  unhealthyPolicyOf,
  UNHEALTHY_NODES_ANNOTATION as SKIP,
  UNHEALTHY_THRESHOLD_ANNOTATION as THRESHOLD,
} from '../../../../shared/controllers/daemonset/unhealthy-nodes.js';
import {
  aDaemonSet,
  aNode,
  aPod,
  currentRevision,
  NOW,
  observed,
  secondsAgo,
  taint,
  type DsOptions,
} from './builders.js';
import { summarize } from './summary.js';

const withConditions = (n: Node, conditions: NodeCondition[], unschedulable = false): Node => ({
  ...n,
  spec: { ...n.spec, ...(unschedulable && { unschedulable }) },
  status: { conditions },
});
const ready = (status: string, since: number): NodeCondition =>
  ({ type: 'Ready', status, lastTransitionTime: secondsAgo(since) }) as unknown as NodeCondition;

describe('the annotation', () => {
  it.each<{ name: string; annotations: Record<string, string>; want: unknown }>([
    { name: 'absent: upstream', annotations: {}, want: null },
    { name: 'skip: default threshold 60s', annotations: { [SKIP]: 'skip' }, want: { thresholdMs: 60_000 } },
    { name: 'skip with 2m30s', annotations: { [SKIP]: 'skip', [THRESHOLD]: '2m30s' }, want: { thresholdMs: 150_000 } },
    { name: 'skip with 0', annotations: { [SKIP]: 'skip', [THRESHOLD]: '0' }, want: { thresholdMs: 0 } },
    { name: 'another value: upstream', annotations: { [SKIP]: 'Skip' }, want: null },
    { name: 'invalid threshold: upstream', annotations: { [SKIP]: 'skip', [THRESHOLD]: '5 minutes' }, want: null },
    { name: 'negative threshold: upstream', annotations: { [SKIP]: 'skip', [THRESHOLD]: '-1s' }, want: null },
  ])('$name', ({ annotations, want }) => expect(unhealthyPolicyOf({ metadata: { annotations } })).toEqual(want));

  it.each([
    ['90s', 90_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
    ['250ms', 250],
    ['1m', 60_000],
    ['', null],
    ['10', null],
    ['1d', null],
  ])('duration %s → %s', (raw, want) => expect(parseDurationMs(raw)).toBe(want));
});

describe('which nodes are unhealthy (threshold 60s)', () => {
  const policy = { thresholdMs: 60_000 };
  it.each([
    { name: 'Ready True', node: withConditions(aNode('n'), [ready('True', 600)]), want: { unhealthy: false } },
    { name: 'no conditions', node: aNode('n'), want: { unhealthy: false } },
    {
      name: 'Ready False for 30s: not yet, in 30s',
      node: withConditions(aNode('n'), [ready('False', 30)]),
      want: { unhealthy: false, inMs: 30_000 },
    },
    {
      name: 'Ready False for 60s',
      node: withConditions(aNode('n'), [ready('False', 60)]),
      want: { unhealthy: true, why: 'Ready False' },
    },
    {
      name: 'Ready Unknown for 10 min',
      node: withConditions(aNode('n'), [ready('Unknown', 600)]),
      want: { unhealthy: true, why: 'Ready Unknown' },
    },
    {
      name: 'unreachable taint',
      node: aNode('n', { taints: [taint('node.kubernetes.io/unreachable', 'NoExecute')] }),
      want: { unhealthy: true, why: 'taint node.kubernetes.io/unreachable' },
    },
    {
      name: 'not-ready taint',
      node: aNode('n', { taints: [taint('node.kubernetes.io/not-ready', 'NoSchedule')] }),
      want: { unhealthy: true, why: 'taint node.kubernetes.io/not-ready' },
    },
    {
      name: 'another taint: healthy',
      node: aNode('n', { taints: [taint('dedicated', 'NoSchedule', 'x')] }),
      want: { unhealthy: false },
    },
    {
      name: 'cordoned',
      node: withConditions(aNode('n'), [ready('True', 600)], true),
      want: { unhealthy: true, why: 'cordoned' },
    },
    {
      name: 'DrainInProgress True (KEP-5683)',
      node: withConditions(aNode('n'), [ready('True', 600), { type: 'DrainInProgress', status: 'True' }]),
      want: { unhealthy: true, why: 'DrainInProgress' },
    },
    {
      name: 'MaintenanceInProgress False: healthy',
      node: withConditions(aNode('n'), [ready('True', 600), { type: 'MaintenanceInProgress', status: 'False' }]),
      want: { unhealthy: false },
    },
  ])('$name', ({ node, want }) => expect(nodeHealth(node, policy, NOW)).toEqual(want));
});

const OLD = 'oldhash';
const BAD = withConditions(aNode('n2', { taints: [taint('node.kubernetes.io/unreachable', 'NoExecute')] }), [
  ready('Unknown', 300),
]);
const nodes = [aNode('n1'), BAD, aNode('n3'), aNode('n4')];

const settledDs = (o: DsOptions & { policy?: boolean } = {}): DaemonSet =>
  aDaemonSet({
    image: 'agent:2',
    spec: { tolerations: [{ operator: 'Exists' }] },
    ...(o.policy && { annotations: { [SKIP]: 'skip' } }),
    ...o,
    status: {
      desiredNumberScheduled: 4,
      currentNumberScheduled: 4,
      numberReady: 3,
      numberAvailable: 3,
      numberUnavailable: 1,
      updatedNumberScheduled: 1,
      ...o.status,
    },
  });

function plan(ds: DaemonSet, pods: Pod[]) {
  return summarize(planDaemonSet(observed(ds, nodes, pods, [currentRevision(ds)]), NOW));
}
const podWrites = (s: { actions: string[] }) =>
  s.actions.filter((a) => a.startsWith('create Pod') || a.startsWith('delete Pod'));

describe('a rollout with one unreachable node (n2), maxUnavailable 1', () => {
  // n2 already has the new pod, which never becomes ready there; n1, n3, n4 still run the old one.
  const stalled = (ds: DaemonSet) => {
    const H = templateHash(ds);
    return [
      aPod(ds, 'n1', { hash: OLD, readyFor: 60 }),
      aPod(ds, 'n2', { hash: H }),
      aPod(ds, 'n3', { hash: OLD, readyFor: 60 }),
      aPod(ds, 'n4', { hash: OLD, readyFor: 60 }),
    ];
  };

  it('upstream (no annotation): stalls, the bad node uses the whole budget', () => {
    const ds = settledDs();
    expect(podWrites(plan(ds, stalled(ds)))).toEqual([]);
  });

  it('policy: the bad node does not count; one healthy node is updated, and n2 is reported', () => {
    const ds = settledDs({ policy: true });
    const pods = stalled(ds);
    const result = plan(ds, pods);
    expect(podWrites(result)).toEqual([`delete Pod ${pods[0]!.metadata!.name}`]);
    const status = result.actions.find((a) => a.startsWith('status'))!;
    expect(status).toContain('"type":"UnhealthyNodesDeferred"');
    expect(status).toContain('update deferred on 1 unhealthy node(s): n2 (taint node.kubernetes.io/unreachable)');
  });

  it('policy: the Event goes with the status write that changed the condition, once', () => {
    const ds = settledDs({ policy: true });
    const first = planDaemonSet(observed(ds, nodes, stalled(ds), [currentRevision(ds)]), NOW);
    const write = first.actions.find((a) => a.type === 'updateStatus');
    expect(
      write?.type === 'updateStatus' && write.events?.onSuccess?.map((e) => [e.type, e.reason, e.message]),
    ).toEqual([
      [
        'Warning',
        'UnhealthyNodesDeferred',
        'update deferred on 1 unhealthy node(s): n2 (taint node.kubernetes.io/unreachable)',
      ],
    ]);
    // the next pass reads the condition back: same message, no new Event and no status write for it
    const written = (write as { object: DaemonSet }).object;
    const again = planDaemonSet(observed(written, nodes, stalled(written), [currentRevision(written)]), NOW);
    expect(again.actions.filter((a) => a.type === 'updateStatus')).toEqual([]);
  });

  it('policy: an outdated pod on a bad node waits until every healthy node is updated and available', () => {
    const ds = settledDs({ policy: true });
    const H = templateHash(ds);
    const pods = [
      aPod(ds, 'n1', { hash: H, readyFor: 60 }),
      aPod(ds, 'n2', { hash: OLD }),
      aPod(ds, 'n3', { hash: H }),
      aPod(ds, 'n4', { hash: H, readyFor: 60 }),
    ];
    expect(podWrites(plan(ds, pods))).toEqual([]); // upstream would delete n2's unavailable pod at once
    const done = [pods[0]!, pods[1]!, aPod(ds, 'n3', { hash: H, readyFor: 60 }), pods[3]!];
    expect(podWrites(plan(ds, done))).toEqual([`delete Pod ${pods[1]!.metadata!.name}`]);
  });

  it('upstream: an unavailable outdated pod on the bad node is deleted at once', () => {
    const ds = settledDs();
    const H = templateHash(ds);
    const pods = [
      aPod(ds, 'n1', { hash: H, readyFor: 60 }),
      aPod(ds, 'n2', { hash: OLD }),
      aPod(ds, 'n3', { hash: H }),
      aPod(ds, 'n4', { hash: H, readyFor: 60 }),
    ];
    expect(podWrites(plan(ds, pods))).toEqual([`delete Pod ${pods[1]!.metadata!.name}`]);
  });

  it('policy: a bad node whose only pod is being deleted is still reported (no live pod yet)', () => {
    const ds = settledDs({ policy: true });
    const H = templateHash(ds);
    const pods = [
      aPod(ds, 'n1', { hash: H, readyFor: 60 }),
      aPod(ds, 'n2', { hash: OLD, deleting: true }),
      aPod(ds, 'n3', { hash: H, readyFor: 60 }),
      aPod(ds, 'n4', { hash: H, readyFor: 60 }),
    ];
    const result = plan(ds, pods);
    expect(podWrites(result)).toEqual([]);
    expect(result.actions.find((a) => a.startsWith('status'))).toContain('update deferred on 1 unhealthy node(s): n2');
  });

  it('policy: when every node is updated and available, the condition is removed', () => {
    const ds = settledDs({
      policy: true,
      status: {
        numberReady: 4,
        numberAvailable: 4,
        numberUnavailable: 0,
        updatedNumberScheduled: 4,
        conditions: [
          {
            type: 'UnhealthyNodesDeferred',
            status: 'True',
            reason: 'UnhealthyNodes',
            message: 'update deferred on 1 unhealthy node(s): n2 (x)',
          },
        ],
      },
    });
    const H = templateHash(ds);
    const pods = ['n1', 'n2', 'n3', 'n4'].map((n) => aPod(ds, n, { hash: H, readyFor: 60 }));
    const status = plan(ds, pods).actions.find((a) => a.startsWith('status'));
    expect(status).toBeDefined();
    expect(status).not.toContain('UnhealthyNodesDeferred');
  });

  it('policy, surge 1: the bad node neither counts against maxSurge nor gets its new pod before the others', () => {
    const ds = settledDs({ policy: true, strategy: { maxUnavailable: 0, maxSurge: 1 } });
    const pods = [
      aPod(ds, 'n1', { hash: OLD, readyFor: 60 }),
      aPod(ds, 'n2', { hash: OLD }),
      aPod(ds, 'n3', { hash: OLD, readyFor: 60 }),
      aPod(ds, 'n4', { hash: OLD, readyFor: 60 }),
    ];
    expect(podWrites(plan(ds, pods))).toEqual([`create Pod on n1 (${templateHash(ds)})`]);
    expect(podWrites(plan(settledDs({ strategy: { maxUnavailable: 0, maxSurge: 1 } }), pods))).toEqual([
      `create Pod on n2 (${templateHash(ds)})`,
      `create Pod on n1 (${templateHash(ds)})`,
    ]);
  });

  it('policy: a node NotReady for less than the threshold counts as upstream does, and the pass looks again then', () => {
    const early = withConditions(aNode('n2'), [ready('False', 20)]);
    const ds = settledDs({ policy: true });
    const pods = stalled(ds);
    const result = summarize(
      planDaemonSet(observed(ds, [aNode('n1'), early, aNode('n3'), aNode('n4')], pods, [currentRevision(ds)]), NOW),
    );
    expect(podWrites(result)).toEqual([]);
    expect(result.requeueAfter).toBe(40_000);
  });
});
