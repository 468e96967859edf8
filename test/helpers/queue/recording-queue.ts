// A queue for forwarder tests: every key the forwarder adds is recorded (as its key string), then passed to
// a real MemoryQueue; so is everything it parks as invalid. A key added later (addAfter) is recorded in `added`
// too, when it is added, and in `later` with its delay.
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';

export class RecordingQueue implements Pick<WorkQueue, 'add' | 'addAfter' | 'parkInvalid'> {
  readonly added: string[] = [];
  readonly later: Array<{ key: string; delayMs: number }> = [];
  readonly parked: Array<{ raw: string; reason: string }> = [];
  readonly inner = new MemoryQueue();
  async add(key: ReconcileKey): Promise<void> {
    this.added.push(keyString(key));
    await this.inner.add(key);
  }
  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    this.added.push(keyString(key));
    this.later.push({ key: keyString(key), delayMs });
    await this.inner.addAfter(key, delayMs);
  }
  async parkInvalid(raw: string, reason: string): Promise<void> {
    this.parked.push({ raw, reason });
    await this.inner.parkInvalid(raw, reason);
  }
}
