// Node events → DaemonSet keys (node-changes.ts, upstream's addNode/updateNode → syncNodeUpdate), through the real
// forwarder mapping (eventKeys) and workload index, which keeps each DaemonSet's placement as its facts.
import { describe, expect, it } from '@jest/globals';
import type { DaemonSet, Node, Taint } from '../../../../shared/kube/api/objects.js';
import { isNodeUnchanged, nodeView } from '../../../../shared/controllers/daemonset/node-changes.js';
import { UNHEALTHY_NODES_ANNOTATION } from '../../../../shared/controllers/daemonset/unhealthy-nodes.js';
import { eventKeys, type EventType } from '../../../../shared/forwarder/event-keys.js';
import type { KubeObject } from '../../../../shared/forwarder/resources.js';
import { WorkloadIndex } from '../../../../shared/forwarder/workload-index.js';

const ds = (
  name: string,
  o: { nodeSelector?: Record<string, string>; misscheduled?: number; policy?: boolean; tolerateAll?: boolean } = {},
): DaemonSet => ({
  metadata: {
    name,
    namespace: 'ns',
    ...(o.policy && { annotations: { [UNHEALTHY_NODES_ANNOTATION]: 'skip' } }),
  },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [{ name: 'c', image: 'x' }],
        ...(o.nodeSelector && { nodeSelector: o.nodeSelector }),
        ...(o.tolerateAll && { tolerations: [{ operator: 'Exists' }] }),
      },
    },
  },
  status: {
    currentNumberScheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
    numberMisscheduled: o.misscheduled ?? 0,
  },
});

const node = (
  labels: Record<string, string>,
  o: { taints?: Taint[]; ready?: string; heartbeat?: string; unschedulable?: boolean } = {},
): Node => ({
  metadata: { name: 'n1', labels },
  spec: { ...(o.taints && { taints: o.taints }), ...(o.unschedulable && { unschedulable: true }) },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: o.ready ?? 'True',
        lastHeartbeatTime: o.heartbeat ?? 't1',
        lastTransitionTime: o.ready === undefined ? 't0' : 't5',
      },
    ],
  },
});

function index(): WorkloadIndex {
  const idx = new WorkloadIndex();
  for (const d of [
    ds('zone-a', { nodeSelector: { zone: 'a' } }),
    ds('zone-b', { nodeSelector: { zone: 'b' } }),
    ds('everywhere'),
    ds('tolerant', { tolerateAll: true }),
    ds('guarded', { nodeSelector: { zone: 'c' }, policy: true }),
    ds('policy', { policy: true, tolerateAll: true }),
  ]) {
    idx.apply('daemonsets', 'ADDED', d as KubeObject);
  }
  return idx;
}

const noSchedule: Taint = { key: 'dedicated', value: 'x', effect: 'NoSchedule' };

type Case = {
  name: string;
  type: EventType;
  object: Node;
  previous?: Node | 'none';
  extra?: DaemonSet[];
  want: string[];
};

const cases: Case[] = [
  {
    name: 'added: the DaemonSets that fit it',
    type: 'ADDED',
    object: node({ zone: 'a' }),
    want: ['zone-a', 'everywhere', 'tolerant', 'policy'],
  },
  {
    name: 'added: a DaemonSet with misscheduled pods too',
    type: 'ADDED',
    object: node({ zone: 'x' }),
    extra: [ds('missing', { nodeSelector: { zone: 'q' }, misscheduled: 1 })],
    want: ['everywhere', 'tolerant', 'policy', 'missing'],
  },
  {
    name: 'relabelled a → b: the one that loses it and the one that gains it',
    type: 'MODIFIED',
    object: node({ zone: 'b' }),
    previous: node({ zone: 'a' }),
    want: ['zone-a', 'zone-b'],
  },
  {
    name: 'label change no DaemonSet selects on: nothing',
    type: 'MODIFIED',
    object: node({ zone: 'a', rack: '2' }),
    previous: node({ zone: 'a', rack: '1' }),
    want: [],
  },
  {
    name: 'label change wakes a DaemonSet with misscheduled pods (upstream: recount them)',
    type: 'MODIFIED',
    object: node({ zone: 'a', rack: '2' }),
    previous: node({ zone: 'a', rack: '1' }),
    extra: [ds('missing', { nodeSelector: { zone: 'q' }, misscheduled: 2 })],
    want: ['missing'],
  },
  {
    name: 'untolerated NoSchedule taint: those whose shouldRun turned false, not the tolerant ones',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, { taints: [noSchedule] }),
    previous: node({ zone: 'a' }),
    want: ['zone-a', 'everywhere'],
  },
  {
    name: 'taint removed: those whose shouldRun turned true',
    type: 'MODIFIED',
    object: node({ zone: 'a' }),
    previous: node({ zone: 'a' }, { taints: [noSchedule] }),
    want: ['zone-a', 'everywhere'],
  },
  {
    name: 'Ready → False: only a policy DaemonSet whose pod may run there',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, { ready: 'False' }),
    previous: node({ zone: 'a' }),
    want: ['policy'],
  },
  {
    name: 'unreachable taint added: the policy DaemonSet (the tolerant one fits as before)',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] }),
    previous: node({ zone: 'a' }),
    want: ['policy'],
  },
  {
    name: 'cordoned: only the policy DaemonSet (unschedulable is tolerated by every daemon pod)',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, { unschedulable: true }),
    previous: node({ zone: 'a' }),
    want: ['policy'],
  },
  {
    name: 'heartbeat only: nothing',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, { heartbeat: 't2' }),
    previous: node({ zone: 'a' }, { heartbeat: 't1' }),
    want: [],
  },
  {
    name: 'no previous view (forwarder restarted): every DaemonSet',
    type: 'MODIFIED',
    object: node({ zone: 'a' }),
    previous: 'none',
    want: ['zone-a', 'zone-b', 'everywhere', 'tolerant', 'guarded', 'policy'],
  },
  {
    name: 'deleted: those it fitted',
    type: 'DELETED',
    object: node({ zone: 'b' }),
    want: ['zone-b', 'everywhere', 'tolerant', 'policy'],
  },
  {
    name: 'a DaemonSet the index could not read facts of is always woken',
    type: 'MODIFIED',
    object: node({ zone: 'a', rack: '2' }),
    previous: node({ zone: 'a', rack: '1' }),
    extra: [
      {
        metadata: { name: 'odd', namespace: 'ns' },
        spec: { template: { spec: { tolerations: 7 } } },
      } as unknown as DaemonSet,
    ],
    want: ['odd'],
  },
];

describe('Node events wake the DaemonSets they can affect', () => {
  it.each(cases)('$name', ({ type, object, previous, extra, want }) => {
    const idx = index();
    for (const d of extra ?? []) idx.apply('daemonsets', 'ADDED', d as KubeObject);
    const prev = previous === undefined ? node({ zone: 'a' }) : previous;
    const { keys, invalid } = eventKeys(
      {
        type,
        resource: 'nodes',
        object: object as KubeObject,
        ...(type === 'MODIFIED' && prev !== 'none' && { previous: nodeView(prev as KubeObject) }),
      },
      { cluster: 'c1', owns: new Set(['DaemonSet']), index: idx },
    );
    expect(invalid).toEqual([]);
    expect(keys.map((k) => k.name).sort()).toEqual([...want].sort());
  });

  it('compares nodes on labels, taints, unschedulable, Ready and lifecycle conditions, never heartbeats', () => {
    const withDrain = (status: string): KubeObject => {
      const n = node({ zone: 'a' }) as KubeObject & Node;
      n.status!.conditions!.push({ type: 'DrainInProgress', status });
      return n;
    };
    expect(
      isNodeUnchanged(node({}, { heartbeat: 't1' }) as KubeObject, node({}, { heartbeat: 't9' }) as KubeObject),
    ).toBe(true);
    expect(isNodeUnchanged(withDrain('False'), withDrain('True'))).toBe(false);
    expect(isNodeUnchanged(node({}) as KubeObject, node({}, { unschedulable: true }) as KubeObject)).toBe(false);
  });
});
