// The periodic resync: list each owned kind's own resource afresh and enqueue every key the mapping yields for
// it (every workload; for ConfigMaps, every mirror source and the source of every copy), so that a key lost
// anywhere upstream is reconciled within one interval. Every page of each list is read; an object that yields
// an invalid key is recorded and skipped, never the end of the resync.
import { keyString, type ReconcileKey } from '../kube/key.js';
import { eventKeys, type EventKeys, type InvalidKey, type KeyContext } from './event-keys.js';
import { DESCRIPTORS } from '../controllers/index.js';
import {
  FIRST_PAGE_LIMIT,
  isKubeObject,
  listPages,
  nextPageLimit,
  type KubeObject,
  type Lister,
  type Resource,
} from './resources.js';
import { isExpiredError } from './watch-errors.js';
import { approxBytes } from './object-trim.js';

export type ResyncInput = {
  readonly lister: Lister;
  readonly owns: readonly string[];
  readonly ctx: KeyContext;
  readonly pageSize: number;
  /** Bytes a page should hold at most (resources.ts listPages); trims each object before it is held. */
  readonly maxPageBytes?: number;
  readonly trim?: (object: KubeObject) => KubeObject;
  readonly add: (keys: readonly ReconcileKey[]) => Promise<number>;
  /** Records the keys of one object that are not valid (they are skipped; the resync goes on). */
  readonly park: (resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]) => Promise<void>;
  /** Records an object whose mapping threw (bad data the mapping did not expect). */
  readonly unmappable: (resource: Resource, object: KubeObject, err: unknown) => Promise<void>;
};

/**
 * The keys of a listed page's objects, as an ADDED event of each maps them, less those already in `seen` (a
 * resync adds a key once); an object that cannot be mapped or yields invalid keys is reported and skipped.
 */
async function keysOfPage(
  input: ResyncInput,
  resource: Resource,
  objects: readonly KubeObject[],
  seen: Set<string>,
): Promise<ReconcileKey[]> {
  const keys: ReconcileKey[] = [];
  for (const object of objects) {
    let mapped: EventKeys;
    try {
      mapped = eventKeys({ type: 'ADDED', resource, object }, input.ctx);
    } catch (err) {
      await input.unmappable(resource, object, err);
      continue;
    }
    if (mapped.invalid.length > 0) await input.park(resource, object, mapped.invalid);
    for (const key of mapped.keys) {
      const id = keyString(key);
      if (seen.has(id)) continue;
      seen.add(id);
      keys.push(key);
    }
  }
  return keys;
}

/** Returns how many keys were added. */
export async function runResync(input: ResyncInput): Promise<number> {
  let added = 0;
  const seen = new Set<string>();
  for (const resource of new Set(input.owns.map((k) => (input.ctx.descriptors ?? DESCRIPTORS).primaryResource(k)))) {
    // Page by page: no list is held whole (a key seen on an earlier attempt's page is not added twice).
    const paging = {
      pageSize: input.pageSize,
      ...(input.maxPageBytes === undefined ? {} : { maxPageBytes: input.maxPageBytes }),
      ...(input.trim && { trim: input.trim }),
    };
    for await (const page of listPages(input.lister, resource, paging, isExpiredError)) {
      added += await input.add(await keysOfPage(input, resource, page.items, seen));
    }
  }
  return added;
}

/** Checkpoint-store value of a resync in progress: the resource it is in and the continue token of its next page. */
type ResyncProgress = { readonly resource: Resource; readonly continueToken?: string };

export type ResumableResyncInput = ResyncInput & {
  /** Where the resync's progress is kept between runs ('' clears it): saved after each page's keys were added. */
  readonly progress: { load(): Promise<string | undefined>; save(value: string): Promise<void> };
  /** Aborted: the resync stops before its next page (its progress stays saved). */
  readonly signal: AbortSignal;
  /** A page's progress was saved. */
  readonly onPage?: () => void;
};

/**
 * The scheduled forwarder's resync: page by page, each page's keys added before its progress is saved, so that a
 * resync longer than a run goes on in the next run from its continue token. A token the apiserver no longer
 * takes (410 expired, 400 refused) starts that resource's list over. Resolves with how many keys this run added
 * once every resource was listed to its end; rejects when stopped first.
 */
export async function runResumableResync(input: ResumableResyncInput): Promise<number> {
  const resources = [...new Set(input.owns.map((k) => (input.ctx.descriptors ?? DESCRIPTORS).primaryResource(k)))];
  const saved = parseResyncProgress(await input.progress.load());
  let at = saved === undefined ? 0 : Math.max(0, resources.indexOf(saved.resource));
  let token = saved !== undefined && resources[at] === saved.resource ? saved.continueToken : undefined;
  let added = 0;
  const seen = new Set<string>();
  const paging = {
    pageSize: input.pageSize,
    ...(input.maxPageBytes !== undefined && { maxPageBytes: input.maxPageBytes }),
  };
  for (; at < resources.length; at++) {
    const resource = resources[at] as Resource;
    // Pages bounded in bytes as in listPages: start small, then as many objects as fit.
    let limit = Math.min(Math.max(1, input.pageSize), FIRST_PAGE_LIMIT);
    for (;;) {
      if (input.signal.aborted) throw new Error('resync stopped before its end (its progress is saved)');
      let page;
      try {
        page = await untilAborted(
          input.lister(resource, { limit, ...(token === undefined ? {} : { continueToken: token }) }),
          input.signal,
        );
      } catch (err) {
        const refused = isExpiredError(err) || (err as { code?: unknown }).code === 400;
        if (input.signal.aborted || token === undefined || !refused) throw err;
        token = undefined;
        continue;
      }
      const valid = (Array.isArray(page.items) ? page.items : []).filter(isKubeObject);
      limit = nextPageLimit(limit, valid.length, approxBytes(valid), paging);
      const trim = input.trim;
      const objects = trim ? valid.map((o) => trim(o)) : valid;
      added += await input.add(await keysOfPage(input, resource, objects, seen));
      token = page.continueToken;
      const next: ResyncProgress | undefined =
        token !== undefined
          ? { resource, continueToken: token }
          : at + 1 < resources.length
            ? { resource: resources[at + 1] as Resource }
            : undefined;
      await input.progress.save(next === undefined ? '' : JSON.stringify(next));
      input.onPage?.();
      if (token === undefined) break;
    }
  }
  return added;
}

/** The promise's value, or a rejection once `signal` is aborted (the request itself is left to finish). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('resync stopped'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('resync stopped'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function parseResyncProgress(value: string | undefined): ResyncProgress | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    const parsed = JSON.parse(value) as { resource?: unknown; continueToken?: unknown };
    if (typeof parsed.resource !== 'string') return undefined;
    return {
      resource: parsed.resource as Resource,
      ...(typeof parsed.continueToken === 'string' && { continueToken: parsed.continueToken }),
    };
  } catch {
    return undefined;
  }
}
