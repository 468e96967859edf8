// What a forwarder of one cluster is given (forwarder.ts) and what it counts.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { CacheStore } from '../cache/cache-store.js';
import type { Kind } from '../kube/kinds.js';
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import type { EventLog } from '../queue/history/event-log.js';
import type { WorkQueue } from '../queue/work-queue.js';
import type { Logger } from '../runtime/logger.js';
import type { BackoffOptions } from './backoff.js';
import type { CheckpointWriterOptions } from './checkpoint-writer.js';
import type { PipelineStats } from './event-pipeline.js';
import type { ForwarderLimits } from './forwarder-limits.js';
import type { ForwarderMemory } from './forwarder-memory.js';
import type { RelistSlots } from './relist-slots.js';
import type { WatchStarter } from './resource-watcher.js';
import type { Lister } from './resources.js';

export type ForwarderOptions = {
  readonly cluster: string;
  readonly kubeConfig: KubeConfig;
  readonly owns: readonly Kind[];
  /** Kinds not owned whose objects are handed over one by one (registry `handOver`); watched and mapped too. */
  readonly handOver?: readonly Kind[];
  readonly queue: Pick<WorkQueue, 'add' | 'addAfter' | 'parkInvalid'>;
  readonly checkpoints: CheckpointStore;
  readonly eventLog?: EventLog;
  readonly logger?: Logger;
  readonly registry?: Registry;
  /**
   * The periodic resync's least period (resync-period.ts): each cluster's is this × (1 + a fraction of its name), so
   * between it and twice it; default 12 h (kube-controller-manager's --min-resync-period); 0 disables.
   */
  readonly resyncMs?: number;
  /**
   * The queue does not outlive this process (the memory driver) while the checkpoints do: a start that resumes
   * watches resyncs once they are synced, since the last process's queued keys are gone. Default false.
   */
  readonly resyncOnResume?: boolean;
  readonly checkpoint?: CheckpointWriterOptions;
  readonly pageSize?: number;
  readonly backoff?: BackoffOptions;
  /** Write relist snapshots to the event log as LISTED entries (a baseline for replay); default true. */
  readonly logListed?: boolean;
  readonly lister?: Lister;
  readonly now?: () => number;
  /** Per watched resource, events received but not yet handled, at most (default 1 000); more ends the stream. */
  readonly maxPendingEvents?: number;
  /**
   * Memory bounds in bytes: trimming, the per-object cap, each watch buffer and each list page (default from
   * the environment, forwarder-limits.ts).
   */
  readonly limits?: ForwarderLimits;
  /** Bounds how many lists run at once; default the process's (FLEETQ_MAX_CONCURRENT_RELISTS); null: none. */
  readonly relistSlots?: RelistSlots | null;
  /** Server-side timeout of each watch request; default random in [300, 600) s. */
  readonly watchTimeoutSeconds?: number;
  /** How watch requests are made; default client-node's Watch. */
  readonly watch?: WatchStarter;
  /** The cluster's identity; default the uid of its kube-system namespace. */
  readonly identity?: () => Promise<string>;
  /** The cluster's current resourceVersion, read with the identity; default a one-item namespace list. */
  readonly currentResourceVersion?: () => Promise<string>;
  /**
   * The object cache this forwarder materializes (the informer): every event is applied to it before its keys
   * are enqueued, so a handler woken by an event reads a cache that has it. With a cache, every watched
   * resource is listed on resume too (the store may be empty or behind).
   */
  readonly cache?: CacheStore;
  /**
   * The scheduled mode's memory between runs (forwarder-memory.ts): its index and previous state are used, a
   * resource it holds as of its checkpoint needs no warm list, and warm lists go on across runs in it.
   */
  readonly memory?: ForwarderMemory;
};

export type ForwarderStats = PipelineStats & {
  watchRestarts: number;
  resyncs: number;
  errors: number;
  /** Checkpoints discarded because the cluster's identity changed. */
  identityChanges: number;
};
