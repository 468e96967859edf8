// Kinds owned together or not at all (kinds.ts OWNED_TOGETHER, from the descriptors' `ownedWith`): the key kinds
// of one upstream controller (LeaderWorkerSet and LeaderWorkerSetPod). A registry entry owning part of a group is
// refused, naming the whole group and what is missing.
import { describe, expect, it } from '@jest/globals';
import { OWNED_TOGETHER } from '../../../shared/kube/kinds.js';
import { RegistryError, ownedApart, parseRegistry } from '../../../shared/kube/registry.js';

const GROUPS = [['LeaderWorkerSet', 'LeaderWorkerSetPod']];

describe('ownedApart', () => {
  it.each([
    { name: 'neither', owns: ['Deployment', 'ReplicaSet'] },
    { name: 'both', owns: ['LeaderWorkerSetPod', 'Deployment', 'LeaderWorkerSet'] },
    { name: 'nothing at all', owns: [] },
  ])('accepts $name', ({ owns }) => expect(ownedApart(owns, GROUPS)).toBeUndefined());

  it.each([
    {
      name: 'the set without its pods',
      owns: ['Deployment', 'LeaderWorkerSet'],
      want: 'LeaderWorkerSet and LeaderWorkerSetPod are owned together or not at all (the keys of one upstream controller): owns LeaderWorkerSet without LeaderWorkerSetPod',
    },
    {
      name: 'the pods without their set',
      owns: ['LeaderWorkerSetPod'],
      want: 'LeaderWorkerSet and LeaderWorkerSetPod are owned together or not at all (the keys of one upstream controller): owns LeaderWorkerSetPod without LeaderWorkerSet',
    },
  ])('refuses $name', ({ owns, want }) => expect(ownedApart(owns, GROUPS)).toBe(want));

  it('names every kind of a larger group', () =>
    expect(ownedApart(['A'], [['A', 'B', 'C']])).toBe(
      'A, B and C are owned together or not at all (the keys of one upstream controller): owns A without B, C',
    ));
});

describe('a cluster registry owning LeaderWorkerSet', () => {
  const registry = (owns: string, defaults = '') =>
    [
      ...(defaults === '' ? [] : ['defaults:', `  owns: [${defaults}]`]),
      'clusters:',
      '  - name: eu-1',
      '    kubeconfig: kc.yaml',
      ...(owns === '' ? [] : [`    owns: [${owns}]`]),
    ].join('\n');

  it('is read when an entry owns both kinds, or neither', () => {
    expect(parseRegistry(registry('Deployment, LeaderWorkerSet, LeaderWorkerSetPod'), 'r.yaml')[0]?.owns).toEqual([
      'Deployment',
      'LeaderWorkerSet',
      'LeaderWorkerSetPod',
    ]);
    expect(parseRegistry(registry('Deployment'), 'r.yaml')[0]?.owns).toEqual(['Deployment']);
  });

  it('is refused when an entry, or the defaults, own one without the other, naming both kinds', () => {
    expect(() => parseRegistry(registry('Deployment, LeaderWorkerSet'), 'r.yaml')).toThrow(
      new RegistryError(
        'r.yaml: invalid cluster registry\n  clusters[0].owns: LeaderWorkerSet and LeaderWorkerSetPod are owned together or not at all (the keys of one upstream controller): owns LeaderWorkerSet without LeaderWorkerSetPod',
      ),
    );
    expect(() => parseRegistry(registry('', 'LeaderWorkerSetPod'), 'r.yaml')).toThrow(
      /defaults\.owns: LeaderWorkerSet and LeaderWorkerSetPod are owned together or not at all .*: owns LeaderWorkerSetPod without LeaderWorkerSet/,
    );
  });

  it('derives the groups from the registered descriptors', () =>
    expect(OWNED_TOGETHER).toEqual([['LeaderWorkerSet', 'LeaderWorkerSetPod']]));
});
