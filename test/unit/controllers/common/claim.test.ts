// ControllerRefManager's ClaimObject over a list, canAdopt (RecheckDeletionTimestamp with the uid check) and the
// adoption and release patches, as every owning controller uses them (common/claim.ts).
import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import { canAdopt, claimActions, claimObjects } from '../../../../shared/controllers/common/claim.js';
import { selectorOf } from '../../../../shared/kube/meta/label-selector.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';

const NS = 'ns';
const OWNER_UID = 'uid-owner';
const DELETED = '2025-01-01T00:00:00Z';

function owner(extra: { deleting?: boolean; uid?: string } = {}): ApiObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web',
      namespace: NS,
      uid: extra.uid ?? OWNER_UID,
      ...(extra.deleting && { deletionTimestamp: DELETED }),
    },
  };
}

const controllerRef = (uid: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: 'x',
  uid,
  controller: true,
});

function pod(name: string, o: { app?: string; controller?: string; deleting?: boolean; namespace?: string } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: o.namespace ?? NS,
      uid: `uid-${name}`,
      labels: { app: o.app ?? 'web' },
      ...(o.controller !== undefined && { ownerReferences: [controllerRef(o.controller)] }),
      ...(o.deleting && { deletionTimestamp: DELETED }),
    },
  };
}

const selects = selectorOf({ matchLabels: { app: 'web' } });
const names = (pods: readonly Pod[]) => pods.map((p) => p.metadata?.name);

describe('claimObjects (ClaimObject)', () => {
  it.each([
    {
      name: 'keeps a matching pod it controls',
      pods: [pod('mine', { controller: OWNER_UID })],
      want: { claimed: ['mine'], adopt: [], release: [] },
    },
    {
      name: 'adopts a matching orphan (and counts it as claimed)',
      pods: [pod('orphan')],
      want: { claimed: ['orphan'], adopt: ['orphan'], release: [] },
    },
    {
      name: 'releases a pod it controls that no longer matches',
      pods: [pod('stray', { controller: OWNER_UID, app: 'other' })],
      want: { claimed: [], adopt: [], release: ['stray'] },
    },
    {
      name: "ignores another controller's pod, matching or not",
      pods: [pod('theirs', { controller: 'uid-other' }), pod('theirs-2', { controller: 'uid-other', app: 'x' })],
      want: { claimed: [], adopt: [], release: [] },
    },
    {
      name: 'ignores an orphan that does not match',
      pods: [pod('unrelated', { app: 'other' })],
      want: { claimed: [], adopt: [], release: [] },
    },
    {
      name: 'ignores an orphan being deleted',
      pods: [pod('going', { deleting: true })],
      want: { claimed: [], adopt: [], release: [] },
    },
    {
      name: 'ignores an orphan in another namespace',
      pods: [pod('elsewhere', { namespace: 'other-ns' })],
      want: { claimed: [], adopt: [], release: [] },
    },
    {
      name: 'keeps a pod it controls even while that pod is being deleted',
      pods: [pod('mine-going', { controller: OWNER_UID, deleting: true })],
      want: { claimed: ['mine-going'], adopt: [], release: [] },
    },
    {
      name: 'keeps the observed order within each list',
      pods: [pod('b'), pod('a', { controller: OWNER_UID }), pod('s', { controller: OWNER_UID, app: 'x' }), pod('c')],
      want: { claimed: ['b', 'a', 'c'], adopt: ['b', 'c'], release: ['s'] },
    },
  ])('$name', ({ pods, want }) => {
    const c = claimObjects(owner(), pods, selects);
    expect({ claimed: names(c.claimed), adopt: names(c.adopt), release: names(c.release) }).toEqual(want);
  });

  it('an owner being deleted keeps what it controls and matches, but neither adopts nor releases', () => {
    const pods = [
      pod('mine', { controller: OWNER_UID }),
      pod('orphan'),
      pod('stray', { controller: OWNER_UID, app: 'x' }),
    ];
    const c = claimObjects(owner({ deleting: true }), pods, selects);
    expect({ claimed: names(c.claimed), adopt: names(c.adopt), release: names(c.release) }).toEqual({
      claimed: ['mine'],
      adopt: [],
      release: [],
    });
  });

  it('ignoreOwnerDeletion classifies a deleting owner as a live one (the StatefulSet planner decides itself)', () => {
    const pods = [pod('orphan'), pod('stray', { controller: OWNER_UID, app: 'x' })];
    const c = claimObjects(owner({ deleting: true }), pods, selects, { ignoreOwnerDeletion: true });
    expect({ claimed: names(c.claimed), adopt: names(c.adopt), release: names(c.release) }).toEqual({
      claimed: ['orphan'],
      adopt: ['orphan'],
      release: ['stray'],
    });
  });

  it('a filter narrows the match as ClaimPods filters do: an orphan it rejects is ignored, a controlled one released', () => {
    const pods = [
      pod('web-0'),
      pod('db-0'),
      pod('web-1', { controller: OWNER_UID }),
      pod('db-1', { controller: OWNER_UID }),
    ];
    const c = claimObjects(owner(), pods, selects, { filter: (p) => p.metadata?.name?.startsWith('web-') === true });
    expect({ claimed: names(c.claimed), adopt: names(c.adopt), release: names(c.release) }).toEqual({
      claimed: ['web-0', 'web-1'],
      adopt: ['web-0'],
      release: ['db-1'],
    });
  });
});

describe('canAdopt (RecheckDeletionTimestamp)', () => {
  it.each([
    { name: 'the same owner, not being deleted', fresh: owner(), want: true },
    { name: 'the owner is gone', fresh: null, want: false },
    { name: 'no fresh read was made', fresh: undefined, want: false },
    { name: 'the owner is being deleted now', fresh: owner({ deleting: true }), want: false },
    { name: 'the name now belongs to another owner (uid changed)', fresh: owner({ uid: 'uid-new' }), want: false },
  ])('$name: $want', ({ fresh, want }) => {
    expect(canAdopt(owner(), fresh)).toBe(want);
  });
});

describe('claimActions', () => {
  const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: OWNER_UID };

  it('adoptions then releases, as strategic merge patches with the uid precondition', () => {
    const c = claimObjects(owner(), [pod('stray', { controller: OWNER_UID, app: 'x' }), pod('orphan')], selects);
    expect(claimActions(ref, 'Pod', c)).toEqual([
      {
        type: 'patch',
        target: { kind: 'Pod', namespace: NS, name: 'orphan' },
        patch: {
          metadata: { ownerReferences: [{ ...ref, controller: true, blockOwnerDeletion: true }], uid: 'uid-orphan' },
        },
        reason: 'AdoptPod',
        ignore: ['NotFound'],
      },
      {
        type: 'patch',
        target: { kind: 'Pod', namespace: NS, name: 'stray' },
        patch: { metadata: { ownerReferences: [{ $patch: 'delete', uid: OWNER_UID }], uid: 'uid-stray' } },
        reason: 'ReleasePod',
        ignore: ['NotFound', 'Invalid'],
      },
    ]);
  });

  it('carries the extras into each patch (the Job tracking finalizer)', () => {
    const c = claimObjects(owner(), [pod('orphan'), pod('stray', { controller: OWNER_UID, app: 'x' })], selects);
    const actions = claimActions(ref, 'Pod', c, {
      adopt: { finalizers: ['f'] },
      release: { '$deleteFromPrimitiveList/finalizers': ['f'] },
    });
    expect(actions.map((a) => (a.type === 'patch' ? a.patch : undefined))).toEqual([
      {
        metadata: {
          ownerReferences: [{ ...ref, controller: true, blockOwnerDeletion: true }],
          finalizers: ['f'],
          uid: 'uid-orphan',
        },
      },
      {
        metadata: {
          ownerReferences: [{ $patch: 'delete', uid: OWNER_UID }],
          '$deleteFromPrimitiveList/finalizers': ['f'],
          uid: 'uid-stray',
        },
      },
    ]);
  });

  it('names reasons after the kind (ControllerRevision)', () => {
    const c = claimObjects(owner(), [pod('orphan')], selects);
    expect(claimActions(ref, 'ControllerRevision', c).map((a) => (a.type === 'patch' ? a.reason : ''))).toEqual([
      'AdoptControllerRevision',
    ]);
  });
});
