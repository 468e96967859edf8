// One Forwarder per registered cluster, each isolated: a cluster whose client cannot be built or whose
// checkpoints cannot be loaded is logged and retried with backoff, and never stops the others (an unreachable
// apiserver is already contained inside its own watchers).
import type { CacheStore } from '../cache/cache-store.js';
import type { ClusterRegistry } from '../kube/registry.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { Forwarder, type ForwarderOptions } from './forwarder.js';
import type { ForwarderMemory } from './forwarder-memory.js';
import { Logger } from '../runtime/logger.js';

export type FleetForwarderOptions = Omit<
  ForwarderOptions,
  'cluster' | 'kubeConfig' | 'owns' | 'handOver' | 'lister' | 'cache' | 'memory'
> & {
  /** Backoff between attempts to start one cluster's forwarder. */
  readonly startBackoff?: BackoffOptions;
  /** Each cluster's object cache to materialize (reads from the cache); none: no cache is filled. */
  readonly cacheFor?: (cluster: string) => CacheStore;
  /** Scheduled runs (runFor): each cluster's memory kept between runs (forwarder-memory.ts); none: none kept. */
  readonly memoryFor?: (cluster: string) => ForwarderMemory;
};

export type ClusterRunResult = { readonly cluster: string; readonly ok: boolean; readonly error?: string };

export class FleetForwarder {
  readonly forwarders = new Map<string, Forwarder>();
  private readonly logger: Logger;
  private readonly stopSignal = new AbortController();
  private launches: Promise<void>[] = [];

  constructor(
    private readonly registry: ClusterRegistry,
    private readonly o: FleetForwarderOptions,
  ) {
    this.logger = o.logger ?? new Logger('fleetq-forwarder');
  }

  /** Starts every cluster's forwarder; those that fail to start are retried in the background until stop(). */
  async start(): Promise<void> {
    const attempts = this.registry.clusters.map((c) => {
      let first!: () => void;
      const firstAttempt = new Promise<void>((resolve) => (first = resolve));
      this.launches.push(this.launch(c.name, first));
      return firstAttempt;
    });
    await Promise.all(attempts);
  }

  async stop(): Promise<void> {
    this.stopSignal.abort();
    await Promise.all(this.launches);
    await Promise.allSettled([...this.forwarders.values()].map((f) => f.stop()));
  }

  /** The scheduled mode: every cluster's forwarder runs for `ms` from its checkpoints, side by side. */
  async runFor(ms: number): Promise<ClusterRunResult[]> {
    const deadline = Date.now() + ms;
    return Promise.all(
      this.registry.clusters.map(async ({ name }): Promise<ClusterRunResult> => {
        try {
          const forwarder = this.create(name, this.o.memoryFor?.(name));
          this.forwarders.set(name, forwarder);
          await forwarder.runFor(Math.max(0, deadline - Date.now()));
          return { cluster: name, ok: true };
        } catch (err) {
          this.logger.error('Forwarder run failed', { cluster: name, err });
          return { cluster: name, ok: false, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
  }

  private async launch(name: string, attempted: () => void): Promise<void> {
    const backoff = new Backoff(this.o.startBackoff ?? { initialMs: 1_000, maxMs: 60_000 });
    while (!this.stopSignal.signal.aborted) {
      try {
        const forwarder = this.create(name);
        await forwarder.start();
        this.forwarders.set(name, forwarder);
        attempted();
        return;
      } catch (err) {
        const retryInMs = backoff.next();
        this.logger.error('Forwarder start failed', { cluster: name, err, retryInMs });
        attempted();
        await sleep(retryInMs, this.stopSignal.signal);
      }
    }
    attempted();
  }

  private create(name: string, memory?: ForwarderMemory): Forwarder {
    const config = this.registry.get(name);
    if (!config) throw new Error(`cluster ${name} is not registered`);
    const { cacheFor, memoryFor: _memoryFor, ...options } = this.o;
    const cache = cacheFor?.(name);
    return new Forwarder({
      ...options,
      cluster: name,
      kubeConfig: this.registry.kubeConfig(name),
      owns: config.owns,
      ...(config.handOver && { handOver: config.handOver }),
      ...(cache && { cache }),
      ...(memory && { memory }),
    });
  }
}
