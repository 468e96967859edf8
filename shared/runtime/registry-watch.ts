// A worker's cluster registry, re-read while it runs, as the forwarder pool does (registry-reload.ts: the file
// is read and compared by its SHA-256; a file that no longer parses is logged and the last good registry stays).
// It is checked every `everyMs`, and at once (at most every `minGapMs`) when a key names a cluster the
// registry does not know: a cluster just added reaches the forwarders and the workers at different times, and
// its first keys must wait for the worker's reload instead of being dead-lettered (reconcile-one.ts).
import type { ClusterRegistry } from '../kube/registry.js';
import type { RegistryChange, RegistryReload } from './registry-reload.js';

/** What a reconcile asks of the registry. */
export type RegistryLookup = Pick<ClusterRegistry, 'get' | 'owns' | 'handsOver' | 'clusters'>;

export type RegistryWatchOptions = {
  /** Periodic check; default 5 000. 0: only on demand (refresh). */
  readonly everyMs?: number;
  /** Least time between two on-demand checks; default 1 000. */
  readonly minGapMs?: number;
};

export class RegistryWatch implements RegistryLookup {
  private timer: NodeJS.Timeout | undefined;
  private lastCheck = -Infinity;
  private readonly listeners = new Set<(change: RegistryChange) => void>();

  constructor(
    private readonly reload: RegistryReload,
    private readonly o: RegistryWatchOptions = {},
  ) {}

  get registry(): ClusterRegistry {
    return this.reload.registry;
  }

  get clusters(): ClusterRegistry['clusters'] {
    return this.reload.registry.clusters;
  }

  get(name: string): ReturnType<ClusterRegistry['get']> {
    return this.reload.registry.get(name);
  }

  owns(cluster: string, kind: string): boolean {
    return this.reload.registry.owns(cluster, kind);
  }

  handsOver(cluster: string, kind: string): boolean {
    return this.reload.registry.handsOver(cluster, kind);
  }

  /** Starts the periodic check (unref'd: it keeps no process alive). */
  start(): this {
    const every = this.o.everyMs ?? 5_000;
    if (this.timer || every <= 0) return this;
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Re-reads the file now unless it was read within minGapMs; true when the registry changed. */
  refresh(): boolean {
    if (performance.now() - this.lastCheck < (this.o.minGapMs ?? 1_000)) return false;
    return this.check();
  }

  /** `listener` gets every change; returns what removes it. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private check(): boolean {
    this.lastCheck = performance.now();
    const change = this.reload.check();
    if (!change) return false;
    for (const listener of this.listeners) listener(change);
    return true;
  }
}
