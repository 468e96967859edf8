import { describe, expect, it } from '@jest/globals';
import { CheckpointWriter } from '../../../shared/forwarder/checkpoint-writer.js';
import { MemoryCheckpointStore, type CheckpointStore } from '../../../shared/queue/history/checkpoint-store.js';
import { Logger } from '../../../shared/runtime/logger.js';

const silent = new Logger('test', 'error', () => undefined);

class FlakyStore extends MemoryCheckpointStore {
  failures = 1;
  saves = 0;
  override async save(cluster: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    this.saves++;
    if (this.failures-- > 0) throw new Error('redis down');
    await super.save(cluster, checkpoints);
  }
}

function writer(store: CheckpointStore, everyUpdates = 100, errors: unknown[] = []): CheckpointWriter {
  return new CheckpointWriter('c1', store, silent, (e) => errors.push(e), { intervalMs: 60_000, everyUpdates });
}

describe('CheckpointWriter', () => {
  it('keeps only the latest resourceVersion per resource and writes it on close', async () => {
    const store = new MemoryCheckpointStore();
    const w = writer(store);
    w.mark('pods', '1');
    w.mark('pods', '2');
    w.mark('nodes', '7');
    expect(store.entries.size).toBe(0);
    await w.close();
    expect(Object.fromEntries(store.entries)).toEqual({ 'c1/pods': '2', 'c1/nodes': '7' });
  });

  it('writes after everyUpdates updates without waiting for the timer', async () => {
    const store = new MemoryCheckpointStore();
    const w = writer(store, 3);
    for (const rv of ['1', '2', '3']) w.mark('pods', rv);
    await w.flush();
    expect(store.entries.get('c1/pods')).toBe('3');
    await w.close();
  });

  it('keeps entries after a failed write and writes them next time, newer values winning', async () => {
    const store = new FlakyStore();
    const errors: unknown[] = [];
    const w = writer(store, 100, errors);
    w.mark('pods', '1');
    w.mark('nodes', '5');
    await w.flush();
    expect(errors).toHaveLength(1);
    w.mark('pods', '2');
    await w.close();
    expect(Object.fromEntries(store.entries)).toEqual({ 'c1/pods': '2', 'c1/nodes': '5' });
    expect(store.saves).toBe(2);
  });
});
