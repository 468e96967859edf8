// A queue for forwarder tests: every key the forwarder adds is recorded (as its key string), then passed to
// a real MemoryQueue; so is everything it parks as invalid.
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';

export class RecordingQueue implements Pick<WorkQueue, 'add' | 'parkInvalid'> {
  readonly added: string[] = [];
  readonly parked: Array<{ raw: string; reason: string }> = [];
  readonly inner = new MemoryQueue();
  async add(key: ReconcileKey): Promise<void> {
    this.added.push(keyString(key));
    await this.inner.add(key);
  }
  async parkInvalid(raw: string, reason: string): Promise<void> {
    this.parked.push({ raw, reason });
    await this.inner.parkInvalid(raw, reason);
  }
}
