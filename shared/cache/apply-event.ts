// The one function that turns a watch event into a cache change. The forwarder runs it on every event it
// sees; replay's shadow mode runs the same function over the event log, so live and replayed state cannot
// drift apart.
import { resourceOf } from '../kube/resources.js';
import { cacheEntry, entryId, keepsState, type CachedObject } from './cache-entry.js';
import type { CacheChange, CacheStore } from './cache-store.js';

export type CacheEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly kind: string; readonly object: CachedObject }
  | { readonly type: 'BOOKMARK'; readonly kind: string; readonly resourceVersion: string }
  | {
      readonly type: 'LISTED';
      readonly kind: string;
      readonly objects: readonly CachedObject[];
      readonly resourceVersion: string;
    };

export async function applyEvent(store: CacheStore, event: CacheEvent): Promise<void> {
  switch (event.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return store.applyMany(event.kind, [changeOf(event)]);
    case 'BOOKMARK':
      return store.advance(event.kind, event.resourceVersion);
    case 'LISTED': {
      const apiVersion = resourceOf(event.kind).apiVersion;
      const entries = event.objects.flatMap((o) => (o.metadata?.name ? [cacheEntry(event.kind, apiVersion, o)] : []));
      return store.replace(event.kind, entries, event.resourceVersion);
    }
    default:
      return assertNever(event);
  }
}

export type WatchEvent = Extract<CacheEvent, { type: 'ADDED' | 'MODIFIED' | 'DELETED' }>;

/**
 * A batch of one kind's watch events, in one step of the store that keeps their order (CacheStore.applyMany): the
 * forwarder's way to apply what one watch read delivered.
 */
export async function applyEvents(store: CacheStore, kind: string, events: readonly WatchEvent[]): Promise<void> {
  if (events.length === 0) return;
  await store.applyMany(kind, events.map(changeOf));
}

function changeOf(event: WatchEvent): CacheChange {
  if (event.type !== 'DELETED') {
    const entry = cacheEntry(event.kind, resourceOf(event.kind).apiVersion, event.object);
    return {
      type: 'put',
      entry,
      resourceVersion: entry.resourceVersion,
      keep: keepsState(event.type, event.kind, event.object),
    };
  }
  const meta = event.object.metadata ?? {};
  const id = entryId(event.kind, meta.namespace ?? '', meta.name ?? '');
  const kept =
    meta.name && keepsState(event.type, event.kind, event.object)
      ? cacheEntry(event.kind, resourceOf(event.kind).apiVersion, event.object)
      : undefined;
  return { type: 'remove', kind: event.kind, id, resourceVersion: meta.resourceVersion ?? '', ...(kept && { kept }) };
}

function assertNever(x: never): never {
  throw new Error(`unknown cache event ${JSON.stringify(x)}`);
}
