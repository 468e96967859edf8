import { describe, expect, it } from '@jest/globals';
import type { Kind } from '../../../shared/kube/kinds.js';
import { isNodeUnchanged } from '../../../shared/controllers/daemonset/node-changes.js';
import { PreviousState } from '../../../shared/forwarder/previous-state.js';
import { MIRROR_TO_ANNOTATION } from '../../../shared/controllers/configmap-mirror/watch-keys.js';
import { dependentKinds, watchedResources, type KubeObject } from '../../../shared/forwarder/resources.js';
import { WorkloadIndex } from '../../../shared/forwarder/workload-index.js';

const rs = (name: string, app: string, namespace = 'ns'): KubeObject => ({
  metadata: {
    name,
    namespace,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true }],
  },
  spec: { selector: { matchLabels: { app } } },
});
const ALL = new Set<Kind>(['ReplicaSet', 'Deployment']);

describe('WorkloadIndex', () => {
  it('indexes, updates and forgets workloads from events', () => {
    const idx = new WorkloadIndex();
    idx.apply('replicasets', 'ADDED', rs('a', 'x'));
    expect(idx.matching('ns', { app: 'x' }, ALL).map((w) => w.name)).toEqual(['a']);
    idx.apply('replicasets', 'MODIFIED', rs('a', 'y'));
    expect(idx.matching('ns', { app: 'x' }, ALL)).toEqual([]);
    expect(idx.get('ReplicaSet', 'ns', 'a')?.controller).toEqual({ kind: 'Deployment', name: 'web' });
    idx.apply('replicasets', 'DELETED', rs('a', 'y'));
    expect(idx.size).toBe(0);
  });

  it('a relist replaces only its own kind', () => {
    const idx = new WorkloadIndex();
    idx.apply('replicasets', 'ADDED', rs('gone', 'x'));
    idx.apply('deployments', 'ADDED', {
      metadata: { name: 'web', namespace: 'ns' },
      spec: { selector: { matchLabels: { app: 'x' } } },
    });
    idx.replace('replicasets', [rs('kept', 'x', 'other')]);
    expect(
      idx
        .all(ALL)
        .map((w) => `${w.kind}/${w.namespace}/${w.name}`)
        .sort(),
    ).toEqual(['Deployment/ns/web', 'ReplicaSet/other/kept']);
  });

  it('ignores resources it does not index', () => {
    const idx = new WorkloadIndex();
    idx.apply('pods', 'ADDED', rs('p', 'x'));
    expect(idx.size).toBe(0);
  });
});

describe('PreviousState', () => {
  it('remembers mirror sources only, and forgets them on deletion', () => {
    const state = new PreviousState();
    const source = { metadata: { name: 's', namespace: 'ns', annotations: { [MIRROR_TO_ANNOTATION]: 'a' } } };
    state.apply('configmaps', 'ADDED', { metadata: { name: 'plain', namespace: 'ns' } });
    state.apply('configmaps', 'ADDED', source);
    expect(state.get('configmaps', { metadata: { name: 'plain', namespace: 'ns' } })).toBeUndefined();
    expect(state.get('configmaps', source)?.metadata?.annotations).toEqual({ [MIRROR_TO_ANNOTATION]: 'a' });
    state.apply('configmaps', 'DELETED', source);
    expect(state.get('configmaps', source)).toBeUndefined();
  });

  it('compares nodes on labels, taints, unschedulable and readiness only', () => {
    const node = (labels: Record<string, string>, heartbeat: string, ready = 'True'): KubeObject => ({
      metadata: { name: 'n', labels, resourceVersion: heartbeat },
      spec: { taints: [] },
      status: {
        conditions: [
          { type: 'Ready', status: ready, lastHeartbeatTime: heartbeat },
          { type: 'DiskPressure', status: 'False', lastHeartbeatTime: heartbeat },
        ],
      },
    });
    expect(isNodeUnchanged(node({ a: '1' }, 't1'), node({ a: '1' }, 't2'))).toBe(true);
    expect(isNodeUnchanged(node({ a: '1' }, 't1'), node({ a: '2' }, 't1'))).toBe(false);
    expect(isNodeUnchanged(node({ a: '1' }, 't1'), node({ a: '1' }, 't1', 'False'))).toBe(false);
  });
});

describe('watched resources', () => {
  it.each<{ owns: Kind[]; want: string[] }>([
    { owns: ['Deployment'], want: ['deployments', 'replicasets', 'pods'] },
    { owns: ['ReplicaSet'], want: ['replicasets', 'pods'] },
    { owns: ['StatefulSet'], want: ['statefulsets', 'pods', 'controllerrevisions', 'persistentvolumeclaims'] },
    { owns: ['DaemonSet'], want: ['daemonsets', 'pods', 'controllerrevisions', 'nodes'] },
    { owns: ['Job'], want: ['jobs', 'pods'] },
    { owns: ['CronJob'], want: ['jobs', 'cronjobs'] },
    { owns: ['ConfigMap'], want: ['configmaps'] },
    { owns: ['Deployment', 'ReplicaSet', 'CronJob'], want: ['deployments', 'replicasets', 'jobs', 'cronjobs', 'pods'] },
  ])('$owns → $want', ({ owns, want }) => expect(watchedResources(owns)).toEqual(want));

  it('names the owned kinds a relist of a dependent resource must wake', () => {
    expect(dependentKinds('pods', ['Deployment', 'ReplicaSet', 'ConfigMap'])).toEqual(['Deployment', 'ReplicaSet']);
    expect(dependentKinds('replicasets', ['Deployment', 'ReplicaSet'])).toEqual(['Deployment']);
    expect(dependentKinds('deployments', ['Deployment'])).toEqual([]);
  });
});
