// One object model: an object in a list response decodes (decodeListPage) to exactly the value the same object
// has in a watch event (client-node's Watch hands over JSON.parse of the event line), for every kind fleetq lists
// and for custom resources: same JSON types (timestamps stay strings, int-or-string stays as sent), fields no
// model knows kept, kind and apiVersion set and first. The objects are written as the apiserver serializes them.
import { describe, expect, it } from '@jest/globals';
import { decodeListPage, ListBodyError, withKind, type ResourceKind } from '../../../shared/kube/list-page.js';

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:02Z';

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace && { namespace }),
  uid: `uid-${name}`,
  resourceVersion: '4711',
  generation: 3,
  creationTimestamp: T0,
  labels: { app: 'web' },
  annotations: { 'example.com/note': 'kept' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T0,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:x': {} },
    },
  ],
  // Not in any model of client-node 2.0: the typed clients dropped such fields.
  fieldFromAFutureRelease: { nested: [1, 'two', null] },
});

const podSpec = {
  containers: [
    { name: 'app', image: 'registry.example/app:1', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
  ],
  restartPolicy: 'Always',
  schedulerName: 'default-scheduler',
};
const template = { metadata: { labels: { app: 'web' }, creationTimestamp: null }, spec: podSpec };
const condition = (type: string) => ({
  type,
  status: 'True',
  lastTransitionTime: T1,
  lastUpdateTime: T1,
  reason: 'Because',
  message: 'm',
});

type Case = { readonly name: string; readonly resource: ResourceKind; readonly object: Record<string, unknown> };

const CASES: readonly Case[] = [
  {
    name: 'Pod',
    resource: { kind: 'Pod', apiVersion: 'v1' },
    object: {
      metadata: { ...meta('web-1', 'team-a'), deletionTimestamp: T1, deletionGracePeriodSeconds: 30 },
      spec: { ...podSpec, nodeName: 'node-1' },
      status: {
        phase: 'Running',
        startTime: T0,
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: T1 }],
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: T0 } }, lastState: {} },
        ],
      },
    },
  },
  {
    name: 'ReplicaSet',
    resource: { kind: 'ReplicaSet', apiVersion: 'apps/v1' },
    object: {
      metadata: meta('web-5d4f', 'team-a'),
      spec: { replicas: 3, minReadySeconds: 0, selector: { matchLabels: { app: 'web' } }, template },
      status: { replicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 3, conditions: [] },
    },
  },
  {
    name: 'Deployment',
    resource: { kind: 'Deployment', apiVersion: 'apps/v1' },
    object: {
      metadata: meta('web', 'team-a'),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        progressDeadlineSeconds: 600,
      },
      status: { observedGeneration: 3, conditions: [condition('Available'), condition('Progressing')] },
    },
  },
  {
    name: 'StatefulSet',
    resource: { kind: 'StatefulSet', apiVersion: 'apps/v1' },
    object: {
      metadata: meta('db', 'team-a'),
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '50%' } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', creationTimestamp: null },
            spec: { resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
      status: { replicas: 2, currentRevision: 'db-1', updateRevision: 'db-2', collisionCount: 0 },
    },
  },
  {
    name: 'DaemonSet',
    resource: { kind: 'DaemonSet', apiVersion: 'apps/v1' },
    object: {
      metadata: meta('agent', 'kube-system'),
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      },
      status: { desiredNumberScheduled: 2, numberReady: 2, conditions: [condition('Ready')] },
    },
  },
  {
    name: 'ControllerRevision',
    resource: { kind: 'ControllerRevision', apiVersion: 'apps/v1' },
    // data is a RawExtension: arbitrary JSON, which the typed model held as an opaque object.
    object: { metadata: meta('db-2', 'team-a'), revision: 2, data: { spec: { template: { $patch: 'replace' } } } },
  },
  {
    name: 'Job',
    resource: { kind: 'Job', apiVersion: 'batch/v1' },
    object: {
      metadata: meta('batch-1', 'team-a'),
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        template: { ...template, spec: { ...podSpec, restartPolicy: 'Never' } },
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
      },
      status: {
        startTime: T0,
        completionTime: T1,
        succeeded: 1,
        conditions: [{ ...condition('Complete'), lastProbeTime: T1 }],
        uncountedTerminatedPods: {},
      },
    },
  },
  {
    name: 'CronJob',
    resource: { kind: 'CronJob', apiVersion: 'batch/v1' },
    object: {
      metadata: meta('nightly', 'team-a'),
      spec: {
        schedule: '0 3 * * *',
        timeZone: 'Europe/Berlin',
        jobTemplate: { metadata: { creationTimestamp: null }, spec: { template } },
      },
      status: {
        lastScheduleTime: T0,
        lastSuccessfulTime: T1,
        active: [{ kind: 'Job', namespace: 'team-a', name: 'nightly-1' }],
      },
    },
  },
  {
    name: 'Node',
    resource: { kind: 'Node', apiVersion: 'v1' },
    object: {
      metadata: meta('node-1'),
      spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: T0 }] },
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: T1, lastTransitionTime: T0 }],
      },
    },
  },
  {
    name: 'PersistentVolumeClaim',
    resource: { kind: 'PersistentVolumeClaim', apiVersion: 'v1' },
    object: {
      metadata: meta('data-db-0', 'team-a'),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      status: { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: T1 }] },
    },
  },
  {
    name: 'ConfigMap',
    resource: { kind: 'ConfigMap', apiVersion: 'v1' },
    object: { metadata: meta('settings', 'team-a'), data: { 'a.conf': 'x=1' }, binaryData: { b: 'AAE=' } },
  },
  {
    name: 'Event',
    resource: { kind: 'Event', apiVersion: 'v1' },
    object: {
      metadata: meta('web.1819', 'team-a'),
      involvedObject: { kind: 'Deployment', namespace: 'team-a', name: 'web', uid: 'uid-web' },
      reason: 'ScalingReplicaSet',
      firstTimestamp: T0,
      lastTimestamp: T1,
      eventTime: null,
      count: 2,
      type: 'Normal',
    },
  },
  {
    name: 'Namespace',
    resource: { kind: 'Namespace', apiVersion: 'v1' },
    object: { metadata: meta('team-a'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  },
  {
    name: 'JobSet (a custom resource: its list items carry kind and apiVersion themselves)',
    resource: { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2' },
    object: {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: meta('trainer', 'team-a'),
      spec: { replicatedJobs: [{ name: 'workers', replicas: 2, template: { spec: { template } } }] },
      status: { conditions: [condition('Completed')], restarts: 0 },
    },
  },
];

/**
 * The object as the apiserver writes it in a watch event: a built-in kind's with kind and apiVersion first; a
 * custom resource's as stored (its keys sorted: apiVersion, kind, metadata, …), as its list items are too.
 */
function asWatched(c: Case): Record<string, unknown> {
  if ('kind' in c.object) return c.object;
  return { kind: c.resource.kind, apiVersion: c.resource.apiVersion, ...c.object };
}

/** The object as the apiserver writes it in a list: a built-in kind's items have no kind and apiVersion. */
function asListItem(c: Case): Record<string, unknown> {
  return c.object;
}

function listBody(c: Case, items: readonly unknown[], metadata: Record<string, unknown>): string {
  return JSON.stringify({ kind: `${c.resource.kind}List`, apiVersion: c.resource.apiVersion, metadata, items });
}

describe('a listed object is the watched object', () => {
  it.each(CASES)('$name', (c) => {
    const watched = (JSON.parse(JSON.stringify({ type: 'MODIFIED', object: asWatched(c) })) as { object: unknown })
      .object;
    const page = decodeListPage(
      JSON.parse(listBody(c, [asListItem(c)], { resourceVersion: '4712', continue: 'next-page' })),
      c.resource,
    );

    expect(page).toStrictEqual({ items: [watched], resourceVersion: '4712', continueToken: 'next-page' });
    // The same JSON, key order included (the cache and the event log keep objects as JSON).
    expect(JSON.stringify(page.items[0])).toBe(JSON.stringify(watched));
    const listed = page.items[0] as { metadata: Record<string, unknown> };
    expect(typeof listed.metadata.creationTimestamp).toBe('string');
    expect(listed.metadata.fieldFromAFutureRelease).toEqual({ nested: [1, 'two', null] });
  });
});

describe('decodeListPage takes an untrusted body', () => {
  const pod: ResourceKind = { kind: 'Pod', apiVersion: 'v1' };

  it.each([
    { name: 'null', body: null, says: 'got null' },
    { name: 'a string', body: 'not a list', says: 'got a string' },
    { name: 'an array', body: [{ metadata: {} }], says: 'got an array' },
    {
      name: 'items that are not an array',
      body: { items: { metadata: {} }, metadata: { resourceVersion: '9' } },
      says: 'got an object with no kind and items object',
    },
    {
      name: 'a Status',
      body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'pods is forbidden' },
      says: 'got an object with kind "Status" and no items, message "pods is forbidden"',
    },
  ])('$name: an error saying what came back, for which resource', ({ body, says }) => {
    expect(() => decodeListPage(body, pod)).toThrow(ListBodyError);
    expect(() => decodeListPage(body, pod)).toThrow(`list of v1 Pod: the response is not a list (${says})`);
  });

  it('items: null is an empty page', () => {
    expect(decodeListPage({ kind: 'PodList', items: null, metadata: { resourceVersion: '9' } }, pod)).toStrictEqual({
      items: [],
      resourceVersion: '9',
    });
  });

  it('a resourceVersion or token that is not a string is none; an empty token is the last page', () => {
    expect(decodeListPage({ items: [], metadata: { resourceVersion: 12, continue: '' } }, pod)).toStrictEqual({
      items: [],
      resourceVersion: '',
    });
    expect(decodeListPage({ items: [], metadata: { continue: 7 } }, pod)).toStrictEqual({
      items: [],
      resourceVersion: '',
    });
  });

  it('items that are not objects are passed on as they are, for the caller to skip', () => {
    expect(decodeListPage({ items: [null, 'x', 3, [1]] }, pod).items).toEqual([null, 'x', 3, [1]]);
  });
});

describe('withKind', () => {
  it("sets the resource's kind and apiVersion first on an object without them", () => {
    const object = withKind({ metadata: { name: 'a' } }, { kind: 'Pod', apiVersion: 'v1' });
    expect(JSON.stringify(object)).toBe('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}');
  });

  it("keeps an object's own kind and apiVersion where they are; the resource's values win", () => {
    const object = withKind(
      { apiVersion: 'x/v9', kind: 'Other', metadata: { name: 'a' } },
      { kind: 'Widget', apiVersion: 'test.fleetq.dev/v1' },
    );
    expect(JSON.stringify(object)).toBe('{"apiVersion":"test.fleetq.dev/v1","kind":"Widget","metadata":{"name":"a"}}');
  });

  it('returns what is not an object unchanged', () => {
    expect(withKind(null, { kind: 'Pod', apiVersion: 'v1' })).toBeNull();
    expect(withKind([1], { kind: 'Pod', apiVersion: 'v1' })).toEqual([1]);
  });
});
