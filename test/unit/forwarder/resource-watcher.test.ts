// ResourceWatcher's stream handling, fed by a scripted watch (a test double of one watch request: the lines it
// delivers, then the end of the stream), with the real hooks contract: the checkpoint never passes an event
// whose hook failed (bookmarks included), bad lines never throw, and the buffer of unhandled events is bounded.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import type { EventType } from '../../../shared/forwarder/event-keys.js';
import { ResourceWatcher, type WatchStarter } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject, Lister } from '../../../shared/forwarder/resources.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { waitFor } from '../../../infra/sandbox/process.js';

type Line = readonly [unknown, unknown];
const cm = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const added = (name: string, rv: string): Line => ['ADDED', cm(name, rv)];
const bookmark = (rv: string): Line => ['BOOKMARK', { kind: 'ConfigMap', metadata: { resourceVersion: rv } }];

/** Each watch request gets the next script: its lines, delivered at once, then the stream ends (unless `open`). */
function scriptedWatch(scripts: Array<{ lines: readonly Line[]; open?: boolean }>) {
  const requests: Array<Record<string, unknown>> = [];
  const starter: WatchStarter = async (_path, params, onLine, done) => {
    requests.push(params);
    const script = scripts.shift() ?? { lines: [], open: true };
    let aborted = false;
    queueMicrotask(() => {
      for (const [type, object] of script.lines) if (!aborted) onLine(type, object);
      if (!script.open && !aborted) done(null);
    });
    return {
      abort: () => {
        if (aborted) return;
        aborted = true;
        done(null);
      },
    };
  };
  return { starter, requests };
}

const noList: Lister = async () => {
  throw new Error('no list expected');
};

type OnEvent = (type: EventType, object: KubeObject) => Promise<void>;

function watcher(starter: WatchStarter, onEvent: OnEvent, opts: { maxPending?: number } = {}) {
  const progress: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const w = new ResourceWatcher({
    cluster: 'c1',
    resource: 'configmaps',
    kubeConfig: new KubeConfig(),
    lister: noList,
    logger: new Logger('test', 'debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    resumeFrom: '100',
    backoff: { initialMs: 1, maxMs: 5 },
    watch: starter,
    ...(opts.maxPending === undefined ? {} : { maxPending: opts.maxPending }),
    hooks: {
      // Each event of a batch in turn: a failure fails the rest of the batch, as the forwarder's does.
      onEvents: async (events) => {
        for (const e of events) await onEvent(e.type, e.object);
      },
      onList: async () => undefined,
      onProgress: (rv) => progress.push(rv),
      onRestart: () => undefined,
      onError: () => undefined,
    },
  });
  return { w, progress, logs };
}

/** A watcher for the refill cases: `lister` and `watch` as given, each list's end recorded as "reason count @rv". */
function listingWatcher(o: {
  lister: Lister;
  watch: WatchStarter;
  resumeFrom?: string;
  onList?: (reason: string) => void;
  onError?: (operation: string) => void;
}) {
  const listed: string[] = [];
  const w = new ResourceWatcher({
    cluster: 'c1',
    resource: 'configmaps',
    kubeConfig: new KubeConfig(),
    lister: o.lister,
    logger: new Logger('test', 'error', () => undefined),
    ...(o.resumeFrom === undefined ? {} : { resumeFrom: o.resumeFrom }),
    backoff: { initialMs: 1, maxMs: 5 },
    watch: o.watch,
    hooks: {
      onEvents: async () => undefined,
      onList: async (reason, objects, rv) => {
        listed.push(`${reason} ${objects.length} @${rv}`);
        o.onList?.(reason);
      },
      onProgress: () => undefined,
      onRestart: () => undefined,
      onError: (operation) => o.onError?.(operation),
    },
  });
  return { w, listed };
}

describe('ResourceWatcher', () => {
  it('a failed batch holds the checkpoint before it, bookmarks included; the retry hands it over again', async () => {
    const { starter, requests } = scriptedWatch([
      { lines: [added('a', '101'), added('b', '102'), bookmark('105')] },
      { lines: [added('b', '102'), bookmark('106')], open: true },
    ]);
    const handled: string[] = [];
    let failures = 0;
    const onEvent = async (_type: EventType, o: KubeObject): Promise<void> => {
      if (o.metadata?.name === 'b' && failures++ === 0) throw new Error('queue.add failed (Redis down)');
      handled.push(o.metadata?.name ?? '');
    };
    const { w, progress } = watcher(starter, onEvent);
    w.start();
    await waitFor(async () => progress.includes('106'), 5_000, 5, 'the bookmark after the retry');
    await w.stop();
    // a, b and the bookmark arrived together: one batch, failed at b, so the checkpoint stayed at 100 (not a's
    // 101: the batch is the unit) and the second watch started from there (its script then sends b and a
    // bookmark, one batch: the checkpoint moves straight to its last resourceVersion).
    expect(progress).toEqual(['106']);
    expect(handled).toEqual(['a', 'b']);
    expect(requests.map((r) => r.resourceVersion)).toEqual(['100', '100']);
  });

  it('skips what is not an event with an object and metadata, without throwing, and goes on', async () => {
    const { starter } = scriptedWatch([
      {
        lines: [
          ['ADDED', null],
          ['ADDED', 'a string'],
          ['MODIFIED', { kind: 'ConfigMap' }],
          ['DELETED', { metadata: 'x' }],
          ['ADDED', { metadata: { name: 'rv-number', resourceVersion: 7 } }],
          [42, cm('x', '1')],
          ['SOMETHING', cm('x', '1')],
          ['BOOKMARK', null],
          added('good', '101'),
        ],
        open: true,
      },
    ]);
    const handled: string[] = [];
    const { w, progress, logs } = watcher(starter, async (_t, o) => void handled.push(o.metadata?.name ?? ''));
    w.start();
    await waitFor(async () => progress.includes('101'), 5_000, 5, 'the good event');
    await w.stop();
    expect(handled).toEqual(['good']);
    expect(w.stats.skipped).toBe(8);
    expect(logs.filter((l) => l.message === 'Watch line skipped')).toHaveLength(8);
  });

  it.each([
    { name: 'a non-object', status: 'garbage' },
    { name: 'null', status: null },
    { name: 'a Status without code', status: { kind: 'Status', message: 'boom' } },
  ])('an ERROR event carrying $name ends the stream as a failure, backs off and watches again', async ({ status }) => {
    const { starter, requests } = scriptedWatch([
      { lines: [added('a', '101'), ['ERROR', status]] },
      { lines: [added('b', '102')], open: true },
    ]);
    const handled: string[] = [];
    const { w, progress, logs } = watcher(starter, async (_t, o) => void handled.push(o.metadata?.name ?? ''));
    w.start();
    await waitFor(async () => progress.includes('102'), 5_000, 5, 'the event after the ERROR');
    await w.stop();
    expect(handled).toEqual(['a', 'b']);
    expect(requests.map((r) => r.resourceVersion)).toEqual(['100', '101']);
    expect(logs.some((l) => l.message === 'Watch failed')).toBe(true);
  });

  it('a "too large resource version" ERROR relists at once (reason expired)', async () => {
    const lists: string[] = [];
    const { starter } = scriptedWatch([
      {
        lines: [
          [
            'ERROR',
            {
              kind: 'Status',
              code: 504,
              reason: 'Timeout',
              message: 'Too large resource version: 999999999, current: 233',
              details: { causes: [{ reason: 'ResourceVersionTooLarge' }] },
            },
          ],
        ],
      },
    ]);
    const w = new ResourceWatcher({
      cluster: 'c1',
      resource: 'configmaps',
      kubeConfig: new KubeConfig(),
      lister: async () => ({ items: [cm('a', '200')], resourceVersion: '233' }),
      logger: new Logger('test', 'error', () => undefined),
      resumeFrom: '999999999',
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      watch: starter,
      hooks: {
        onEvents: async () => undefined,
        onList: async (reason) => void lists.push(reason),
        onProgress: () => undefined,
        onRestart: () => undefined,
        onError: () => undefined,
      },
    });
    w.start();
    await waitFor(async () => lists.length > 0, 5_000, 5, 'a relist');
    expect(lists).toEqual(['expired']);
    expect(w.resourceVersion).toBe('233');
    await w.stop();
  });

  it('holds at most maxPending unhandled events; a full buffer resumes from the last handled one', async () => {
    const burst = Array.from({ length: 300 }, (_, i) => added(`cm-${i}`, String(101 + i)));
    // Like the apiserver: each watch sends every event after the resourceVersion it starts from.
    const requests: string[] = [];
    const starter: WatchStarter = async (_path, params, onLine, done) => {
      const from = Number(params.resourceVersion);
      requests.push(String(from));
      let aborted = false;
      queueMicrotask(() => {
        for (const line of burst)
          if (!aborted && Number((line[1] as KubeObject).metadata?.resourceVersion) > from) onLine(...line);
      });
      return { abort: () => void (aborted || ((aborted = true), done(null))) };
    };
    const handled: string[] = [];
    const slowAdd = async (_t: EventType, o: KubeObject): Promise<void> => {
      await new Promise((r) => setTimeout(r, 1));
      handled.push(o.metadata?.name ?? '');
    };
    const { w } = watcher(starter, slowAdd, { maxPending: 20 });
    w.start();
    await waitFor(async () => handled.length >= 300, 20_000, 10, 'every event handled');
    await w.stop();
    expect(w.stats.peakPending).toBeLessThanOrEqual(20);
    expect(w.stats.peakPending).toBe(20);
    expect(handled).toEqual(burst.map((l) => (l[1] as KubeObject).metadata?.name));
    expect(requests.length).toBeGreaterThanOrEqual(300 / 20);
  });

  it('refill() ends the stream without an error, lists once (warm) and watches on from the same resourceVersion', async () => {
    const { starter, requests } = scriptedWatch([
      { lines: [added('a', '101')], open: true },
      { lines: [], open: true },
    ]);
    const errors: string[] = [];
    const { w, listed: lists } = listingWatcher({
      lister: async () => ({ items: [cm('a', '101')], resourceVersion: '150' }),
      watch: starter,
      resumeFrom: '100',
      // The refill's caller is told only once the list is applied: it enqueues keys that read it.
      onList: (reason) => {
        if (reason === 'warm') refillResolvedBeforeApplied = refillResolved;
      },
      onError: (operation) => void errors.push(operation),
    });
    let refillResolved = false;
    let refillResolvedBeforeApplied: boolean | undefined;
    w.start();
    await waitFor(async () => w.resourceVersion === '101', 5_000, 5, 'the first event');
    await w.refill().then(() => (refillResolved = true));
    expect(refillResolvedBeforeApplied).toBe(false);
    await waitFor(async () => requests.length === 2, 5_000, 5, 'the second watch');
    await w.stop();
    expect(lists).toEqual(['warm 1 @150']);
    expect(errors).toEqual([]);
    expect(requests.map((r) => r.resourceVersion)).toEqual(['100', '101']);
  });

  it('refill() while a list is in flight lists once more (warm) after it and resolves only then, before watching', async () => {
    // A data loss met during the first list: the pages written so far went to the Redis that was lost. The list in
    // flight cannot count as the refill, and the watch that follows it may not end for minutes.
    const { starter, requests } = scriptedWatch([{ lines: [], open: true }]);
    let releaseFirst: (() => void) | undefined;
    const firstListHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const order: string[] = [];
    let calls = 0;
    const { w, listed } = listingWatcher({
      lister: async () => {
        calls++;
        if (calls === 1) await firstListHeld;
        return { items: [cm('a', '101')], resourceVersion: String(150 + calls) };
      },
      watch: starter,
    });
    w.start();
    await waitFor(async () => calls === 1, 5_000, 5, 'the first list under way');
    let refilled = false;
    void w.refill().then(() => {
      refilled = true;
      order.push(`refilled after ${listed.length} lists`);
    });
    releaseFirst?.();
    await waitFor(async () => refilled, 2_000, 5, 'the refill resolved');
    await waitFor(async () => requests.length === 1, 5_000, 5, 'the watch');
    await w.stop();
    expect(listed).toEqual(['initial 1 @151', 'warm 1 @152']);
    expect(order).toEqual(['refilled after 2 lists']);
    // A warm list enqueues nothing: the watch goes on from the first list's resourceVersion, missing no event.
    expect(requests.map((r) => r.resourceVersion)).toEqual(['151']);
  });

  it('refill() while the watch is connecting ends that watch once it is up and lists (warm)', async () => {
    const requests: Array<Record<string, unknown>> = [];
    let releaseConnect: (() => void) | undefined;
    const connected = new Promise<void>((resolve) => (releaseConnect = resolve));
    const starter: WatchStarter = async (_path, params, _onLine, done) => {
      requests.push(params);
      if (requests.length === 1) await connected; // the first watch's connect is slow; the stream stays open
      return { abort: () => done(null) };
    };
    const { w, listed } = listingWatcher({
      lister: async () => ({ items: [cm('a', '101')], resourceVersion: '150' }),
      watch: starter,
      resumeFrom: '100',
    });
    w.start();
    await waitFor(async () => requests.length === 1, 5_000, 5, 'the first watch connecting');
    let refilled = false;
    void w.refill().then(() => (refilled = true));
    releaseConnect?.();
    await waitFor(async () => refilled, 2_000, 5, 'the refill resolved');
    await waitFor(async () => requests.length === 2, 5_000, 5, 'the watch after the refill');
    await w.stop();
    expect(listed).toEqual(['warm 1 @150']);
    expect(requests.map((r) => r.resourceVersion)).toEqual(['100', '100']);
  });
});
