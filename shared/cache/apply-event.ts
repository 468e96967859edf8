// The one function that turns a watch event into a cache change. The forwarder runs it on every event it
// sees; replay's shadow mode runs the same function over the event log, so live and replayed state cannot
// drift apart.
import { resourceOf } from '../kube/resources.js';
import { cacheEntry, entryId, keepsState, type CachedObject } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';

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
    case 'MODIFIED': {
      const entry = cacheEntry(event.kind, resourceOf(event.kind).apiVersion, event.object);
      return store.put(entry, entry.resourceVersion, keepsState(event.type, event.kind, event.object));
    }
    case 'DELETED': {
      const meta = event.object.metadata ?? {};
      const id = entryId(event.kind, meta.namespace ?? '', meta.name ?? '');
      const kept =
        meta.name && keepsState(event.type, event.kind, event.object)
          ? cacheEntry(event.kind, resourceOf(event.kind).apiVersion, event.object)
          : undefined;
      return store.remove(event.kind, id, meta.resourceVersion ?? '', kept);
    }
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

function assertNever(x: never): never {
  throw new Error(`unknown cache event ${JSON.stringify(x)}`);
}
