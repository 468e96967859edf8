// nodeShouldRunDaemonPod: nodeName, nodeSelector, required node affinity, taints against tolerations (the
// DaemonSet defaults included), NoSchedule vs NoExecute.
import { describe, expect, it } from '@jest/globals';
import type { NodeSelectorTerm, PodSpec } from '../../../../shared/kube/api/objects.js';
import { nodeShouldRunDaemonPod, placementOf } from '../../../../shared/controllers/daemonset/eligibility.js';
import { aDaemonSet, aNode, taint } from './builders.js';

const RUN = { shouldRun: true, shouldContinueRunning: true };
const NOT = { shouldRun: false, shouldContinueRunning: false };
const KEEP = { shouldRun: false, shouldContinueRunning: true };
const affinity = (...nodeSelectorTerms: NodeSelectorTerm[]): Partial<PodSpec> => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } },
});

describe('nodeShouldRunDaemonPod', () => {
  it.each([
    { name: 'a plain node', spec: {}, node: aNode('n1'), want: RUN },
    { name: 'template nodeName names this node', spec: { nodeName: 'n1' }, node: aNode('n1'), want: RUN },
    { name: 'template nodeName names another node', spec: { nodeName: 'n2' }, node: aNode('n1'), want: NOT },
    {
      name: 'nodeSelector matches',
      spec: { nodeSelector: { zone: 'a' } },
      node: aNode('n1', { labels: { zone: 'a' } }),
      want: RUN,
    },
    { name: 'nodeSelector label missing', spec: { nodeSelector: { zone: 'a' } }, node: aNode('n1'), want: NOT },
    {
      name: 'nodeSelector value differs',
      spec: { nodeSelector: { zone: 'a' } },
      node: aNode('n1', { labels: { zone: 'b' } }),
      want: NOT,
    },
    {
      name: 'affinity In matches',
      spec: affinity({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }),
      node: aNode('n1', { labels: { zone: 'b' } }),
      want: RUN,
    },
    {
      name: 'affinity NotIn on a node without the label matches',
      spec: affinity({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }),
      node: aNode('n1'),
      want: RUN,
    },
    {
      name: 'affinity DoesNotExist fails on a labelled node',
      spec: affinity({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }),
      node: aNode('n1', { labels: { zone: 'a' } }),
      want: NOT,
    },
    {
      name: 'affinity Gt compares integers',
      spec: affinity({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['8'] }] }),
      node: aNode('n1', { labels: { cores: '16' } }),
      want: RUN,
    },
    {
      name: 'affinity Lt with a non-integer label fails',
      spec: affinity({ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['8'] }] }),
      node: aNode('n1', { labels: { cores: 'many' } }),
      want: NOT,
    },
    {
      name: 'affinity terms are ORed',
      spec: affinity(
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
      ),
      node: aNode('n1', { labels: { zone: 'b' } }),
      want: RUN,
    },
    {
      name: 'expressions within a term are ANDed',
      spec: affinity({
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['a'] },
          { key: 'disk', operator: 'Exists' },
        ],
      }),
      node: aNode('n1', { labels: { zone: 'a' } }),
      want: NOT,
    },
    { name: 'an empty term matches no node', spec: affinity({}), node: aNode('n1'), want: NOT },
    { name: 'no terms match no node', spec: affinity(), node: aNode('n1'), want: NOT },
    {
      name: 'matchFields NotIn excludes the named node',
      spec: affinity({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }),
      node: aNode('n1'),
      want: NOT,
    },
    {
      name: 'nodeSelector and affinity must both match',
      spec: { nodeSelector: { zone: 'a' }, ...affinity({ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }) },
      node: aNode('n1', { labels: { disk: 'ssd' } }),
      want: NOT,
    },
    {
      name: 'untolerated NoSchedule taint: no new pod, an existing one stays',
      spec: {},
      node: aNode('n1', { taints: [taint('dedicated', 'NoSchedule', 'gpu')] }),
      want: KEEP,
    },
    {
      name: 'untolerated NoExecute taint: the pod must leave',
      spec: {},
      node: aNode('n1', { taints: [taint('dedicated', 'NoExecute', 'gpu')] }),
      want: NOT,
    },
    {
      name: 'PreferNoSchedule is ignored',
      spec: {},
      node: aNode('n1', { taints: [taint('dedicated', 'PreferNoSchedule')] }),
      want: RUN,
    },
    {
      name: 'Equal toleration with the same value tolerates',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
      node: aNode('n1', { taints: [taint('dedicated', 'NoSchedule', 'gpu')] }),
      want: RUN,
    },
    {
      name: 'Equal toleration with another value does not',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'cpu' }] },
      node: aNode('n1', { taints: [taint('dedicated', 'NoExecute', 'gpu')] }),
      want: NOT,
    },
    {
      name: 'toleration for NoSchedule only does not tolerate NoExecute',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] },
      node: aNode('n1', { taints: [taint('dedicated', 'NoExecute')] }),
      want: NOT,
    },
    {
      name: 'empty key with Exists tolerates every taint',
      spec: { tolerations: [{ operator: 'Exists' }] },
      node: aNode('n1', { taints: [taint('a', 'NoExecute'), taint('b', 'NoSchedule')] }),
      want: RUN,
    },
    {
      name: 'default tolerations: unschedulable, not-ready, unreachable, pressure taints',
      spec: {},
      node: aNode('n1', {
        taints: [
          taint('node.kubernetes.io/unschedulable', 'NoSchedule'),
          taint('node.kubernetes.io/not-ready', 'NoExecute'),
          taint('node.kubernetes.io/unreachable', 'NoExecute'),
          taint('node.kubernetes.io/disk-pressure', 'NoSchedule'),
          taint('node.kubernetes.io/memory-pressure', 'NoSchedule'),
          taint('node.kubernetes.io/pid-pressure', 'NoSchedule'),
        ],
      }),
      want: RUN,
    },
    {
      name: 'network-unavailable is tolerated only with hostNetwork (without: kept, not started)',
      spec: {},
      node: aNode('n1', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      want: KEEP,
    },
    {
      name: 'network-unavailable with hostNetwork',
      spec: { hostNetwork: true },
      node: aNode('n1', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      want: RUN,
    },
    {
      name: 'not-ready with NoSchedule effect is not a default toleration',
      spec: {},
      node: aNode('n1', { taints: [taint('node.kubernetes.io/not-ready', 'NoSchedule')] }),
      want: KEEP,
    },
  ])('$name', ({ spec, node, want }) => {
    expect(nodeShouldRunDaemonPod(node, placementOf(aDaemonSet({ spec })))).toEqual(want);
  });
});
