// The forwarder's list and watch path takes any API resource it is given a description of: a custom resource
// installed for the test on sandbox fleetq-1 (a CustomResourceDefinition of its own group, removed afterwards)
// is listed page by page and watched through the same code as the built-in kinds (makeLister, listPages,
// ResourceWatcher), and an object listed is the very value the watch handed over for the same resourceVersion,
// for the custom resource and for built-in kinds alike (raw JSON: timestamps as strings, fields kept).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../../infra/sandbox/process.js';
import {
  listPages,
  makeLister,
  resourceTable,
  type KubeObject,
  type ListedPage,
  type Lister,
  type Resource,
  type ResourceTable,
} from '../../shared/forwarder/resources.js';
import { ResourceWatcher, type WatchedEvent } from '../../shared/forwarder/resource-watcher.js';
import { isExpiredError } from '../../shared/forwarder/watch-errors.js';
import { isNotFound } from '../../shared/kube/errors.js';
import type { ResourceInfo } from '../../shared/kube/resources.js';
import { KubeRest, NO_RATE_LIMIT } from '../../shared/kube/rest.js';
import { Logger } from '../../shared/runtime/logger.js';
import '../helpers/long-timeout.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
/** A group of this run's own: another run's widgets (or a CRD left behind) cannot be listed here. */
const GROUP = `t${randomUUID().slice(0, 8)}.test.fleetq.dev`;
const WIDGET: ResourceInfo = {
  kind: 'Widget',
  apiVersion: `${GROUP}/v1`,
  group: GROUP,
  version: 'v1',
  plural: 'widgets',
  namespaced: true,
};
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`;
const NAMES = Array.from({ length: 7 }, (_, i) => `w${i}`);
const quiet = new Logger('test', 'error', () => undefined);

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

type Collected = { listed: KubeObject[]; events: WatchedEvent[] };

/** A watcher of `resource` as the forwarder runs one, collecting what it hands over. */
function watcher(
  c: TestCluster,
  resource: Resource,
  lister: Lister,
  o: { table?: ResourceTable; resumeFrom?: string; pageSize?: number },
): { w: ResourceWatcher; got: Collected } {
  const got: Collected = { listed: [], events: [] };
  const w = new ResourceWatcher({
    cluster: CLUSTER,
    resource,
    kubeConfig: c.kc,
    lister,
    ...(o.table && { resourceTable: o.table }),
    ...(o.resumeFrom !== undefined && { resumeFrom: o.resumeFrom }),
    ...(o.pageSize !== undefined && { pageSize: o.pageSize }),
    logger: quiet,
    watchTimeoutSeconds: 60,
    backoff: { initialMs: 100, maxMs: 1_000 },
    hooks: {
      onEvents: async (events) => void got.events.push(...events),
      onListPage: async (_reason, objects, first) => {
        if (first) got.listed = [];
        got.listed.push(...objects);
      },
      onList: async () => undefined,
      onProgress: () => undefined,
      onRestart: () => undefined,
      onError: () => undefined,
    },
  });
  return { w, got };
}

const nameOf = (o: KubeObject): string | undefined => o.metadata?.name;
const inNamespace = (ns: string) => (o: KubeObject) => o.metadata?.namespace === ns;

/**
 * The listed object is the value the watch handed over for the same object at the same resourceVersion (the
 * watch sees every write, so that event is there by the time the list saw the write; waited for all the same).
 */
async function expectSameAsWatched(listed: KubeObject | undefined, got: Collected): Promise<void> {
  expect(listed).toBeDefined();
  const same = (): KubeObject | undefined =>
    got.events.find(
      (e) =>
        e.type !== 'DELETED' &&
        e.object.metadata?.uid === listed?.metadata?.uid &&
        e.object.metadata?.resourceVersion === listed?.metadata?.resourceVersion,
    )?.object;
  await waitFor(async () => same() !== undefined, 30_000, 50, 'the watched event of the listed version');
  const watched = same();
  expect(listed).toStrictEqual(watched);
  // The same JSON, key order included (the cache and the event log keep objects as JSON).
  expect(JSON.stringify(listed)).toBe(JSON.stringify(watched));
}

describe('forwarder list and watch of a custom resource', () => {
  let c: TestCluster;
  let admin: KubeRest;
  let ns: { name: string; remove: () => Promise<void> };
  const table = resourceTable([WIDGET]);
  const widgets = (name?: string): string => `/apis/${GROUP}/v1/namespaces/${ns.name}/widgets${name ? `/${name}` : ''}`;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    admin = new KubeRest(CLUSTER, c.kc, NO_RATE_LIMIT);
    ns = await testNamespace(c.kc);
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await waitFor(
      async () => {
        const got = await admin.request<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
          'GET',
          CRD_PATH,
        );
        return got.status?.conditions?.some((k) => k.type === 'Established' && k.status === 'True') === true;
      },
      30_000,
      100,
      `CRD widgets.${GROUP} established`,
    );
    // Established, then served: the first create can still meet a 404 while the handler is being installed.
    await waitFor(async () => (await admin.request('GET', widgets()), true), 30_000, 100, 'widgets served');
    for (const [i, name] of NAMES.entries()) {
      await admin.request('POST', widgets(), {
        body: {
          apiVersion: `${GROUP}/v1`,
          kind: 'Widget',
          metadata: { name, labels: { widget: 'yes' } },
          spec: { size: i, ratio: '25%', startedAt: '2025-01-01T00:00:00Z', nested: { anything: [1, 'two', null] } },
        },
      });
    }
  });

  afterAll(async () => {
    await ns?.remove();
    if (!admin) return;
    await admin.request('DELETE', CRD_PATH).catch(() => undefined);
    // Gone (its objects with it) before the next suite: a CRD is cluster-wide.
    await waitFor(
      () =>
        admin.request('GET', CRD_PATH).then(
          () => false,
          (err: unknown) => isNotFound(err),
        ),
      60_000,
      200,
      `CRD widgets.${GROUP} deleted`,
    );
  });

  it('lists the widgets page by page through the forwarder lister, as raw JSON with kind and apiVersion', async () => {
    const pages: ListedPage[] = [];
    for await (const page of listPages(makeLister(c.kc, table), 'widgets', { pageSize: 3 }, isExpiredError)) {
      pages.push(page);
    }
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => [p.first, p.last])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
    // One snapshot: every page carries the first page's resourceVersion.
    expect(new Set(pages.map((p) => p.resourceVersion)).size).toBe(1);
    const items = pages.flatMap((p) => p.items);
    expect(items.map(nameOf).sort()).toEqual(NAMES);
    for (const item of items) {
      expect(item).toMatchObject({
        kind: 'Widget',
        apiVersion: `${GROUP}/v1`,
        metadata: { namespace: ns.name, creationTimestamp: expect.any(String) },
        spec: { ratio: '25%', startedAt: '2025-01-01T00:00:00Z', nested: { anything: [1, 'two', null] } },
      });
    }
  });

  it('watches them through the forwarder watcher: initial list in pages, then events; listed equals watched', async () => {
    const lister = makeLister(c.kc, table);
    const { w, got } = watcher(c, 'widgets', lister, { table, pageSize: 3 });
    w.start();
    try {
      await w.synced;
      expect(got.listed.filter(inNamespace(ns.name)).map(nameOf).sort()).toEqual(NAMES);

      await admin.request('PATCH', widgets('w0'), {
        body: { spec: { size: 100, addedLater: { at: '2025-02-02T00:00:00Z' } } },
        contentType: 'application/merge-patch+json',
      });
      await admin.request('POST', widgets(), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w7' }, spec: { size: 7 } },
      });
      await admin.request('DELETE', widgets('w1'));
      const seen = (type: string, name: string) =>
        got.events.find((e) => e.type === type && nameOf(e.object) === name && inNamespace(ns.name)(e.object));
      await waitFor(
        async () => !!(seen('MODIFIED', 'w0') && seen('ADDED', 'w7') && seen('DELETED', 'w1')),
        30_000,
        50,
        'watch events of w0, w7, w1',
      );

      const all: KubeObject[] = [];
      for await (const page of listPages(lister, 'widgets', { pageSize: 3 }, isExpiredError)) all.push(...page.items);
      expect(all.filter(inNamespace(ns.name)).map(nameOf).sort()).toEqual(['w0', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7']);
      const listed = all.find((o) => nameOf(o) === 'w0' && inNamespace(ns.name)(o));
      expect(listed?.spec).toMatchObject({ size: 100, addedLater: { at: '2025-02-02T00:00:00Z' } });
      await expectSameAsWatched(listed, got);
    } finally {
      await w.stop();
    }
  });

  it.each([
    {
      resource: 'deployments',
      path: (n: string) => `/apis/apps/v1/namespaces/${n}/deployments`,
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'same' },
        spec: { replicas: 0, selector: { matchLabels: { app: 'same' } }, template: kwokPodTemplate({ app: 'same' }) },
      },
    },
    {
      resource: 'cronjobs',
      path: (n: string) => `/apis/batch/v1/namespaces/${n}/cronjobs`,
      body: {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'same' },
        spec: {
          schedule: '0 3 * * *',
          suspend: true,
          jobTemplate: {
            spec: {
              template: { ...kwokPodTemplate({}), spec: { ...kwokPodTemplate({}).spec, restartPolicy: 'Never' } },
            },
          },
        },
      },
    },
  ])(
    'a listed $resource object equals the watched one (built-in kinds go the same way)',
    async ({ resource, path, body }) => {
      const lister = makeLister(c.kc);
      const start = await lister(resource, { limit: 1 });
      const { w, got } = watcher(c, resource, lister, { resumeFrom: start.resourceVersion });
      w.start();
      try {
        await admin.request('POST', path(ns.name), { body });
        await admin.request('PATCH', `${path(ns.name)}/same`, {
          body: { metadata: { labels: { touched: 'yes' } } },
          contentType: 'application/merge-patch+json',
        });
        const modified = (): KubeObject | undefined =>
          got.events.find((e) => e.type === 'MODIFIED' && inNamespace(ns.name)(e.object) && nameOf(e.object) === 'same')
            ?.object;
        await waitFor(async () => modified() !== undefined, 30_000, 50, `MODIFIED ${resource} same`);
        const all: KubeObject[] = [];
        for await (const page of listPages(lister, resource, { pageSize: 50 }, isExpiredError)) all.push(...page.items);
        const listed = all.find((o) => inNamespace(ns.name)(o) && nameOf(o) === 'same');
        expect(listed?.metadata?.labels).toMatchObject({ touched: 'yes' });
        expect(typeof listed?.metadata?.creationTimestamp).toBe('string');
        await expectSameAsWatched(listed, got);
      } finally {
        await w.stop();
      }
    },
  );
});
