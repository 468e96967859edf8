import { describe, expect, it } from '@jest/globals';
import {
  droppedAnnotationsOf,
  restoredFrom,
  withDroppedAnnotations,
  withoutDroppedMarker,
} from '../../../shared/kube/meta/dropped-annotations.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const trimmed = (rv: string, annotations: Record<string, string>) => ({
  kind: 'Deployment',
  metadata: { name: 'd', resourceVersion: rv, annotations, fleetqDroppedAnnotations: [LAST_APPLIED, 'big'] },
});
const live = (rv: string) => ({
  metadata: { name: 'd', resourceVersion: rv, annotations: { [LAST_APPLIED]: '{}', big: 'B', small: 's' } },
});

describe('dropped annotations', () => {
  it('records the union of what was dropped, sorted, and reads it back', () => {
    const m = withDroppedAnnotations(withDroppedAnnotations({ name: 'd' }, ['z', LAST_APPLIED]), ['a', 'z']);
    expect(droppedAnnotationsOf({ metadata: m })).toEqual(['a', LAST_APPLIED, 'z']);
    expect(withDroppedAnnotations({ name: 'd' }, [])).toEqual({ name: 'd' });
  });

  it('reads a hostile marker as what it can use of it', () => {
    expect(droppedAnnotationsOf({ metadata: { fleetqDroppedAnnotations: 'big' } })).toEqual([]);
    expect(droppedAnnotationsOf({ metadata: { fleetqDroppedAnnotations: ['a', 7, null] } })).toEqual(['a']);
    expect(droppedAnnotationsOf({})).toEqual([]);
  });

  it.each([
    {
      name: 'puts the dropped values back from the same version, keeps what the planner set',
      object: trimmed('5', { small: 'planner' }),
      from: live('5'),
      want: { name: 'd', resourceVersion: '5', annotations: { small: 'planner', [LAST_APPLIED]: '{}', big: 'B' } },
    },
    {
      name: 'leaves another version to the precondition (only the marker goes)',
      object: trimmed('5', { small: 's' }),
      from: live('6'),
      want: { name: 'd', resourceVersion: '5', annotations: { small: 's' } },
    },
    {
      name: 'a key the planner set itself is not overwritten by the live value',
      object: trimmed('5', { big: 'planner' }),
      from: live('5'),
      want: { name: 'd', resourceVersion: '5', annotations: { big: 'planner', [LAST_APPLIED]: '{}' } },
    },
  ])('$name', ({ object, from, want }) => {
    expect(restoredFrom(object, from).metadata).toEqual(want);
  });

  it('takes the marker out of an object that has one, and returns any other as it is', () => {
    const o = trimmed('1', {});
    expect(withoutDroppedMarker(o).metadata).toEqual({ name: 'd', resourceVersion: '1', annotations: {} });
    const plain = { metadata: { name: 'x' } };
    expect(withoutDroppedMarker(plain)).toBe(plain);
  });
});
