// A kind is its folder plus one registration line. A fictitious kind, Widget, is
// registered in a registry of its own (with its API resource) and nothing else is touched: its watches, its
// event → key mapping, the index and the relist wake-ups follow from its descriptor.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DescriptorRegistry } from '../../../shared/controllers/descriptor-registry.js';
import { orphansMatching, type WatchDescriptor } from '../../../shared/controllers/descriptor.js';
import { DESCRIPTORS } from '../../../shared/controllers/index.js';
import { KINDS_GENERATED_FILE, renderKinds } from '../../../shared/controllers/kinds-render.js';
import { eventKeys, type EventType } from '../../../shared/forwarder/event-keys.js';
import { dependentKinds, watchPath, watchedResources, type KubeObject } from '../../../shared/forwarder/resources.js';
import { WorkloadIndex, isIndexedResource } from '../../../shared/forwarder/workload-index.js';
import { keyString } from '../../../shared/kube/key.js';
import { ALL_KINDS, DEFAULT_OWNED_KINDS, HAND_OVER_KINDS, WORKLOAD_KINDS } from '../../../shared/kube/kinds.js';
import { DEPENDENT_RESOURCES, RESOURCES, apiResource } from '../../../shared/kube/resources.js';

const widget: WatchDescriptor = {
  kind: 'Widget',
  resource: apiResource('Widget', 'example.dev', 'v1', 'widgets', { status: true }),
  for: { kind: 'Widget' },
  owns: [{ kind: 'Pod', adopts: true }],
  // A ConfigMap labelled widget=<name> configures that Widget.
  watches: [
    {
      kind: 'ConfigMap',
      why: 'ConfigMaps labelled widget=<name> configure it',
      keys: (event) => {
        const name = event.object.metadata?.labels?.widget;
        const namespace = event.object.metadata?.namespace;
        return name && namespace ? [{ namespace, name }] : [];
      },
    },
    { kind: 'ReplicaSet', why: 'orphan ReplicaSets its selector matches', keys: orphansMatching('Widget') },
  ],
};
const registry = new DescriptorRegistry([...DESCRIPTORS.descriptors, widget]);

const NS = 'ns';
const obj = (name: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}, spec?: unknown): KubeObject => ({
  metadata: { name, namespace: NS, ...extra },
  ...(spec === undefined ? {} : { spec }),
});
const ref = (kind: string, name: string, apiVersion: string) => ({
  apiVersion,
  kind,
  name,
  uid: `u-${name}`,
  controller: true,
});
const k = (kind: string, name: string) => keyString({ cluster: 'c', kind, namespace: NS, name });

function keysOf(
  resource: string,
  object: KubeObject,
  owns: string[] = ['Widget'],
  type: EventType = 'ADDED',
): string[] {
  const index = new WorkloadIndex(registry);
  index.apply('widgets', 'ADDED', obj('w1', {}, { selector: { matchLabels: { app: 'w' } } }));
  index.apply('replicasets', 'ADDED', obj('rs1', {}, { selector: { matchLabels: { app: 'w' } } }));
  const { keys, invalid } = eventKeys(
    { type, resource, object },
    { cluster: 'c', owns: new Set(owns), index, descriptors: registry },
  );
  expect(invalid).toEqual([]);
  return keys.map(keyString).sort();
}

describe('a kind registered by its descriptor alone', () => {
  it('is watched with what it owns and watches, at its own path', () => {
    expect(watchedResources(['Widget'], registry)).toEqual(['replicasets', 'widgets', 'pods', 'configmaps']);
    expect(watchPath('widgets', registry)).toBe('/apis/example.dev/v1/widgets');
    expect(isIndexedResource('widgets', registry)).toBe(true);
    expect(dependentKinds('pods', ['Widget', 'ReplicaSet'], registry)).toEqual(['Widget', 'ReplicaSet']);
    expect(dependentKinds('widgets', ['Widget'], registry)).toEqual([]);
  });

  it.each<{ name: string; resource: string; object: KubeObject; type?: EventType; owns?: string[]; want: string[] }>([
    { name: 'its own object', resource: 'widgets', object: obj('w1'), want: [k('Widget', 'w1')] },
    {
      name: 'its own object deleted',
      resource: 'widgets',
      object: obj('w1'),
      type: 'DELETED',
      want: [k('Widget', 'w1')],
    },
    {
      name: 'a pod it controls',
      resource: 'pods',
      object: obj('p', { ownerReferences: [ref('Widget', 'w1', 'example.dev/v1')] }),
      want: [k('Widget', 'w1')],
    },
    {
      name: 'a pod controlled by a Widget of another API group',
      resource: 'pods',
      object: obj('p', { ownerReferences: [ref('Widget', 'w1', 'apps/v1')] }),
      want: [],
    },
    {
      name: 'an orphan pod its selector matches (adoption)',
      resource: 'pods',
      object: obj('p', { labels: { app: 'w' } }),
      want: [k('Widget', 'w1')],
    },
    {
      name: 'an orphan pod, with ReplicaSet owned too',
      resource: 'pods',
      object: obj('p', { labels: { app: 'w' } }),
      owns: ['Widget', 'ReplicaSet'],
      want: [k('ReplicaSet', 'rs1'), k('Widget', 'w1')],
    },
    {
      name: 'a deleted orphan pod',
      resource: 'pods',
      object: obj('p', { labels: { app: 'w' } }),
      type: 'DELETED',
      want: [],
    },
    {
      name: 'its own mapping of ConfigMaps',
      resource: 'configmaps',
      object: obj('cfg', { labels: { widget: 'w7' } }),
      want: [k('Widget', 'w7')],
    },
    {
      name: 'its Watches of orphan ReplicaSets by selector',
      resource: 'replicasets',
      object: obj('rs2', { labels: { app: 'w' } }),
      want: [k('Widget', 'w1')],
    },
    {
      name: 'nothing when the cluster does not own it',
      resource: 'widgets',
      object: obj('w1'),
      owns: ['ReplicaSet'],
      want: [],
    },
  ])('$name', ({ resource, object, type, owns, want }) => expect(keysOf(resource, object, owns, type)).toEqual(want));

  it('leaves the shipped registry alone', () => {
    expect(DESCRIPTORS.descriptor('Widget')).toBeUndefined();
    expect(() => watchedResources(['Widget'])).toThrow('no watch descriptor for kind Widget');
  });
});

describe('the shipped descriptors', () => {
  it('describe every kind fleetq knows, and only those', () => {
    expect([...DESCRIPTORS.kinds].sort()).toEqual([...ALL_KINDS].sort());
  });

  it('are what kube/kinds-generated.ts says (npm run rbac:render writes it)', () => {
    expect(readFileSync(join(process.cwd(), KINDS_GENERATED_FILE), 'utf8')).toBe(renderKinds(DESCRIPTORS));
  });

  it('give the kinds a cluster registry accepts, and the resource table in watch order', () => {
    expect(ALL_KINDS).toEqual(DESCRIPTORS.kinds);
    expect({ defaultOwned: DEFAULT_OWNED_KINDS, workloads: WORKLOAD_KINDS, handOver: HAND_OVER_KINDS }).toEqual({
      defaultOwned: ['Deployment', 'ReplicaSet'],
      workloads: ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'],
      handOver: ['Job'],
    });
    // The kinds' own resources (workloads) first, in registration order, then their dependents.
    const own = DESCRIPTORS.ownResources.map((r) => r.kind);
    expect(own.slice(0, 6)).toEqual(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
    expect(Object.keys(RESOURCES)).toEqual([...own, ...DEPENDENT_RESOURCES.map((r) => r.kind)]);
    expect(DESCRIPTORS.resourceTable.map((r) => r.kind)).toEqual(Object.keys(RESOURCES));
    expect(DEPENDENT_RESOURCES.map((r) => r.kind)).toEqual([
      'Pod',
      'ControllerRevision',
      'PersistentVolumeClaim',
      'Service',
      'Node',
      'ConfigMap',
      'Event',
      'Namespace',
    ]);
    expect(RESOURCES.StatefulSet).toEqual({
      kind: 'StatefulSet',
      apiVersion: 'apps/v1',
      group: 'apps',
      version: 'v1',
      plural: 'statefulsets',
      namespaced: true,
      status: true,
    });
  });

  it('give a kind of its own resource (a CRD kind) its watches, like a built-in one', () => {
    expect(registry.watchesOf('Widget')).toEqual(['widgets', 'pods', 'configmaps', 'replicasets']);
    expect(registry.resourceOf('Widget').apiVersion).toBe('example.dev/v1');
    expect(registry.catalog.all).toContain('Widget');
  });

  it('give the controllers of the kinds written so far', () => {
    expect([...DESCRIPTORS.controllers().keys()].sort()).toEqual([
      'ConfigMap',
      'CronJob',
      'DaemonSet',
      'Deployment',
      'FleetRollout',
      'Job',
      'JobSet',
      'LeaderWorkerSet',
      'LeaderWorkerSetPod',
      'ReplicaSet',
      'StatefulSet',
      'TTLAfterFinished',
    ]);
  });

  it('say what every controller reads and writes, in resources the table knows', () => {
    for (const d of DESCRIPTORS.descriptors) {
      expect({ kind: d.kind, hasAccess: d.access !== undefined }).toEqual({
        kind: d.kind,
        hasAccess: d.controller !== undefined,
      });
      for (const a of [...(d.access?.reads ?? []), ...(d.access?.writes ?? [])]) {
        expect(RESOURCES[a.kind]).toBeDefined();
      }
    }
    expect(DESCRIPTORS.descriptor('ReplicaSet')?.access?.writes.map(({ why: _why, ...a }) => a)).toEqual([
      { kind: 'Pod', verbs: ['create', 'delete', 'patch'] },
      { kind: 'ReplicaSet', subresource: 'status', verbs: ['update'] },
      { kind: 'Event', verbs: ['create', 'patch'] },
    ]);
  });

  it('refuse a descriptor naming a kind the resource table lacks, and two of one kind', () => {
    const { resource: _resource, ...unserved } = widget;
    expect(() => new DescriptorRegistry([unserved])).toThrow("Widget's descriptor names Widget");
    expect(() => new DescriptorRegistry([...DESCRIPTORS.descriptors, DESCRIPTORS.descriptors[0]!])).toThrow(
      'two watch descriptors for kind Deployment',
    );
  });
});
