import { describe, expect, it } from '@jest/globals';
import {
  controllerRefOf,
  controllerUidOf,
  groupOf,
  isControlledBy,
  isControlledByOrOrphan,
  newControllerRef,
} from '../../../../shared/kube/meta/controller-ref.js';

const ref = (uid: string, controller?: boolean) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: `rs-${uid}`,
  uid,
  ...(controller === undefined ? {} : { controller }),
});
const withRefs = (ownerReferences: unknown) => ({ metadata: { ownerReferences } });

describe('controller references', () => {
  it.each<{ name: string; refs: unknown; want: string | undefined }>([
    { name: 'no owner references', refs: undefined, want: undefined },
    { name: 'owners but no controller', refs: [ref('a'), ref('b', false)], want: undefined },
    { name: 'the controller among owners', refs: [ref('a'), ref('b', true)], want: 'b' },
    { name: 'the first of two controllers (GetControllerOf)', refs: [ref('a', true), ref('b', true)], want: 'a' },
    { name: 'ownerReferences not a list', refs: 'x', want: undefined },
    { name: 'entries that are not objects', refs: [null, 'x', ref('c', true)], want: 'c' },
    { name: 'controller: "true" is not true', refs: [{ ...ref('a'), controller: 'true' }], want: undefined },
  ])('$name', ({ refs, want }) => {
    expect(controllerRefOf(withRefs(refs))?.uid).toBe(want);
    expect(controllerUidOf(withRefs(refs))).toBe(want);
  });

  it('reads a field of the wrong type as empty, and a controller without a uid as no uid', () => {
    const odd = withRefs([{ kind: 5, name: 'x', uid: 7, controller: true }]);
    expect(controllerRefOf(odd)).toEqual({ apiVersion: '', kind: '', name: 'x', uid: '', controller: true });
    expect(controllerUidOf(odd)).toBeUndefined();
  });

  it('isControlledBy and isControlledByOrOrphan', () => {
    const owned = withRefs([ref('u', true)]);
    const orphan = withRefs([ref('u')]);
    expect(isControlledBy(owned, 'u')).toBe(true);
    expect(isControlledBy(owned, 'v')).toBe(false);
    expect(isControlledBy(orphan, 'u')).toBe(false);
    expect(isControlledByOrOrphan(owned, 'u')).toBe(true);
    expect(isControlledByOrOrphan(owned, 'v')).toBe(false);
    expect(isControlledByOrOrphan(orphan, 'v')).toBe(true);
  });

  it('newControllerRef blocks owner deletion', () => {
    expect(newControllerRef({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u' })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'd',
      uid: 'u',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('groupOf', () => {
    expect(groupOf('apps/v1')).toBe('apps');
    expect(groupOf('batch/v1beta1')).toBe('batch');
    expect(groupOf('v1')).toBe('');
  });
});
