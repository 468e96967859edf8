// Which controller a request is made for: a reconcile runs for one controller (its key's kind), and every
// request made inside it (the reconcile's reads and writes, through whatever client) is that controller's.
// Kept in an AsyncLocalStorage, as write-observer.ts keeps a reconcile's write observer, so concurrent
// reconciles of one process never mix; the API budget (controller-budgets.ts) takes each request's token from
// its controller's bucket, as kube-controller-manager gives each controller a client of its own.
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<string>();

/** Runs fn with every request made inside it counted as `kind`'s controller's. */
export function forController<T>(kind: string, fn: () => Promise<T>): Promise<T> {
  return storage.run(kind, fn);
}

/** The key kind of the reconcile this code runs in; undefined outside one (event recorders, CLI commands). */
export function currentController(): string | undefined {
  return storage.getStore();
}
