// The scheduled mode of a forwarder (the Lambda tick, Forwarder.runFor): watch from the checkpoints for a
// time-boxed run, then stop cleanly. Lists and resyncs go on across runs from progress kept beside the
// checkpoints, a resync runs when the last one (kept there too) is older than the resync interval, and the
// scheduled mode's memory (forwarder-memory.ts) is settled at the end. A run that made no lasting progress fails.
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import { sleep } from './backoff.js';
import type { ForwarderMemory } from './forwarder-memory.js';
import type { ListProgressStore } from './resource-watcher.js';
import type { Resource } from './resources.js';

/** Checkpoint-store entry holding when this cluster was last resynced (epoch ms), for runFor. */
export const RESYNC_CHECKPOINT = '@resync';

/** Checkpoint-store entry `<resource>@list`: a resumable list's continue token and resourceVersion (runFor). */
export const LIST_PROGRESS_SUFFIX = '@list';

/** Checkpoint-store entry of a resync in progress (runFor): its resource and next page's continue token. */
export const RESYNC_PROGRESS = '@resync@list';

/** What a scheduled run drives of its forwarder (forwarder.ts). */
export type ScheduledForwarder = {
  readonly cluster: string;
  readonly checkpoints: CheckpointStore;
  /** The resync interval; 0: none. */
  readonly resyncMs: number;
  readonly memory: ForwarderMemory | undefined;
  /** Whether the forwarder keeps a cache (its memory is then not kept between runs). */
  readonly cached: boolean;
  /** Aborted when the forwarder stops. */
  readonly stopped: AbortSignal;
  now(): number;
  /** Starts watching, lists resumable across runs. */
  start(): Promise<void>;
  synced(): Promise<void>;
  stop(): Promise<void>;
  /** A resync page by page from its saved progress, paused when the run stops. */
  resumableResync(): Promise<number>;
  /** Once stopped: whether every checkpoint was written, whether a list's progress was saved, and the watchers. */
  outcome(): ScheduledOutcome;
};

export type ScheduledOutcome = {
  readonly checkpointsWritten: boolean;
  readonly progressed: boolean;
  readonly watchers: ReadonlyArray<{
    readonly resource: Resource;
    readonly resourceVersion: string | undefined;
    readonly isSynced: boolean;
  }>;
};

/**
 * Watch from the checkpoints for `ms`, then stop cleanly. A resync runs first when the last one (kept in the
 * checkpoint store) is older than resyncMs. Rejects when the checkpoints could not be read, the progress made
 * could not be written at the end (the next run would repeat it), or the watches never started (the cluster was
 * not reached, or a first list did not finish within the run): a scheduled run that made no lasting progress is a
 * failed one.
 */
export async function runScheduled(f: ScheduledForwarder, ms: number): Promise<void> {
  await f.start();
  let synced = false;
  void f.synced().then(() => (synced = true));
  let syncedInTime = false;
  try {
    // A resync in progress goes on whenever it is due or not; it is recorded once its last page is done,
    // in whichever run that is.
    const saved = await f.checkpoints.load(f.cluster, [RESYNC_CHECKPOINT, RESYNC_PROGRESS]);
    const last = Number(saved.get(RESYNC_CHECKPOINT) ?? 0);
    const inProgress = (saved.get(RESYNC_PROGRESS) ?? '') !== '';
    if (f.resyncMs > 0 && (inProgress || f.now() - last >= f.resyncMs)) {
      void f
        .resumableResync()
        .then(() => f.checkpoints.save(f.cluster, new Map([[RESYNC_CHECKPOINT, String(f.now())]])))
        .catch(() => undefined);
    }
    await sleep(ms, f.stopped);
  } finally {
    syncedInTime = synced;
    await f.stop();
  }
  const outcome = f.outcome();
  settleMemory(f, outcome, syncedInTime);
  if (!outcome.checkpointsWritten) throw new Error('checkpoints not written at the end of the run');
  // Not one watch started and no list got further: the cluster was not reached (or did not answer a page
  // within the run). A list longer than a run is not a failure while each run saves pages of it.
  if (!syncedInTime && !outcome.progressed)
    throw new Error('not synced within the run, and no list progress saved (cluster unreachable?)');
}

/** What the memory holds after a run: current at each synced watcher's checkpoint, if they were written. */
function settleMemory(f: ScheduledForwarder, outcome: ScheduledOutcome, synced: boolean): void {
  const memory = f.memory;
  if (!memory) return;
  if (!outcome.checkpointsWritten || f.cached) return memory.forget();
  if (outcome.watchers.length === 0) return;
  memory.settle(
    new Map(outcome.watchers.map((w) => [w.resource, synced || w.isSynced ? w.resourceVersion : undefined])),
  );
}

/**
 * Where a resumable list keeps its continue token between runs: beside the checkpoints. With a memory, it also
 * tells whether a list resumed from a token had its earlier pages handed over here (else: a warm list after).
 */
export function listProgressStore(
  cluster: string,
  checkpoints: CheckpointStore,
  resource: Resource,
  memory: ForwarderMemory | undefined,
): ListProgressStore & { followsList?(): boolean } {
  const entry = `${resource}${LIST_PROGRESS_SUFFIX}`;
  const store: ListProgressStore = {
    load: async () => (await checkpoints.load(cluster, [entry])).get(entry),
    save: (value) => checkpoints.save(cluster, new Map([[entry, value]])),
  };
  return memory ? memory.following(resource, store) : store;
}

/** Where a resumable resync keeps its resource and next page between runs: beside the checkpoints. */
export function resyncProgressStore(cluster: string, checkpoints: CheckpointStore): ListProgressStore {
  return {
    load: async () => (await checkpoints.load(cluster, [RESYNC_PROGRESS])).get(RESYNC_PROGRESS),
    save: (value) => checkpoints.save(cluster, new Map([[RESYNC_PROGRESS, value]])),
  };
}
