// A descriptor keyed apart from the objects it is for (LeaderWorkerSetPod: keys of its own kind, for Pod) that
// owns something: its objects are no workloads of the forwarder's index (only a descriptor keyed by its own
// resource's kind indexes), the RBAC owner-finalizers rule names the owner's resource (pods/finalizers), and its
// owned objects still map to its keys through their controller reference.
import { describe, expect, it } from '@jest/globals';
import { DescriptorRegistry } from '../../../shared/controllers/descriptor-registry.js';
import { DESCRIPTORS } from '../../../shared/controllers/index.js';
import {
  leaderWorkerSetDescriptor,
  leaderWorkerSetPodDescriptor,
} from '../../../shared/controllers/leaderworkerset/descriptor.js';
import { needsOfDescriptor } from '../../../shared/controllers/roles.js';
import { eventKeys } from '../../../shared/forwarder/event-keys.js';
import { WorkloadIndex, isIndexedResource } from '../../../shared/forwarder/workload-index.js';
import { keyString } from '../../../shared/kube/key.js';

const lwsKinds = new Set(['LeaderWorkerSet', 'LeaderWorkerSetPod']);
const registry = DESCRIPTORS;
const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
const pod = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, namespace: 'ns', labels, uid: `u-${name}` },
  spec: {},
});

describe('a descriptor keyed apart from the kind it is for', () => {
  it('makes no workloads of those objects: pods are not indexed, LeaderWorkerSets and Jobs are', () => {
    expect(registry.indexedKind('pods')).toBeUndefined();
    expect(isIndexedResource('pods', registry)).toBe(false);
    expect(registry.indexedKind('leaderworkersets')).toBe('LeaderWorkerSet');
    expect(registry.indexedKind('jobs')).toBe('Job');
    expect(registry.indexedKind('statefulsets')).toBe('StatefulSet');
    // TTLAfterFinished is for Job too, keyed apart and owning nothing: Jobs stay Job's workloads.
    expect(registry.indexedKind('replicasets')).toBe('ReplicaSet');
  });

  it('leaves the index without pods, whatever their labels', () => {
    const index = new WorkloadIndex(registry);
    index.apply('pods', 'ADDED', pod('lws-0', { [NAME_LABEL]: 'lws' }));
    index.replace('pods', [pod('web-1'), pod('lws-1', { [NAME_LABEL]: 'lws' })]);
    expect(index.all(new Set(['Pod', 'LeaderWorkerSetPod']))).toEqual([]);
    expect(index.get('Pod', 'ns', 'lws-0')).toBeUndefined();
  });

  it('still maps a worker StatefulSet to its leader pod’s key, and a labelled pod to its own', () => {
    const ctx = { cluster: 'c', owns: lwsKinds, index: new WorkloadIndex(registry), descriptors: registry };
    const sts = {
      metadata: {
        name: 'lws-0',
        namespace: 'ns',
        labels: { [NAME_LABEL]: 'lws' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'lws-0', uid: 'u', controller: true }],
      },
    };
    const keys = (resource: string, object: object) =>
      eventKeys({ type: 'ADDED', resource, object }, ctx).keys.map(keyString).sort();
    expect(keys('statefulsets', sts)).toEqual([
      keyString({ cluster: 'c', kind: 'LeaderWorkerSet', namespace: 'ns', name: 'lws' }),
      keyString({ cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: 'ns', name: 'lws-0' }),
    ]);
    expect(keys('pods', pod('lws-0-1', { [NAME_LABEL]: 'lws' }))).toEqual([
      keyString({ cluster: 'c', kind: 'LeaderWorkerSetPod', namespace: 'ns', name: 'lws-0-1' }),
    ]);
    expect(keys('pods', pod('web-1'))).toEqual([]);
  });

  it('needs update on the finalizers of the owner it is for (pods/finalizers), not of its key kind', () => {
    const finalizers = (d: typeof leaderWorkerSetPodDescriptor) =>
      needsOfDescriptor(d, registry)?.writes.filter((w) => w.subresource === 'finalizers');
    expect(finalizers(leaderWorkerSetPodDescriptor)).toEqual([
      expect.objectContaining({ kind: 'Pod', subresource: 'finalizers', verbs: ['update'] }),
    ]);
    expect(finalizers(leaderWorkerSetDescriptor)).toEqual([
      expect.objectContaining({ kind: 'LeaderWorkerSet', subresource: 'finalizers', verbs: ['update'] }),
    ]);
  });

  it('is owned together with the other key kind of its upstream controller', () => {
    expect(registry.catalog.ownedTogether).toEqual([['LeaderWorkerSet', 'LeaderWorkerSetPod']]);
    expect(
      () =>
        new DescriptorRegistry([
          ...DESCRIPTORS.descriptors.filter((d) => !lwsKinds.has(d.kind)),
          leaderWorkerSetPodDescriptor,
        ]),
    ).toThrow(
      "LeaderWorkerSetPod's descriptor is owned with LeaderWorkerSet, which no registered descriptor is keyed by",
    );
  });
});
