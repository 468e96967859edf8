import { describe, expect, it } from '@jest/globals';
import type { V1OwnerReference } from '@kubernetes/client-node';
import { keyString } from '../../../shared/kube/key.js';
import { ALL_KINDS, type Kind } from '../../../shared/kube/kinds.js';
import { eventKeys, type EventType, type KeyContext } from '../../../shared/forwarder/event-keys.js';
import {
  MIRROR_OF_LABEL,
  MIRROR_TO_ANNOTATION,
  mirrorSourceView,
} from '../../../shared/controllers/configmap-mirror/watch-keys.js';
import { nodeView } from '../../../shared/controllers/daemonset/node-changes.js';
import type { KubeObject, Resource } from '../../../shared/forwarder/resources.js';
import { WorkloadIndex } from '../../../shared/forwarder/workload-index.js';
import { DescriptorRegistry } from '../../../shared/controllers/descriptor-registry.js';
import type { WatchDescriptor } from '../../../shared/controllers/descriptor.js';
import { DESCRIPTORS } from '../../../shared/controllers/index.js';
import { apiResource } from '../../../shared/kube/resources.js';

const CLUSTER = 'c1';
const NS = 'ns1';

type ObjOpts = {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  owner?: V1OwnerReference;
  selector?: unknown;
  spec?: Record<string, unknown>;
  status?: unknown;
};
function obj(o: ObjOpts = {}): KubeObject {
  return {
    metadata: {
      name: o.name ?? 'x',
      namespace: o.namespace === undefined ? NS : o.namespace,
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.owner ? { ownerReferences: [o.owner] } : {}),
    },
    spec: { ...(o.selector === undefined ? {} : { selector: o.selector }), ...o.spec },
    ...(o.status === undefined ? {} : { status: o.status }),
  };
}
const ctrl = (
  kind: string,
  name: string,
  apiVersion = kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1',
) => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller: true,
});
const node = (labels: Record<string, string>, ready = 'True', heartbeat = 't1'): KubeObject => ({
  metadata: { name: 'n1', labels },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: heartbeat }] },
});

function index(): WorkloadIndex {
  const idx = new WorkloadIndex();
  idx.apply('deployments', 'ADDED', obj({ name: 'web', selector: { matchLabels: { app: 'web' } } }));
  idx.apply(
    'replicasets',
    'ADDED',
    obj({ name: 'web-1', selector: { matchLabels: { app: 'web', h: '1' } }, owner: ctrl('Deployment', 'web') }),
  );
  idx.apply(
    'statefulsets',
    'ADDED',
    obj({ name: 'db', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'cache'] }] } }),
  );
  idx.apply('daemonsets', 'ADDED', obj({ name: 'agent', selector: { matchLabels: { app: 'agent' } } }));
  idx.apply(
    'daemonsets',
    'ADDED',
    obj({ name: 'logs', namespace: 'kube-system', selector: { matchLabels: { app: 'logs' } } }),
  );
  idx.apply(
    'jobs',
    'ADDED',
    obj({ name: 'batch', selector: { matchExpressions: [{ key: 'job', operator: 'Exists' }] } }),
  );
  idx.apply('replicasets', 'ADDED', obj({ name: 'empty', selector: {} }));
  idx.apply(
    'deployments',
    'ADDED',
    obj({ name: 'other-ns', namespace: 'ns2', selector: { matchLabels: { app: 'web' } } }),
  );
  return idx;
}

const ctx = (owns: readonly Kind[] = ALL_KINDS): KeyContext => ({
  cluster: CLUSTER,
  owns: new Set(owns),
  index: index(),
});
const k = (kind: string, name: string, namespace = NS) => keyString({ cluster: CLUSTER, kind, namespace, name });

type Case = {
  name: string;
  resource: Resource;
  type?: EventType;
  object: KubeObject;
  previous?: KubeObject;
  owns?: readonly Kind[];
  want: string[];
};

const cases: Case[] = [
  {
    name: 'Deployment enqueues itself',
    resource: 'deployments',
    object: obj({ name: 'web' }),
    want: [k('Deployment', 'web')],
  },
  {
    name: 'StatefulSet enqueues itself',
    resource: 'statefulsets',
    object: obj({ name: 'db' }),
    want: [k('StatefulSet', 'db')],
  },
  {
    name: 'DaemonSet deletion enqueues itself',
    resource: 'daemonsets',
    type: 'DELETED',
    object: obj({ name: 'agent' }),
    want: [k('DaemonSet', 'agent')],
  },
  {
    name: 'CronJob enqueues itself',
    resource: 'cronjobs',
    object: obj({ name: 'nightly' }),
    want: [k('CronJob', 'nightly')],
  },
  {
    name: 'a kind not owned yields nothing',
    resource: 'deployments',
    object: obj({ name: 'web' }),
    owns: ['Job'],
    want: [],
  },
  {
    name: 'ReplicaSet enqueues itself and its Deployment',
    resource: 'replicasets',
    object: obj({ name: 'web-1', owner: ctrl('Deployment', 'web') }),
    want: [k('ReplicaSet', 'web-1'), k('Deployment', 'web')],
  },
  {
    name: 'ReplicaSet owned by Deployment only enqueues the Deployment',
    resource: 'replicasets',
    object: obj({ name: 'web-1', owner: ctrl('Deployment', 'web') }),
    owns: ['Deployment'],
    want: [k('Deployment', 'web')],
  },
  {
    name: 'orphan ReplicaSet enqueues the Deployments whose selector matches it',
    resource: 'replicasets',
    object: obj({ name: 'stray', labels: { app: 'web' } }),
    want: [k('ReplicaSet', 'stray'), k('Deployment', 'web')],
  },
  {
    name: 'Job enqueues itself and its CronJob',
    resource: 'jobs',
    object: obj({ name: 'nightly-1', owner: ctrl('CronJob', 'nightly') }),
    want: [k('Job', 'nightly-1'), k('CronJob', 'nightly')],
  },
  {
    name: 'Pod enqueues its controlling ReplicaSet',
    resource: 'pods',
    object: obj({ name: 'p', labels: { app: 'web', h: '1' }, owner: ctrl('ReplicaSet', 'web-1') }),
    want: [k('ReplicaSet', 'web-1')],
  },
  {
    name: 'Pod deletion also enqueues the Deployment of its ReplicaSet',
    resource: 'pods',
    type: 'DELETED',
    object: obj({ name: 'p', owner: ctrl('ReplicaSet', 'web-1') }),
    want: [k('ReplicaSet', 'web-1'), k('Deployment', 'web')],
  },
  {
    name: 'Pod of a ReplicaSet the cluster does not own yields nothing',
    resource: 'pods',
    object: obj({ name: 'p', owner: ctrl('ReplicaSet', 'web-1') }),
    owns: ['Deployment'],
    want: [],
  },
  {
    name: 'Pod whose controller is of another API group is ignored',
    resource: 'pods',
    object: obj({ name: 'p', owner: ctrl('ReplicaSet', 'web-1', 'example.com/v1') }),
    want: [],
  },
  {
    name: 'Pod with a non-controller owner counts as an orphan',
    resource: 'pods',
    object: obj({ name: 'p', labels: { app: 'agent' }, owner: { ...ctrl('ReplicaSet', 'web-1'), controller: false } }),
    want: [k('DaemonSet', 'agent')],
  },
  {
    name: 'Pod of a StatefulSet, DaemonSet and Job each enqueue their controller',
    resource: 'pods',
    object: obj({ name: 'p', owner: ctrl('StatefulSet', 'db') }),
    want: [k('StatefulSet', 'db')],
  },
  {
    name: 'Pod of a Job',
    resource: 'pods',
    object: obj({ name: 'p', owner: ctrl('Job', 'batch') }),
    want: [k('Job', 'batch')],
  },
  {
    name: 'orphan Pod enqueues every workload in its namespace whose selector matches (matchLabels)',
    resource: 'pods',
    object: obj({ name: 'p', labels: { app: 'web', h: '1' } }),
    want: [k('Deployment', 'web'), k('ReplicaSet', 'web-1')],
  },
  {
    name: 'orphan Pod matched by In and Exists expressions',
    resource: 'pods',
    object: obj({ name: 'p', labels: { tier: 'cache', job: '' } }),
    want: [k('StatefulSet', 'db'), k('Job', 'batch')],
  },
  {
    name: 'orphan Pod matching nothing yields nothing',
    resource: 'pods',
    object: obj({ name: 'p', labels: { tier: 'web' } }),
    want: [],
  },
  {
    name: 'orphan Pod deletion adopts nothing',
    resource: 'pods',
    type: 'DELETED',
    object: obj({ name: 'p', labels: { app: 'web' } }),
    want: [],
  },
  {
    name: 'orphan Pod only wakes owned kinds',
    resource: 'pods',
    object: obj({ name: 'p', labels: { app: 'web', h: '1' } }),
    owns: ['ReplicaSet'],
    want: [k('ReplicaSet', 'web-1')],
  },
  {
    // Upstream's StatefulSet controller has no ControllerRevision event handler: a revision the garbage collector
    // deletes under a set deleted in foreground must not wake the set to make it again.
    name: "a StatefulSet's ControllerRevision wakes nothing",
    resource: 'controllerrevisions',
    object: obj({ name: 'db-abc', owner: ctrl('StatefulSet', 'db') }),
    want: [],
  },
  {
    name: "a StatefulSet's ControllerRevision deleted wakes nothing",
    resource: 'controllerrevisions',
    type: 'DELETED',
    object: obj({ name: 'db-abc', owner: ctrl('StatefulSet', 'db') }),
    want: [],
  },
  {
    name: 'an orphan ControllerRevision matching a StatefulSet wakes nothing',
    resource: 'controllerrevisions',
    object: obj({ name: 'db-abc', labels: { tier: 'db' } }),
    want: [],
  },
  {
    name: 'orphan ControllerRevision enqueues matching DaemonSets',
    resource: 'controllerrevisions',
    object: obj({ name: 'agent-abc', labels: { app: 'agent' } }),
    want: [k('DaemonSet', 'agent')],
  },
  {
    name: 'PVC enqueues its StatefulSet',
    resource: 'persistentvolumeclaims',
    object: obj({ name: 'data-db-0', owner: ctrl('StatefulSet', 'db') }),
    want: [k('StatefulSet', 'db')],
  },
  {
    name: 'Node added enqueues every DaemonSet of the cluster',
    resource: 'nodes',
    object: node({ zone: 'a' }),
    want: [k('DaemonSet', 'agent'), k('DaemonSet', 'logs', 'kube-system')],
  },
  {
    // Which DaemonSets a label change wakes: test/unit/controllers/daemonset/node-changes.test.ts.
    name: 'Node label change that no DaemonSet selects on enqueues nothing',
    resource: 'nodes',
    type: 'MODIFIED',
    object: node({ zone: 'b' }),
    previous: nodeView(node({ zone: 'a' })),
    want: [],
  },
  {
    name: 'Node heartbeat-only update enqueues nothing',
    resource: 'nodes',
    type: 'MODIFIED',
    object: node({ zone: 'a' }, 'True', 't2'),
    previous: nodeView(node({ zone: 'a' }, 'True', 't1')),
    want: [],
  },
  {
    name: 'Node event without owning DaemonSet yields nothing',
    resource: 'nodes',
    object: node({}),
    owns: ['Deployment'],
    want: [],
  },
  {
    name: 'ConfigMap with mirror-to enqueues itself',
    resource: 'configmaps',
    object: obj({ name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'a,b' } }),
    want: [k('ConfigMap', 'src')],
  },
  {
    name: 'ConfigMap whose previous version had mirror-to enqueues itself',
    resource: 'configmaps',
    type: 'MODIFIED',
    object: obj({ name: 'src' }),
    previous: mirrorSourceView(obj({ name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'a' } })),
    want: [k('ConfigMap', 'src')],
  },
  {
    name: 'deleted ConfigMap with mirror-to enqueues itself',
    resource: 'configmaps',
    type: 'DELETED',
    object: obj({ name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'a' } }),
    want: [k('ConfigMap', 'src')],
  },
  {
    name: 'mirror copy enqueues its source, split at the first dot',
    resource: 'configmaps',
    object: obj({ name: 'copy', namespace: 'a', labels: { [MIRROR_OF_LABEL]: 'ns1.app.config' } }),
    want: [k('ConfigMap', 'app.config')],
  },
  {
    name: 'mirror copy with a malformed label yields nothing',
    resource: 'configmaps',
    object: obj({ name: 'copy', labels: { [MIRROR_OF_LABEL]: 'nodot' } }),
    want: [],
  },
  { name: 'plain ConfigMap yields nothing', resource: 'configmaps', object: obj({ name: 'plain' }), want: [] },
  {
    name: 'ConfigMap events yield nothing when ConfigMap is not owned',
    resource: 'configmaps',
    object: obj({ name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'a' } }),
    owns: ['Deployment'],
    want: [],
  },
];

describe('eventKeys', () => {
  it.each(cases)('$name', ({ resource, type, object, previous, owns, want }) => {
    const { keys, invalid } = eventKeys(
      { type: type ?? 'ADDED', resource, object, ...(previous ? { previous } : {}) },
      ctx(owns),
    );
    expect(keys.map(keyString).sort()).toEqual([...want].sort());
    expect(invalid).toEqual([]);
  });

  it('never yields the same key twice', () => {
    const keys = eventKeys(
      {
        type: 'ADDED',
        resource: 'configmaps',
        object: obj({
          name: 'src',
          annotations: { [MIRROR_TO_ANNOTATION]: 'a' },
          labels: { [MIRROR_OF_LABEL]: 'ns1.src' },
        }),
      },
      ctx(),
    );
    expect(keys.keys.map(keyString)).toEqual([k('ConfigMap', 'src')]);
  });
});

describe('eventKeys with bad data: invalid keys apart, with their reasons; valid ones still made', () => {
  const long = 'a'.repeat(300);
  it.each([
    {
      name: 'Pod whose controller owner name is not a name',
      resource: 'pods' as Resource,
      object: obj({ name: 'p', owner: ctrl('ReplicaSet', 'Not A Name') }),
      want: [],
      invalid: [{ key: k('ReplicaSet', 'Not A Name'), reason: 'name "Not A Name" is not a valid name' }],
    },
    {
      name: 'Pod whose controller owner name is 300 characters long',
      resource: 'pods' as Resource,
      object: obj({ name: 'p', owner: ctrl('ReplicaSet', long) }),
      want: [],
      invalid: [{ key: k('ReplicaSet', long), reason: 'name is 300 characters long (at most 253)' }],
    },
    {
      name: 'ReplicaSet with a bad Deployment owner still enqueues itself',
      resource: 'replicasets' as Resource,
      object: obj({ name: 'web-2', owner: ctrl('Deployment', 'web/../x') }),
      want: [k('ReplicaSet', 'web-2')],
      invalid: [{ key: k('Deployment', 'web/../x'), reason: 'name "web/../x" is not a valid name' }],
    },
    {
      name: 'Job with a bad CronJob owner',
      resource: 'jobs' as Resource,
      object: obj({ name: 'j', owner: ctrl('CronJob', 'UPPER') }),
      want: [k('Job', 'j')],
      invalid: [{ key: k('CronJob', 'UPPER'), reason: 'name "UPPER" is not a valid name' }],
    },
    {
      name: 'ConfigMap copy whose mirror-of label names a bad source',
      resource: 'configmaps' as Resource,
      object: obj({ name: 'copy', labels: { [MIRROR_OF_LABEL]: 'a._b' } }),
      want: [],
      invalid: [{ key: k('ConfigMap', '_b', 'a'), reason: 'name "_b" is not a valid name' }],
    },
    {
      name: 'ConfigMap copy whose mirror-of label names a bad namespace',
      resource: 'configmaps' as Resource,
      object: obj({ name: 'copy', labels: { [MIRROR_OF_LABEL]: 'Ns.src' } }),
      want: [],
      invalid: [{ key: k('ConfigMap', 'src', 'Ns'), reason: 'namespace "Ns" is not a valid name' }],
    },
    {
      name: 'a 300-character object name (more than Kubernetes allows)',
      resource: 'deployments' as Resource,
      object: obj({ name: long }),
      want: [],
      invalid: [{ key: k('Deployment', long), reason: 'name is 300 characters long (at most 253)' }],
    },
  ])('$name', ({ resource, object, want, invalid }) => {
    const got = eventKeys({ type: 'ADDED', resource, object }, ctx());
    expect(got.keys.map(keyString)).toEqual(want);
    expect(got.invalid.map((i) => ({ key: keyString(i.key), reason: i.reason }))).toEqual(invalid);
  });

  it.each([
    { name: 'no metadata', object: {} },
    { name: 'metadata not an object', object: { metadata: 'x' } },
    { name: 'ownerReferences not a list', object: { metadata: { name: 'p', namespace: NS, ownerReferences: 'x' } } },
    {
      name: 'an owner reference without apiVersion or name',
      object: { metadata: { name: 'p', namespace: NS, ownerReferences: [{ kind: 'ReplicaSet', controller: true }] } },
    },
    {
      name: 'an owner reference that is null',
      object: { metadata: { name: 'p', namespace: NS, ownerReferences: [null] } },
    },
    { name: 'labels not an object', object: { metadata: { name: 'p', namespace: NS, labels: 'app=web' } } },
    { name: 'name not a string', object: { metadata: { name: 7, namespace: NS } } },
  ])('does not throw on a Pod with $name', ({ object }) => {
    for (const resource of ['pods', 'deployments', 'replicasets', 'controllerrevisions'] as Resource[]) {
      expect(() => eventKeys({ type: 'ADDED', resource, object: object as KubeObject }, ctx())).not.toThrow();
    }
  });

  it('matches nothing with a selector whose matchExpressions is not a list', () => {
    const idx = new WorkloadIndex();
    idx.apply('deployments', 'ADDED', obj({ name: 'odd', selector: { matchExpressions: 'tier in (a)' } }));
    const got = eventKeys(
      { type: 'ADDED', resource: 'pods', object: obj({ name: 'p', labels: { tier: 'a' } }) },
      { cluster: CLUSTER, owns: new Set(ALL_KINDS), index: idx },
    );
    expect(got).toEqual({ keys: [], invalid: [] });
  });
});

describe('eventKeys on a cluster that hands Jobs over one by one (owns no Job; handOver: [Job])', () => {
  const FLEETQ = 'fleetq.dev/job-controller';
  const handOverCtx = (): KeyContext => {
    const idx = new WorkloadIndex();
    const job = (name: string, managedBy?: string) =>
      obj({ name, selector: { matchLabels: { job: name } }, spec: managedBy ? { managedBy } : {} });
    idx.apply('jobs', 'ADDED', job('mine', FLEETQ));
    idx.apply('jobs', 'ADDED', job('builtin', 'kubernetes.io/job-controller'));
    idx.apply('jobs', 'ADDED', job('plain'));
    return { cluster: CLUSTER, owns: new Set(['Deployment']), handOver: new Set(['Job']), index: idx };
  };
  it.each([
    {
      name: 'a Job naming fleetq enqueues itself',
      resource: 'jobs',
      object: obj({ name: 'new', spec: { managedBy: FLEETQ } }),
      want: [k('Job', 'new')],
    },
    {
      name: 'a deleted Job naming fleetq too',
      resource: 'jobs',
      type: 'DELETED',
      object: obj({ name: 'mine', spec: { managedBy: FLEETQ } }),
      want: [k('Job', 'mine')],
    },
    { name: 'a Job without managedBy yields nothing', resource: 'jobs', object: obj({ name: 'plain' }), want: [] },
    {
      name: 'a Job naming the built-in controller yields nothing',
      resource: 'jobs',
      object: obj({ name: 'builtin', spec: { managedBy: 'kubernetes.io/job-controller' } }),
      want: [],
    },
    {
      name: 'managedBy of another type yields nothing',
      resource: 'jobs',
      object: obj({ name: 'odd', spec: { managedBy: 7 } }),
      want: [],
    },
    {
      name: "a pod of fleetq's Job enqueues the Job",
      resource: 'pods',
      object: obj({ name: 'p', owner: ctrl('Job', 'mine') }),
      want: [k('Job', 'mine')],
    },
    {
      name: "a pod of the built-in controller's Job yields nothing",
      resource: 'pods',
      object: obj({ name: 'p', owner: ctrl('Job', 'plain') }),
      want: [],
    },
    {
      name: 'a pod of a Job the index does not know yields nothing',
      resource: 'pods',
      object: obj({ name: 'p', owner: ctrl('Job', 'unknown') }),
      want: [],
    },
    {
      name: "an orphan pod wakes only fleetq's Job among those selecting it",
      resource: 'pods',
      object: obj({ name: 'p', labels: { job: 'mine' } }),
      want: [k('Job', 'mine')],
    },
    {
      name: "an orphan pod selected only by the built-in controller's Job yields nothing",
      resource: 'pods',
      object: obj({ name: 'p', labels: { job: 'plain' } }),
      want: [],
    },
    {
      name: 'owned kinds are unaffected (a Deployment enqueues itself)',
      resource: 'deployments',
      object: obj({ name: 'web' }),
      want: [k('Deployment', 'web')],
    },
  ] as Array<{ name: string; resource: Resource; type?: EventType; object: KubeObject; want: string[] }>)(
    '$name',
    ({ resource, type, object, want }) => {
      const { keys, invalid } = eventKeys({ type: type ?? 'ADDED', resource, object }, handOverCtx());
      expect(keys.map(keyString).sort()).toEqual([...want].sort());
      expect(invalid).toEqual([]);
    },
  );

  it('a cluster that owns Job maps every Job and its pods, whatever managedBy says', () => {
    const owning = { ...handOverCtx(), owns: new Set(['Job']), handOver: new Set<string>() };
    const plain = eventKeys(
      { type: 'ADDED', resource: 'pods', object: obj({ name: 'p', owner: ctrl('Job', 'plain') }) },
      owning,
    );
    expect(plain.keys.map(keyString)).toEqual([k('Job', 'plain')]);
  });
});

describe("eventKeys batching: a key made through an Owns entry's batchMs is enqueued that much later", () => {
  const delays = (resource: Resource, object: KubeObject, type: EventType = 'ADDED', owns?: readonly Kind[]) => {
    const got = eventKeys({ type, resource, object }, ctx(owns));
    expect(got.invalid).toEqual([]);
    return Object.fromEntries(got.keys.map((key) => [keyString(key), got.delayMs?.get(keyString(key)) ?? 0]));
  };

  it.each<{ name: string; type: EventType }>([
    { name: 'added', type: 'ADDED' },
    { name: 'modified', type: 'MODIFIED' },
    { name: 'deleted', type: 'DELETED' },
  ])("a Pod of a Job ($name) enqueues the Job 1 s later (upstream's syncJobBatchPeriod)", ({ type }) => {
    expect(delays('pods', obj({ name: 'p', owner: ctrl('Job', 'batch') }), type)).toEqual({
      [k('Job', 'batch')]: 1000,
    });
  });

  it('an orphan Pod enqueues a matching Job 1 s later and a matching StatefulSet at once', () => {
    expect(delays('pods', obj({ name: 'p', labels: { tier: 'cache', job: '' } }))).toEqual({
      [k('StatefulSet', 'db')]: 0,
      [k('Job', 'batch')]: 1000,
    });
  });

  it("a Job's own events and other kinds' pods are enqueued at once", () => {
    const job = obj({ name: 'nightly-1', owner: ctrl('CronJob', 'nightly') });
    for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
      const got = eventKeys({ type, resource: 'jobs', object: job }, ctx());
      expect(got.keys.map(keyString).sort()).toEqual([k('CronJob', 'nightly'), k('Job', 'nightly-1')].sort());
      expect(got.delayMs).toBeUndefined();
    }
    expect(
      eventKeys({ type: 'MODIFIED', resource: 'pods', object: obj({ owner: ctrl('ReplicaSet', 'web-1') }) }, ctx()),
    ).not.toHaveProperty('delayMs');
  });

  it("a Job's own update that leaves its generation unchanged syncs it 1 s later, a spec change at once (upstream's updateJob)", () => {
    const job = (generation: number): KubeObject => {
      const o = obj({ name: 'batch' });
      return { ...o, metadata: { ...o.metadata, generation } };
    };
    const delay = (type: EventType, previous?: KubeObject) => {
      const got = eventKeys({ type, resource: 'jobs', object: job(2), ...(previous && { previous }) }, ctx(['Job']));
      return got.delayMs?.get(k('Job', 'batch')) ?? 0;
    };
    expect(delay('MODIFIED', job(2))).toBe(1000);
    expect(delay('MODIFIED', job(1))).toBe(0);
    expect(delay('MODIFIED')).toBe(0);
    expect(delay('ADDED')).toBe(0);
    expect(delay('DELETED', job(2))).toBe(0);
  });

  it('a key the same event also yields at once (another mapping) is enqueued at once', () => {
    // A fictitious kind that owns pods with a batch period and also watches pods that name it in a label.
    const gadget: WatchDescriptor = {
      kind: 'Gadget',
      resource: apiResource('Gadget', 'example.dev', 'v1', 'gadgets'),
      for: { kind: 'Gadget' },
      owns: [{ kind: 'Pod', adopts: false, batchMs: 500 }],
      watches: [
        {
          kind: 'Pod',
          why: 'pods labelled gadget=<name>',
          keys: (event) => {
            const name = event.object.metadata?.labels?.gadget;
            return name ? [{ namespace: NS, name }] : [];
          },
        },
      ],
    };
    const registry = new DescriptorRegistry([...DESCRIPTORS.descriptors, gadget]);
    const c: KeyContext = {
      cluster: CLUSTER,
      owns: new Set(['Gadget']),
      index: new WorkloadIndex(registry),
      descriptors: registry,
    };
    const owner = ctrl('Gadget', 'g1', 'example.dev/v1');
    const owned = eventKeys({ type: 'ADDED', resource: 'pods', object: obj({ name: 'p', owner }) }, c);
    expect([...(owned.delayMs ?? [])]).toEqual([[k('Gadget', 'g1'), 500]]);
    const both = eventKeys(
      { type: 'ADDED', resource: 'pods', object: obj({ name: 'p', owner, labels: { gadget: 'g1' } }) },
      c,
    );
    expect(both.keys.map(keyString)).toEqual([k('Gadget', 'g1')]);
    expect(both.delayMs).toBeUndefined();
  });
});
