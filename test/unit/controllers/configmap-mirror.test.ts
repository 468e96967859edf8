import { describe, expect, it } from '@jest/globals';
import type { KubernetesObject, ConfigMap, Namespace } from '../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../shared/kube/meta/object.js';
import { configMapMirror, configMapMirrorController } from '../../../shared/controllers/configmap-mirror/index.js';
import { observeMirror } from '../../../shared/controllers/configmap-mirror/observe.js';
import { planMirror } from '../../../shared/controllers/configmap-mirror/plan.js';
import { Refusal, refusalOf, screenTargets } from '../../../shared/controllers/configmap-mirror/policy.js';
import type { ClusterView, ListOptions } from '../../../shared/kube/view.js';
import {
  MIRROR_OF,
  MIRROR_SOURCE_UID,
  MIRROR_TO,
  targetNamespaces,
  type ObservedMirror,
} from '../../../shared/controllers/configmap-mirror/types.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const NOW_WIRE = '2026-01-01T00:00:00Z';
const LABEL = 'src-ns.settings';

function source(mirrorTo: string | undefined, data: Record<string, string> = { a: '1' }): ConfigMap {
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
function ns(name: string, terminating = false): Namespace {
  return { metadata: { name, ...(terminating && { deletionTimestamp: NOW_WIRE }) } };
}
function copy(namespace: string, data: Record<string, string> = { a: '1' }, rv = '7'): ConfigMap {
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
/** What observe hands the planner; the cluster allows the namespaces these tests write into by default. */
function observed(
  src: ConfigMap | null,
  copies: ConfigMap[],
  targets: ObservedMirror['targets'],
  allowedNamespaces: readonly string[] = ['a', 'b', 'later', 'going'],
): ObservedMirror {
  return { namespace: 'src-ns', name: 'settings', source: src, copies, targets, allowedNamespaces, refused: [] };
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
      name: 'never deletes a copy in a namespace that is not allowed (any more), nor a look-alike in kube-system',
      o: observed(null, [copy('a'), copy('b'), copy('kube-system')], [], ['a']),
      want: {
        actions: [
          {
            type: 'delete',
            target: { kind: 'ConfigMap', namespace: 'a', name: 'settings' },
            uid: 'uid-a',
            reason: 'MirrorDeleted',
          },
        ],
      },
    },
    {
      name: 'never writes into a target that is not allowed, even if observe handed it over',
      o: observed(
        source('a,kube-system,c'),
        [],
        [
          { namespace: 'a', ns: ns('a'), existing: null },
          { namespace: 'kube-system', ns: ns('kube-system'), existing: null },
          { namespace: 'c', ns: ns('c'), existing: null },
        ],
        ['a', 'kube-*'],
      ),
      want: { actions: [{ type: 'create', object: desired('a'), reason: 'MirrorCreated' }] },
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
    expect(targetNamespaces({ ...s, metadata: { ...s.metadata, deletionTimestamp: NOW_WIRE } })).toEqual([]);
  });
});

describe('target policy', () => {
  it.each([
    { ns: 'team-a', allowed: ['team-a'], want: null },
    { ns: 'team-b', allowed: ['team-*'], want: null },
    { ns: 'other', allowed: ['team-*'], want: Refusal.NotAllowed },
    { ns: 'team-a', allowed: [], want: Refusal.NotAllowed },
    { ns: 'kube-system', allowed: ['kube-system', 'kube-*'], want: Refusal.System },
    { ns: 'kube-public', allowed: ['kube-*'], want: Refusal.System },
    { ns: 'kube-node-lease', allowed: ['kube-*'], want: Refusal.System },
    { ns: '..', allowed: ['..'], want: Refusal.NotAName },
    { ns: 'a/b', allowed: ['a*'], want: Refusal.NotAName },
    { ns: '%2e%2e', allowed: ['%*'], want: Refusal.NotAName },
    { ns: 'Team', allowed: ['Team'], want: Refusal.NotAName },
    { ns: 'x'.repeat(64), allowed: ['x*'], want: Refusal.NotAName },
  ])('$ns with $allowed: $want', ({ ns: namespace, allowed, want }) => {
    expect(refusalOf(namespace, allowed)).toBe(want);
  });

  it('screenTargets keeps the allowed targets and says why each other one is refused', () => {
    expect(screenTargets(['ok', 'kube-system', '..', 'other'], ['ok', 'kube-system'])).toEqual({
      targets: ['ok'],
      refused: [
        { namespace: 'kube-system', reason: Refusal.System },
        { namespace: '..', reason: Refusal.NotAName },
        { namespace: 'other', reason: Refusal.NotAllowed },
      ],
    });
  });
});

describe('observeMirror with a policy', () => {
  /** An in-memory view recording every path-shaped read it is asked for. */
  class RecordingView implements ClusterView {
    readonly cluster = 'c';
    readonly requests: string[] = [];
    constructor(private readonly objects: KubernetesObject[]) {}
    async get<T extends ApiObject>(kind: string, namespace: string, name: string): Promise<T | null> {
      this.requests.push(`GET ${kind} ${namespace}/${name}`);
      const hit = this.objects.find(
        (o) => o.kind === kind && (o.metadata?.namespace ?? '') === namespace && o.metadata?.name === name,
      );
      return (hit as T | undefined) ?? null;
    }
    async list<T extends ApiObject>(kind: string, _ns: string | undefined, o?: ListOptions): Promise<T[]> {
      this.requests.push(`LIST ${kind} ${o?.labelSelector ?? ''}`);
      return [];
    }
  }
  const key = { cluster: 'c', kind: 'ConfigMap', namespace: 'src-ns', name: 'settings' };

  it('reads only the allowed targets; the others are refused with a reason and never reach a read', async () => {
    const view = new RecordingView([
      source('ok, kube-system, .., other'),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ok' } },
    ]);
    const o = await observeMirror(view, key, ['ok']);
    expect(o.targets).toEqual([
      { namespace: 'ok', ns: expect.objectContaining({ kind: 'Namespace' }), existing: null },
    ]);
    expect(o.refused).toEqual([
      { namespace: '..', reason: Refusal.NotAName },
      { namespace: 'kube-system', reason: Refusal.System },
      { namespace: 'other', reason: Refusal.NotAllowed },
    ]);
    expect(view.requests.filter((r) => r.startsWith('GET')).sort()).toEqual([
      'GET ConfigMap ok/settings',
      'GET ConfigMap src-ns/settings',
      'GET Namespace /ok',
    ]);
    expect(planMirror(o, NOW).actions.map((a) => a.type)).toEqual(['create']);
  });

  it('the controller takes the policy of the key’s cluster; without one it writes nowhere', async () => {
    const objects = [source('ok'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ok' } }];
    const bound = configMapMirrorController((cluster) => (cluster === 'c' ? { allowedNamespaces: ['ok'] } : undefined));
    const withPolicy = await bound.observe(new RecordingView(objects), key);
    expect(bound.plan(withPolicy, NOW).actions).toHaveLength(1);
    const elsewhere = await bound.observe(new RecordingView(objects), { ...key, cluster: 'd' });
    expect(elsewhere.refused).toEqual([{ namespace: 'ok', reason: Refusal.NotAllowed }]);
    expect(bound.plan(elsewhere, NOW).actions).toEqual([]);
    const unbound = await configMapMirror.observe(new RecordingView(objects), key);
    expect(configMapMirror.plan(unbound, NOW).actions).toEqual([]);
  });
});
