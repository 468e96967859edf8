// What lets a Lambda tick go on where the last one stopped: a resync longer than a tick resumes from its saved
// page (runResumableResync), a warm list from the token the memory keeps (ResourceWatcher warmProgress), and a
// memory kept from the last tick spares the warm list (ForwarderMemory). Paged lister doubles, no cluster.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ForwarderMemory } from '../../../shared/forwarder/forwarder-memory.js';
import { ResourceWatcher, type WatchStarter } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject, Lister } from '../../../shared/forwarder/resources.js';
import { runResumableResync } from '../../../shared/forwarder/resync.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { waitFor } from '../../../infra/sandbox/process.js';
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';

const deploy = (name: string): KubeObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: '1', uid: `u-${name}` },
  spec: { selector: { matchLabels: { app: name } } },
});
const PAGES: Record<string, { items: KubeObject[]; continueToken?: string }> = {
  first: { items: [deploy('a'), deploy('b')], continueToken: 't2' },
  t2: { items: [deploy('c'), deploy('d')], continueToken: 't3' },
  t3: { items: [deploy('e')] },
};

/** deployments as PAGES says (resourceVersion 100); `block` never answers that token; `expired` throws 410 for it. */
function lister(o: { block?: string; expired?: string } = {}) {
  const asked: string[] = [];
  const list: Lister = async (resource, page) => {
    const token = page.continueToken ?? 'first';
    asked.push(`${resource}:${token}`);
    if (resource !== 'deployments') return { items: [], resourceVersion: '100' };
    if (token === o.block) return new Promise(() => undefined);
    if (token === o.expired) throw Object.assign(new Error('Gone'), { code: 410 });
    const p = PAGES[token];
    if (!p) throw Object.assign(new Error(`unknown token ${token}`), { code: 400 });
    return { items: p.items, resourceVersion: '100', ...(p.continueToken ? { continueToken: p.continueToken } : {}) };
  };
  return { list, asked };
}

const ctx = {
  cluster: 'c1',
  owns: new Set(['Deployment']),
  handOver: new Set<string>(),
  index: new ForwarderMemory().index,
};

function resync(list: Lister, store: { value?: string }, signal = new AbortController().signal) {
  const added: string[] = [];
  const run = runResumableResync({
    lister: list,
    owns: ['Deployment'],
    ctx,
    pageSize: 2,
    add: async (keys: readonly ReconcileKey[]) => (added.push(...keys.map(keyString)), keys.length),
    park: async () => undefined,
    unmappable: async () => undefined,
    progress: { load: async () => store.value, save: async (v) => void (store.value = v) },
    signal,
  });
  return { run, added };
}

describe('a resync longer than a tick', () => {
  it('saves its progress after each page, goes on from it in the next tick, and clears it at the end', async () => {
    const store: { value?: string } = {};
    const stop = new AbortController();
    const first = lister({ block: 't3' });
    const run1 = resync(first.list, store, stop.signal);
    await waitFor(async () => first.asked.includes('deployments:t3'), 5_000, 10, 'the third page asked');
    stop.abort();
    await expect(run1.run).rejects.toThrow(/resync stopped/);
    expect(run1.added).toEqual(['a', 'b', 'c', 'd'].map((n) => `c1/Deployment/ns/${n}`));
    expect(JSON.parse(store.value ?? '')).toEqual({ resource: 'deployments', continueToken: 't3' });

    const second = lister();
    const run2 = resync(second.list, store);
    await expect(run2.run).resolves.toBe(1);
    expect(second.asked).toEqual(['deployments:t3']);
    expect(run2.added).toEqual(['c1/Deployment/ns/e']);
    expect(store.value).toBe('');
  });

  it('starts a resource over when its saved token expired (410) or is refused (400)', async () => {
    for (const [token, err] of [
      ['t2', { statusCode: 410 }],
      ['stale', { code: 400 }],
    ] as const) {
      const asked: string[] = [];
      const base = lister();
      let failed = false;
      const list: Lister = async (resource, page) => {
        asked.push(page.continueToken ?? 'first');
        if (page.continueToken === token && !failed) {
          failed = true;
          throw Object.assign(new Error('refused'), err);
        }
        return base.list(resource, page);
      };
      const store = { value: JSON.stringify({ resource: 'deployments', continueToken: token }) };
      const r = resync(list, store);
      await expect(r.run).resolves.toBe(5);
      expect(asked).toEqual([token, 'first', 't2', 't3']);
      expect(store.value).toBe('');
    }
  });
});

const openWatch: WatchStarter = async (_path, _params, _onLine, done) => ({ abort: () => done(null) });

function warmWatcher(list: Lister, memory: ForwarderMemory) {
  const pages: Array<{ names: string[]; first: boolean }> = [];
  const lists: string[] = [];
  const w = new ResourceWatcher({
    cluster: 'c1',
    resource: 'deployments',
    kubeConfig: new KubeConfig(),
    lister: list,
    logger: new Logger('test', 'error'),
    resumeFrom: '90',
    warmOnResume: true,
    pageSize: 2,
    backoff: { initialMs: 1, maxMs: 5 },
    watch: openWatch,
    warmProgress: memory.warmProgress('deployments'),
    hooks: {
      onEvents: async () => undefined,
      onListPage: async (_reason, objects, first) => {
        pages.push({ names: objects.map((o) => o.metadata?.name ?? ''), first });
        if (first) memory.index.replace('deployments', objects);
        else for (const o of objects) memory.index.apply('deployments', 'ADDED', o);
      },
      onList: async (reason, objects, rv, paged) => void lists.push(`${reason} ${objects.length} @${rv} ${paged}`),
      onProgress: () => undefined,
      onRestart: () => undefined,
      onError: () => undefined,
    },
  });
  return { w, pages, lists };
}

describe('a warm list longer than a tick', () => {
  it('goes on from the token in the memory, and the watch keeps its checkpoint', async () => {
    const memory = new ForwarderMemory();
    const first = lister({ block: 't2' });
    const tick1 = warmWatcher(first.list, memory);
    tick1.w.start();
    await waitFor(async () => first.asked.includes('deployments:t2'), 5_000, 10, 'the second page asked');
    await tick1.w.stop();
    expect(tick1.pages).toEqual([{ names: ['a', 'b'], first: true }]);
    expect(tick1.w.isSynced).toBe(false);

    const second = lister();
    const tick2 = warmWatcher(second.list, memory);
    tick2.w.start();
    await tick2.w.synced;
    await tick2.w.stop();
    expect(second.asked).toEqual(['deployments:t2', 'deployments:t3']);
    expect(tick2.pages).toEqual([
      { names: ['c', 'd'], first: false },
      { names: ['e'], first: false },
    ]);
    expect(tick2.lists).toEqual(['warm 0 @100 true']);
    expect(tick2.w.resourceVersion).toBe('90'); // a warm list does not move the checkpoint
    expect(['a', 'b', 'c', 'd', 'e'].map((n) => memory.index.get('Deployment', 'ns', n)?.name)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
  });
});

describe('ForwarderMemory', () => {
  it('is current at the checkpoints it settled, until forgotten', () => {
    const m = new ForwarderMemory();
    expect(m.isCurrentAt('deployments', '5')).toBe(false);
    m.settle(
      new Map([
        ['deployments', '5'],
        ['pods', undefined],
      ]),
    );
    expect([m.isCurrentAt('deployments', '5'), m.isCurrentAt('deployments', '6'), m.isCurrentAt('pods', '5')]).toEqual([
      true,
      false,
      false,
    ]);
    m.forget();
    expect(m.isCurrentAt('deployments', '5')).toBe(false);
  });

  it('knows whether a list resumed from a token it saved itself (its earlier pages are here)', async () => {
    const m = new ForwarderMemory();
    const durable: { value?: string } = {};
    const store = { load: async () => durable.value, save: async (v: string) => void (durable.value = v) };
    const mine = m.following('deployments', store);
    await mine.save('{"continueToken":"t2","resourceVersion":"100"}');
    await mine.load();
    expect(mine.followsList()).toBe(true);
    // Another container's memory did not see the first page.
    const other = new ForwarderMemory().following('deployments', store);
    await other.load();
    expect(other.followsList()).toBe(false);
  });
});
