// The TTL-after-finished controller's keys: a kind of its own for Jobs. A Job event yields a TTLAfterFinished key
// only where upstream's addJob/updateJob enqueue one (not being deleted, a TTL, finished); it is watched, listed
// by a resync and cached as jobs; a cluster owning Job and TTLAfterFinished gets both keys.
import { describe, expect, it } from '@jest/globals';
import { DESCRIPTORS } from '../../../../shared/controllers/index.js';
import { eventKeys, type EventType } from '../../../../shared/forwarder/event-keys.js';
import { dependentKinds, watchedResources, type KubeObject } from '../../../../shared/forwarder/resources.js';
import { WorkloadIndex } from '../../../../shared/forwarder/workload-index.js';
import { keyString } from '../../../../shared/kube/key.js';
import { aJob, complete } from './builders.js';

function keysOf(object: KubeObject, owns: string[] = ['TTLAfterFinished'], type: EventType = 'MODIFIED'): string[] {
  const { keys, invalid } = eventKeys(
    { type, resource: 'jobs', object },
    { cluster: 'c', owns: new Set(owns), index: new WorkloadIndex() },
  );
  expect(invalid).toEqual([]);
  return keys.map(keyString).sort();
}

const asObject = (o: unknown) => o as KubeObject;

describe('TTLAfterFinished keys', () => {
  it.each([
    {
      name: 'finished with a TTL',
      object: aJob({ ttl: 5, finished: complete(-1) }),
      want: ['c/TTLAfterFinished/ns/pi'],
    },
    {
      name: 'failed with ttl 0',
      object: aJob({ ttl: 0, finished: { type: 'Failed', at: 0 } }),
      want: ['c/TTLAfterFinished/ns/pi'],
    },
    { name: 'not finished', object: aJob({ ttl: 5 }), want: [] },
    { name: 'finished without a TTL', object: aJob({ finished: complete(-1) }), want: [] },
    { name: 'being deleted', object: aJob({ ttl: 5, finished: complete(-1), deleting: true }), want: [] },
  ])('$name → $want', ({ object, want }) => expect(keysOf(asObject(object))).toEqual(want));

  it('a deleted Job yields none (upstream has no delete handler)', () => {
    expect(keysOf(asObject(aJob({ ttl: 5, finished: complete(-1) })), ['TTLAfterFinished'], 'DELETED')).toEqual([]);
  });

  it('bad data yields none and never throws', () => {
    for (const object of [
      {
        metadata: { name: 'x', namespace: 'ns' },
        spec: { ttlSecondsAfterFinished: '5' },
        status: { conditions: 'no' },
      },
      {
        metadata: { name: 'x', namespace: 'ns' },
        spec: { ttlSecondsAfterFinished: 5 },
        status: { conditions: [null, 7] },
      },
      { metadata: { name: 'x', namespace: 'ns' }, spec: null, status: null },
    ])
      expect(keysOf(asObject(object))).toEqual([]);
  });

  it('a cluster owning Job and TTLAfterFinished gets a key of each for a finished Job with a TTL; owning Job only, one', () => {
    const job = asObject(aJob({ ttl: 5, finished: complete(-1) }));
    expect(keysOf(job, ['Job', 'TTLAfterFinished'])).toEqual(['c/Job/ns/pi', 'c/TTLAfterFinished/ns/pi']);
    expect(keysOf(job, ['Job'])).toEqual(['c/Job/ns/pi']);
  });

  it('watches, resyncs and caches jobs, and is woken by no relist of another resource', () => {
    expect(watchedResources(['TTLAfterFinished'])).toEqual(['jobs']);
    expect(DESCRIPTORS.primaryResource('TTLAfterFinished')).toBe('jobs');
    expect(dependentKinds('jobs', ['TTLAfterFinished', 'CronJob'])).toEqual(['CronJob']);
    expect(DESCRIPTORS.descriptor('TTLAfterFinished')?.for.kind).toBe('Job');
    expect(DESCRIPTORS.controllers().get('TTLAfterFinished')?.kind).toBe('TTLAfterFinished');
  });
});
