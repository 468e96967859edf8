import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { planMirror } from '../../../shared/controllers/configmap-mirror/plan.js';
import {
  MIRROR_OF,
  MIRROR_SOURCE_UID,
  MIRROR_TO,
  targetNamespaces,
  type ObservedMirror,
} from '../../../shared/controllers/configmap-mirror/types.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const LABEL = 'src-ns.settings';

function source(mirrorTo: string | undefined, data: Record<string, string> = { a: '1' }): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      namespace: 'src-ns',
      uid: 'uid-src',
      annotations: mirrorTo === undefined ? {} : { [MIRROR_TO]: mirrorTo },
    },
    data,
  };
}
function ns(name: string, terminating = false): V1Namespace {
  return { metadata: { name, ...(terminating && { deletionTimestamp: NOW }) } };
}
function copy(namespace: string, data: Record<string, string> = { a: '1' }, rv = '7'): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      namespace,
      uid: `uid-${namespace}`,
      resourceVersion: rv,
      labels: { [MIRROR_OF]: LABEL },
      annotations: { [MIRROR_SOURCE_UID]: 'uid-src' },
    },
    data,
  };
}
function observed(src: V1ConfigMap | null, copies: V1ConfigMap[], targets: ObservedMirror['targets']): ObservedMirror {
  return { namespace: 'src-ns', name: 'settings', source: src, copies, targets };
}
const desired = (namespace: string, data: Record<string, string> = { a: '1' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace,
    labels: { [MIRROR_OF]: LABEL },
    annotations: { [MIRROR_SOURCE_UID]: 'uid-src' },
  },
  data,
});

describe('planMirror', () => {
  it.each([
    {
      name: 'creates a copy in every existing target namespace',
      o: observed(
        source('a,b'),
        [],
        [
          { namespace: 'a', ns: ns('a'), existing: null },
          { namespace: 'b', ns: ns('b'), existing: null },
        ],
      ),
      want: {
        actions: [
          { type: 'create', object: desired('a'), reason: 'MirrorCreated' },
          { type: 'create', object: desired('b'), reason: 'MirrorCreated' },
        ],
      },
    },
    {
      name: 'does nothing when every copy is in sync',
      o: observed(source('a'), [copy('a')], [{ namespace: 'a', ns: ns('a'), existing: copy('a') }]),
      want: { actions: [] },
    },
    {
      name: 'updates a stale copy with its resourceVersion as precondition',
      o: observed(
        source('a', { a: '2' }),
        [copy('a')],
        [{ namespace: 'a', ns: ns('a'), existing: copy('a', { a: '1' }, '42') }],
      ),
      want: {
        actions: [
          {
            type: 'update',
            object: { ...desired('a', { a: '2' }), metadata: { ...desired('a').metadata, resourceVersion: '42' } },
            reason: 'MirrorUpdated',
          },
        ],
      },
    },
    {
      name: 'deletes every copy by uid when the source is gone',
      o: observed(null, [copy('a'), copy('b')], []),
      want: {
        actions: [
          {
            type: 'delete',
            target: { kind: 'ConfigMap', namespace: 'a', name: 'settings' },
            uid: 'uid-a',
            reason: 'MirrorDeleted',
          },
          {
            type: 'delete',
            target: { kind: 'ConfigMap', namespace: 'b', name: 'settings' },
            uid: 'uid-b',
            reason: 'MirrorDeleted',
          },
        ],
      },
    },
    {
      name: 'deletes the copy in a namespace dropped from the annotation',
      o: observed(source('a'), [copy('a'), copy('b')], [{ namespace: 'a', ns: ns('a'), existing: copy('a') }]),
      want: {
        actions: [
          {
            type: 'delete',
            target: { kind: 'ConfigMap', namespace: 'b', name: 'settings' },
            uid: 'uid-b',
            reason: 'MirrorDeleted',
          },
        ],
      },
    },
    {
      name: 'leaves a foreign ConfigMap of the same name alone',
      o: observed(
        source('a'),
        [],
        [
          {
            namespace: 'a',
            ns: ns('a'),
            existing: { metadata: { name: 'settings', namespace: 'a', resourceVersion: '1' }, data: { mine: 'yes' } },
          },
        ],
      ),
      want: { actions: [] },
    },
    {
      name: 'waits for a missing namespace and looks again later',
      o: observed(source('later'), [], [{ namespace: 'later', ns: null, existing: null }]),
      want: { actions: [], requeueAfter: 30_000 },
    },
    {
      name: 'skips a terminating namespace without requeueing',
      o: observed(source('going'), [], [{ namespace: 'going', ns: ns('going', true), existing: null }]),
      want: { actions: [] },
    },
  ])('$name', ({ o, want }) => {
    expect(planMirror(o, NOW)).toEqual(want);
  });
});

describe('targetNamespaces', () => {
  it.each([
    { name: 'splits, trims and sorts', value: ' b, a ,,a', want: ['a', 'b'] },
    { name: 'drops the source namespace itself', value: 'src-ns,x', want: ['x'] },
    { name: 'no annotation means no targets', value: undefined, want: [] },
  ])('$name', ({ value, want }) => expect(targetNamespaces(source(value))).toEqual(want));

  it('a source being deleted has no targets', () => {
    const s = source('a');
    expect(targetNamespaces({ ...s, metadata: { ...s.metadata, deletionTimestamp: NOW } })).toEqual([]);
  });
});
