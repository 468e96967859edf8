// The forwarder's memory bounds against one tenant's huge objects: objects are trimmed before they are held,
// a watch buffer is bounded in bytes, an object over the per-object cap is held as metadata only (its keys
// still go out), a list is handed over page by page with pages bounded in bytes, and lists take relist slots.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ResourceWatcher, type WatchStarter, type WatchedEvent } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject, Lister } from '../../../shared/forwarder/resources.js';
import { trimForForwarder } from '../../../shared/forwarder/object-trim.js';
import { RelistSlots, relistSlotsFromEnv } from '../../../shared/forwarder/relist-slots.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { WorkloadIndex } from '../../../shared/forwarder/workload-index.js';
import { waitFor } from '../../../infra/sandbox/process.js';

const MiB = 1024 * 1024;
const big = (n: number): string => 'x'.repeat(n);
const deployment = (name: string, rv: string, annotationBytes = 0): KubeObject => ({
  metadata: {
    name,
    namespace: 'ns',
    resourceVersion: rv,
    annotations: {
      'deployment.kubernetes.io/revision': '3',
      ...(annotationBytes > 0 && { 'kubectl.kubernetes.io/last-applied-configuration': big(annotationBytes) }),
    },
    managedFields: [{ manager: 'kubectl', fieldsV1: { f: big(1000) } }],
  },
});

type Harness = {
  w: ResourceWatcher;
  events: WatchedEvent[];
  restarts: string[];
  logs: Array<Record<string, unknown>>;
  lines: string[];
  order: string[];
};

function harness(o: {
  watch?: WatchStarter;
  lister?: Lister;
  resumeFrom?: string;
  maxPendingBytes?: number;
  maxObjectBytes?: number;
  maxPageBytes?: number;
  onEvents?: (events: readonly WatchedEvent[]) => Promise<void>;
  admit?: (object: KubeObject) => KubeObject;
}): Harness {
  const h: Omit<Harness, 'w'> = { events: [], restarts: [], logs: [], lines: [], order: [] };
  const w = new ResourceWatcher({
    cluster: 'c1',
    resource: 'deployments',
    kubeConfig: new KubeConfig(),
    lister:
      o.lister ??
      (async () => {
        throw new Error('no list expected');
      }),
    logger: new Logger('test', 'debug', (line) => {
      h.lines.push(line);
      h.logs.push(JSON.parse(line) as Record<string, unknown>);
    }),
    ...(o.resumeFrom === undefined ? {} : { resumeFrom: o.resumeFrom }),
    backoff: { initialMs: 1, maxMs: 5 },
    ...(o.watch && { watch: o.watch }),
    ...(o.maxPendingBytes === undefined ? {} : { maxPendingBytes: o.maxPendingBytes }),
    ...(o.maxObjectBytes === undefined ? {} : { maxObjectBytes: o.maxObjectBytes }),
    ...(o.maxPageBytes === undefined ? {} : { maxPageBytes: o.maxPageBytes }),
    ...(o.admit && { admit: o.admit }),
    hooks: {
      onEvents: async (events) => {
        h.events.push(...events);
        await o.onEvents?.(events);
      },
      onList: async (reason, objects, rv, paged) =>
        void h.order.push(`list ${reason} ${objects.length} @${rv} paged=${String(paged)}`),
      onListPage: async (_reason, objects, first) =>
        void h.order.push(`page ${objects.length}${first ? ' first' : ''}`),
      onProgress: () => undefined,
      onRestart: (reason) => void h.restarts.push(reason),
      onError: () => undefined,
    },
  });
  return { w, ...h };
}

/** One watch request delivering `lines` at once and staying open; later requests stay open and empty. */
function oneStream(lines: ReadonlyArray<readonly [string, KubeObject]>): WatchStarter {
  let n = 0;
  return async (_path, _params, onLine, done) => {
    const mine = n++ === 0 ? lines : [];
    let aborted = false;
    queueMicrotask(() => {
      for (const [type, object] of mine) if (!aborted) onLine(type, object);
    });
    return {
      abort: () => {
        if (!aborted) {
          aborted = true;
          done(null);
        }
      },
    };
  };
}

describe('trimForForwarder', () => {
  it('drops managedFields, last-applied-configuration and oversized annotations, keeps what controllers read', () => {
    const object: KubeObject = {
      metadata: {
        name: 'd',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"small":"but known large"}',
          'deployment.kubernetes.io/revision': '7',
          'fleetq.dev/failed-pod-backoff': big(20_000), // read by a controller: kept whole
          'example.com/huge': big(20_000),
          'example.com/note': 'hello',
        },
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { replicas: 1 },
    } as KubeObject;
    const t = trimForForwarder(object, { maxAnnotationBytes: 16_384, maxAnnotationsBytes: 65_536 });
    expect(t.trimmed).toBe(true);
    expect(t.object).toEqual({
      metadata: {
        name: 'd',
        annotations: {
          'deployment.kubernetes.io/revision': '7',
          'fleetq.dev/failed-pod-backoff': big(20_000),
          'example.com/note': 'hello',
        },
        // What was dropped goes with the object, so that a write of it puts it back (writer.ts).
        fleetqDroppedAnnotations: ['example.com/huge', 'kubectl.kubernetes.io/last-applied-configuration'],
      },
      spec: { replicas: 1 },
    });
    expect(object.metadata?.managedFields).toHaveLength(1); // the input is not changed
  });

  it('caps the total: the largest droppable annotations go first; an object with nothing to trim is itself', () => {
    const annotations = { 'a.io/one': big(900), 'a.io/two': big(600), 'a.io/three': big(100) };
    const t = trimForForwarder(
      { metadata: { name: 'x', annotations } },
      {
        maxAnnotationBytes: 1_000,
        maxAnnotationsBytes: 1_000,
      },
    );
    expect(Object.keys(t.object.metadata?.annotations ?? {})).toEqual(['a.io/two', 'a.io/three']);
    const plain: KubeObject = { metadata: { name: 'y', annotations: { 'a.io/x': 'v' } } };
    expect(trimForForwarder(plain)).toEqual({ object: plain, trimmed: false, droppedBytes: 0 });
  });
});

describe('ResourceWatcher memory bounds', () => {
  it('ends a stream when its unhandled events pass maxPendingBytes (well under the event count bound)', async () => {
    // The stream delivers all five at once, before the first batch is handled: they would all wait together.
    const lines = ['a', 'b', 'c', 'd', 'e'].map((n, i) => ['ADDED', deployment(n, String(101 + i), MiB)] as const);
    const h = harness({ watch: oneStream(lines), resumeFrom: '100', maxPendingBytes: 2.5 * MiB });
    h.w.start();
    await waitFor(async () => h.restarts.includes('overflow'), 5_000, 5, 'an overflow restart');
    await h.w.stop();
    expect(h.w.stats.peakPendingBytes).toBeLessThanOrEqual(2.5 * MiB);
    expect(h.w.stats.peakPending).toBeLessThan(5);
  });

  it('holds an object over maxObjectBytes as metadata only, flags it, and logs its name and size, not content', async () => {
    const secret = `s3cr3t-${big(3 * MiB)}`;
    const huge = { ...deployment('huge', '101'), spec: { template: { env: secret } } } as KubeObject;
    const h = harness({
      watch: oneStream([['MODIFIED', huge]]),
      resumeFrom: '100',
      maxObjectBytes: 2 * MiB,
    });
    h.w.start();
    await waitFor(async () => h.events.length === 1, 5_000, 5, 'the event');
    await h.w.stop();
    const [event] = h.events;
    expect(event?.oversized).toBe(true);
    expect(event?.object).toEqual({ metadata: { name: 'huge', namespace: 'ns', resourceVersion: '101' } });
    const warning = h.logs.find((l) => l.message === 'Watched object over the size cap: only its metadata is kept');
    expect(warning).toMatchObject({ cluster: 'c1', resource: 'deployments', namespace: 'ns', name: 'huge' });
    expect(warning?.bytesAtLeast).toBeGreaterThan(2 * MiB);
    expect(h.lines.join('\n')).not.toContain('s3cr3t');
  });

  it('trims (admit) before an event is buffered', async () => {
    const h = harness({
      watch: oneStream([['ADDED', deployment('d', '101', MiB)]]),
      resumeFrom: '100',
      admit: (o) => trimForForwarder(o).object,
    });
    h.w.start();
    await waitFor(async () => h.events.length === 1, 5_000, 5, 'the event');
    await h.w.stop();
    expect(h.events[0]?.object.metadata).toEqual({
      name: 'd',
      namespace: 'ns',
      resourceVersion: '101',
      annotations: { 'deployment.kubernetes.io/revision': '3' },
      fleetqDroppedAnnotations: ['kubectl.kubernetes.io/last-applied-configuration'],
    });
    expect(h.w.stats.peakPendingBytes).toBeLessThan(1_000);
  });

  it('hands a list over page by page, each page asked with a limit that fits maxPageBytes', async () => {
    const all = Array.from({ length: 40 }, (_, i) => deployment(`d${i}`, '50', MiB / 2));
    const limits: number[] = [];
    const lister: Lister = async (_resource, page) => {
      const from = Number(page.continueToken ?? 0);
      limits.push(page.limit);
      h.order.push(`ask ${page.limit}`);
      const to = Math.min(all.length, from + page.limit);
      return {
        items: all.slice(from, to),
        resourceVersion: '100',
        ...(to < all.length && { continueToken: String(to) }),
      };
    };
    const h = harness({ lister, watch: oneStream([]), maxPageBytes: 2 * MiB });
    h.w.start();
    await h.w.synced;
    await h.w.stop();
    // The first page asks for few (objects of unknown size), then as many as fit in 2 MiB (3 of ~0.5 MiB).
    expect(limits[0]).toBeLessThanOrEqual(10);
    expect(limits.slice(1).every((l) => l === 3)).toBe(true);
    // Each page is handed over before the next is asked for; onList gets no objects (the pages had them).
    expect(h.order.slice(0, 4)).toEqual([`ask ${limits[0]}`, `page ${limits[0]} first`, 'ask 3', 'page 3']);
    expect(h.order.at(-1)).toBe('list initial 0 @100 paged=true');
  });
});

describe('RelistSlots', () => {
  it('runs at most max lists at once; the next waits its turn; a stop while waiting gives up the place', async () => {
    const slots = new RelistSlots(2);
    const a = await slots.acquire();
    await slots.acquire();
    const stop = new AbortController();
    const gaveUp = slots.acquire(stop.signal);
    const third = slots.acquire();
    expect(slots.waiting).toBe(2);
    stop.abort();
    await expect(gaveUp).rejects.toThrow('stopped');
    expect(slots.waiting).toBe(1);
    a();
    a(); // a second release of one slot changes nothing
    await third;
    expect({ active: slots.active, waiting: slots.waiting }).toEqual({ active: 2, waiting: 0 });
  });

  it('FLEETQ_MAX_CONCURRENT_RELISTS: default 2, a bad value refused by name', () => {
    expect(relistSlotsFromEnv({})).toBe(2);
    expect(relistSlotsFromEnv({ FLEETQ_MAX_CONCURRENT_RELISTS: '5' })).toBe(5);
    expect(() => relistSlotsFromEnv({ FLEETQ_MAX_CONCURRENT_RELISTS: '0' })).toThrow(/FLEETQ_MAX_CONCURRENT_RELISTS/);
  });
});

describe('a list applied page by page in one process', () => {
  it('keeps what the index held until the final sweep drops what the list did not see', () => {
    const index = new WorkloadIndex();
    const d = (name: string): KubeObject =>
      ({
        metadata: { name, namespace: 'ns' },
        spec: { selector: { matchLabels: { app: name } } },
      }) as KubeObject;
    index.apply('deployments', 'ADDED', d('a'));
    index.apply('deployments', 'ADDED', d('gone'));
    index.apply('deployments', 'ADDED', d('b')); // a page of the list
    expect(index.get('Deployment', 'ns', 'gone')).toBeDefined(); // still there while the list runs
    index.sweep('deployments', new Set(['ns/a', 'ns/b']));
    expect(['a', 'gone', 'b'].map((n) => index.get('Deployment', 'ns', n)?.name)).toEqual(['a', undefined, 'b']);
  });
});
