// Who hears of the writes made in a stretch of async work: KubeRest tells the observer of the context a request
// runs in about every write the apiserver accepted (AsyncLocalStorage, so concurrent reconciles of one process
// never mix). The cache layer's WriteTracker is the observer of a reconcile (read-your-writes,
// cache/write-tracker.ts); the REST client knows only this hook, not the cache.
import { AsyncLocalStorage } from 'node:async_hooks';

export type WriteObserver = {
  /** A write the apiserver accepted: `response` is its body (the object written, or a Status). */
  noteWrite(method: string, path: string, requestBody: unknown, response: unknown): void;
};

const storage = new AsyncLocalStorage<WriteObserver>();

/** Runs fn with `observer` told of every write made inside it. */
export function observeWrites<T>(observer: WriteObserver, fn: () => Promise<T>): Promise<T> {
  return storage.run(observer, fn);
}

/** The observer of the work this code runs in, if any. */
export function currentWriteObserver(): WriteObserver | undefined {
  return storage.getStore();
}
