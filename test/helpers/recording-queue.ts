// A queue for forwarder tests: every key the forwarder adds is recorded (as its key string), then passed to
// a real MemoryQueue.
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';

export class RecordingQueue {
  readonly added: string[] = [];
  readonly inner = new MemoryQueue();
  async add(key: ReconcileKey): Promise<void> {
    this.added.push(keyString(key));
    await this.inner.add(key);
  }
}
