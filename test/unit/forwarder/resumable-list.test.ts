// A scheduled run's list goes on from the continue token the last run saved (ResourceWatcher listProgress): each
// page is handed over (its keys enqueued) before its progress is saved; a run stopped mid-list leaves the token of
// the next page; the next run lists from there and ends at the first page's resourceVersion; an expired (410) or
// refused (400) saved token starts the list over. Fed by a paged lister double and a watch that stays open.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ResourceWatcher, type WatchStarter } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject, Lister } from '../../../shared/forwarder/resources.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { waitFor } from '../../../infra/sandbox/process.js';

const cm = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: '1' } });
const PAGES: Record<string, { items: KubeObject[]; continueToken?: string }> = {
  first: { items: [cm('a'), cm('b')], continueToken: 't2' },
  t2: { items: [cm('c'), cm('d')], continueToken: 't3' },
  t3: { items: [cm('e')] },
};

/** Pages as PAGES says, at resourceVersion 100; `block` never answers for that token; `refuse` throws for it. */
function lister(o: { block?: string; refuse?: { token: string; error: unknown } } = {}) {
  const asked: string[] = [];
  const list: Lister = async (_resource, page) => {
    const token = page.continueToken ?? 'first';
    asked.push(token);
    if (token === o.block) return new Promise(() => undefined);
    if (token === o.refuse?.token) throw o.refuse.error;
    const p = PAGES[token];
    if (!p) throw Object.assign(new Error(`unknown token ${token}`), { code: 400 });
    return { items: p.items, resourceVersion: '100', ...(p.continueToken ? { continueToken: p.continueToken } : {}) };
  };
  return { list, asked };
}

const openWatch: WatchStarter = async (_path, _params, _onLine, done) => ({ abort: () => done(null) });

function watcher(list: Lister, store: { value: string | undefined }) {
  const pages: string[][] = [];
  const lists: string[] = [];
  const progress: string[] = [];
  const w = new ResourceWatcher({
    cluster: 'c1',
    resource: 'configmaps',
    kubeConfig: new KubeConfig(),
    lister: list,
    logger: new Logger('test', 'error'),
    pageSize: 2,
    backoff: { initialMs: 1, maxMs: 5 },
    watch: openWatch,
    listProgress: {
      load: async () => store.value,
      save: async (value) => void (store.value = value),
    },
    hooks: {
      onEvents: async () => undefined,
      onListPage: async (_reason, objects) => void pages.push(objects.map((o) => o.metadata?.name ?? '')),
      onList: async (reason, objects, rv, paged) =>
        void lists.push(`${reason} ${objects.length} @${rv} paged=${paged}`),
      onProgress: (rv) => progress.push(rv),
      onRestart: () => undefined,
      onError: () => undefined,
    },
  });
  return { w, pages, lists, progress };
}

describe('resumable list (scheduled runs)', () => {
  it('a run stopped mid-list saves the next page’s token; the next run lists from it and completes', async () => {
    const store: { value: string | undefined } = { value: undefined };
    const first = lister({ block: 't3' });
    const run1 = watcher(first.list, store);
    run1.w.start();
    await waitFor(async () => first.asked.includes('t3'), 5_000, 10, 'the third page asked');
    await run1.w.stop();
    expect(run1.pages).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(run1.lists).toEqual([]);
    expect(run1.progress).toEqual([]); // no checkpoint until the list is complete
    expect(JSON.parse(store.value ?? '')).toEqual({ continueToken: 't3', resourceVersion: '100' });

    const second = lister();
    const run2 = watcher(second.list, store);
    run2.w.start();
    await run2.w.synced;
    await run2.w.stop();
    expect(second.asked).toEqual(['t3']);
    expect(run2.pages).toEqual([['e']]);
    expect(run2.lists).toEqual(['initial 0 @100 paged=true']);
    expect(run2.progress).toEqual(['100']);
    expect(store.value).toBe('');
  });

  it.each([
    { name: 'expired (410)', error: Object.assign(new Error('Gone'), { statusCode: 410 }) },
    { name: 'refused (400, another cluster’s token)', error: Object.assign(new Error('Bad Request'), { code: 400 }) },
  ])('a saved token that is $name starts the list over', async ({ error }) => {
    const store = { value: JSON.stringify({ continueToken: 'old', resourceVersion: '50' }) as string | undefined };
    const l = lister({ refuse: { token: 'old', error } });
    const run = watcher(l.list, store);
    run.w.start();
    await run.w.synced;
    await run.w.stop();
    expect(l.asked).toEqual(['old', 'first', 't2', 't3']);
    expect(run.pages).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(run.lists).toEqual(['initial 0 @100 paged=true']);
    expect(run.progress).toEqual(['100']);
  });

  it('a transient failure of a saved token is retried with it, not started over', async () => {
    let failures = 1;
    const store = { value: JSON.stringify({ continueToken: 't3', resourceVersion: '100' }) as string | undefined };
    const inner = lister();
    const flaky: Lister = async (resource, page) => {
      if (failures-- > 0) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return inner.list(resource, page);
    };
    const run = watcher(flaky, store);
    run.w.start();
    await run.w.synced;
    await run.w.stop();
    expect(inner.asked).toEqual(['t3']);
    expect(run.lists).toEqual(['initial 0 @100 paged=true']);
  });
});
