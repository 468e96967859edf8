// The scheduled mode's decisions (forwarder-tick.ts runScheduled) against a forwarder double: when a resync runs
// and is recorded, when a run fails, and what the memory keeps after it. No cluster.
import { describe, expect, it } from '@jest/globals';
import { ForwarderMemory } from '../../../shared/forwarder/forwarder-memory.js';
import {
  RESYNC_CHECKPOINT,
  RESYNC_PROGRESS,
  runScheduled,
  type ScheduledForwarder,
  type ScheduledOutcome,
} from '../../../shared/forwarder/forwarder-tick.js';
import { MemoryCheckpointStore } from '../../../shared/queue/history/checkpoint-store.js';

const NOW = 1_000_000;
const CLUSTER = 'c1';

type Double = ScheduledForwarder & { calls: string[] };

function double(o: {
  checkpoints?: MemoryCheckpointStore;
  synced?: boolean;
  outcome?: Partial<ScheduledOutcome>;
  memory?: ForwarderMemory;
  cached?: boolean;
}): Double {
  const stop = new AbortController();
  const calls: string[] = [];
  return {
    calls,
    cluster: CLUSTER,
    checkpoints: o.checkpoints ?? new MemoryCheckpointStore(),
    resyncMs: 300_000,
    memory: o.memory,
    cached: o.cached ?? false,
    stopped: stop.signal,
    now: () => NOW,
    start: async () => void calls.push('start'),
    synced: () => (o.synced === false ? new Promise<void>(() => undefined) : Promise.resolve()),
    stop: async () => {
      calls.push('stop');
      stop.abort();
    },
    resumableResync: async () => {
      calls.push('resync');
      return 3;
    },
    outcome: () => ({ checkpointsWritten: true, progressed: false, watchers: [], ...o.outcome }),
  };
}

const saved = async (store: MemoryCheckpointStore, entry: string) => (await store.load(CLUSTER, [entry])).get(entry);

describe('runScheduled', () => {
  it.each([
    { name: 'never resynced: resyncs, and records when it ended', last: undefined, progress: '', resyncs: true },
    { name: 'last resync older than resyncMs: resyncs', last: String(NOW - 300_000), progress: '', resyncs: true },
    { name: 'last resync recent: no resync', last: String(NOW - 1_000), progress: '', resyncs: false },
    { name: 'a resync in progress goes on, due or not', last: String(NOW - 1_000), progress: '{}', resyncs: true },
  ])('$name', async ({ last, progress, resyncs }) => {
    const checkpoints = new MemoryCheckpointStore();
    await checkpoints.save(
      CLUSTER,
      new Map([...(last === undefined ? [] : [[RESYNC_CHECKPOINT, last] as const]), [RESYNC_PROGRESS, progress]]),
    );
    const f = double({ checkpoints });
    await runScheduled(f, 0);
    expect(f.calls).toEqual(resyncs ? ['start', 'resync', 'stop'] : ['start', 'stop']);
    expect(await saved(checkpoints, RESYNC_CHECKPOINT)).toBe(resyncs ? String(NOW) : last);
  });

  it.each([
    {
      name: 'checkpoints not written: fails, memory forgotten',
      synced: true,
      outcome: { checkpointsWritten: false },
      error: 'checkpoints not written at the end of the run',
    },
    {
      name: 'not synced and no list progress saved: fails',
      synced: false,
      outcome: {},
      error: 'not synced within the run, and no list progress saved (cluster unreachable?)',
    },
    { name: 'not synced but a list went on: succeeds', synced: false, outcome: { progressed: true }, error: undefined },
  ])('$name', async ({ synced, outcome, error }) => {
    const memory = new ForwarderMemory();
    memory.settle(new Map([['deployments', '5']]));
    const run = runScheduled(double({ synced, outcome, memory }), 0);
    if (error === undefined) await expect(run).resolves.toBeUndefined();
    else await expect(run).rejects.toThrow(error);
    expect(memory.isCurrentAt('deployments', '5')).toBe(outcome.checkpointsWritten !== false);
  });

  it('settles the memory at each watcher checkpoint: all when synced in time, else only the synced watchers', async () => {
    const watchers = [
      { resource: 'deployments', resourceVersion: '10', isSynced: true },
      { resource: 'pods', resourceVersion: '20', isSynced: false },
    ];
    const inTime = new ForwarderMemory();
    await runScheduled(double({ memory: inTime, outcome: { watchers } }), 0);
    expect([inTime.isCurrentAt('deployments', '10'), inTime.isCurrentAt('pods', '20')]).toEqual([true, true]);

    const late = new ForwarderMemory();
    await runScheduled(double({ synced: false, memory: late, outcome: { watchers, progressed: true } }), 0);
    expect([late.isCurrentAt('deployments', '10'), late.isCurrentAt('pods', '20')]).toEqual([true, false]);
  });

  it('keeps no memory for a forwarder with a cache', async () => {
    const memory = new ForwarderMemory();
    memory.settle(new Map([['deployments', '5']]));
    const watchers = [{ resource: 'deployments', resourceVersion: '10', isSynced: true }];
    await runScheduled(double({ memory, cached: true, outcome: { watchers } }), 0);
    expect([memory.isCurrentAt('deployments', '5'), memory.isCurrentAt('deployments', '10')]).toEqual([false, false]);
  });
});
