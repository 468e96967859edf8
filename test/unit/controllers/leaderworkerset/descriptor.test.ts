// The two LeaderWorkerSet descriptors, as registered (controllers/index.ts): the events that wake each key, as upstream's watches do, and every resource they read or write known.
import { describe, expect, it } from '@jest/globals';
import { DESCRIPTORS } from '../../../../shared/controllers/index.js';
import {
  leaderWorkerSetDescriptor,
  leaderWorkerSetPodDescriptor,
} from '../../../../shared/controllers/leaderworkerset/descriptor.js';
import {
  leaderWorkerSetController,
  leaderWorkerSetPodController,
} from '../../../../shared/controllers/leaderworkerset/index.js';
import { eventKeys, type EventType } from '../../../../shared/forwarder/event-keys.js';
import type { KubeObject } from '../../../../shared/forwarder/resources.js';
import { WorkloadIndex } from '../../../../shared/forwarder/workload-index.js';
import { keyString } from '../../../../shared/kube/key.js';

const registry = DESCRIPTORS;
const NS = 'ns';
const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
const ref = (apiVersion: string, kind: string, name: string) => ({
  apiVersion,
  kind,
  name,
  uid: `u-${name}`,
  controller: true,
});
const obj = (name: string, labels: Record<string, string> = {}, owner?: ReturnType<typeof ref>): KubeObject => ({
  metadata: { name, namespace: NS, labels, ...(owner !== undefined && { ownerReferences: [owner] }) },
});
const k = (kind: string, name: string) => keyString({ cluster: 'c', kind, namespace: NS, name });

function keysOf(resource: string, object: KubeObject, type: EventType = 'ADDED'): string[] {
  const { keys, invalid } = eventKeys(
    { type, resource, object },
    {
      cluster: 'c',
      owns: new Set(['LeaderWorkerSet', 'LeaderWorkerSetPod']),
      index: new WorkloadIndex(registry),
      descriptors: registry,
    },
  );
  expect(invalid).toEqual([]);
  return keys.map(keyString).sort();
}

describe('LeaderWorkerSet descriptors: what wakes each key', () => {
  it('a LeaderWorkerSet: its own key', () => {
    expect(keysOf('leaderworkersets', obj('s'))).toEqual([k('LeaderWorkerSet', 's')]);
  });
  it('the leader StatefulSet (controlled by the set, with its name label): the set, once', () => {
    const sts = obj('s', { [NAME_LABEL]: 's' }, ref('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 's'));
    expect(keysOf('statefulsets', sts, 'MODIFIED')).toEqual([k('LeaderWorkerSet', 's')]);
  });
  it('a worker StatefulSet (controlled by its leader pod): the set by its label, and the leader pod', () => {
    const sts = obj('s-0', { [NAME_LABEL]: 's' }, ref('v1', 'Pod', 's-0'));
    expect(keysOf('statefulsets', sts, 'DELETED')).toEqual([k('LeaderWorkerSet', 's'), k('LeaderWorkerSetPod', 's-0')]);
  });
  it('a StatefulSet of neither: nothing', () => {
    expect(keysOf('statefulsets', obj('x', {}, ref('apps/v1', 'Other', 'o')))).toEqual([]);
  });
  it('pods: those with the name label (even empty) wake their own pod key; others nothing', () => {
    expect(keysOf('pods', obj('s-0-1', { [NAME_LABEL]: 's' }))).toEqual([k('LeaderWorkerSetPod', 's-0-1')]);
    expect(keysOf('pods', obj('e', { [NAME_LABEL]: '' }))).toEqual([k('LeaderWorkerSetPod', 'e')]);
    expect(keysOf('pods', obj('p', { app: 'x' }))).toEqual([]);
  });
  it('Services: the shared one wakes the set; a per-replica one (controlled by a pod) nothing, as upstream', () => {
    expect(keysOf('services', obj('s', {}, ref('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 's')))).toEqual([
      k('LeaderWorkerSet', 's'),
    ]);
    expect(keysOf('services', obj('s-0', {}, ref('v1', 'Pod', 's-0')))).toEqual([]);
  });
  it('ControllerRevisions are watched (so the cache holds them) and wake nothing, as upstream’s informer', () => {
    expect(registry.watchesOf('LeaderWorkerSet')).toContain('controllerrevisions');
    expect(registry.watchesOf('LeaderWorkerSetPod')).toContain('controllerrevisions');
    expect(
      keysOf(
        'controllerrevisions',
        obj('s-abc-1', { [NAME_LABEL]: 's' }, ref('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 's')),
      ),
    ).toEqual([]);
  });
});

describe('LeaderWorkerSet descriptors: resources and controllers', () => {
  it('read and write only resources the table knows, and give their controllers', () => {
    for (const d of [leaderWorkerSetDescriptor, leaderWorkerSetPodDescriptor]) {
      for (const a of [...d.access!.reads, ...d.access!.writes])
        expect(() => registry.resourceOf(a.kind)).not.toThrow();
    }
    expect(leaderWorkerSetDescriptor.controller?.(undefined)).toBe(leaderWorkerSetController);
    expect(leaderWorkerSetPodDescriptor.controller?.(undefined)).toBe(leaderWorkerSetPodController);
    expect(registry.resourceOf('LeaderWorkerSet')).toMatchObject({
      group: 'leaderworkerset.x-k8s.io',
      version: 'v1',
      plural: 'leaderworkersets',
      status: true,
    });
  });
  it('are registered, owned together, by no cluster by default', () => {
    expect(DESCRIPTORS.kinds).toEqual(expect.arrayContaining(['LeaderWorkerSet', 'LeaderWorkerSetPod']));
    expect(DESCRIPTORS.catalog.defaultOwned).not.toContain('LeaderWorkerSet');
    expect(DESCRIPTORS.catalog.defaultOwned).not.toContain('LeaderWorkerSetPod');
    expect(DESCRIPTORS.catalog.ownedTogether).toEqual([['LeaderWorkerSet', 'LeaderWorkerSetPod']]);
  });
});
