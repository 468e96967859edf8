// What a scheduled forwarder (runFor: the Lambda tick) keeps of one cluster between its runs while its process
// lives (a warm Lambda container): the workload index and previous state, and for each watched resource the
// resourceVersion up to which they are current. A run that resumes from checkpoints equal to those needs no warm
// list for that resource: the memory is what the last run left, exactly as a long-running forwarder's is across
// a watch restart. A warm list too long for one run goes on in the next from its continue token, its earlier
// pages being here; a list continued from pages another process handed over is followed by a warm list.
// Nothing here is durable: a cold container starts empty, and a run that did not write its checkpoints, or a
// cluster whose identity changed, forgets it all.
import { WorkloadIndex } from './workload-index.js';
import { PreviousState } from './previous-state.js';
import type { ListProgressStore } from './resource-watcher.js';
import type { Resource } from './resources.js';

export class ForwarderMemory {
  readonly index = new WorkloadIndex();
  readonly previous = new PreviousState();
  /** resource → the checkpoint (resourceVersion) the memory is current at. */
  private readonly current = new Map<Resource, string>();
  /** resource → a warm list in progress (what its ListProgressStore holds). */
  private readonly warm = new Map<Resource, string>();
  /** resource → the list progress this memory followed from its first page (initial or expired lists). */
  private readonly followed = new Map<Resource, string>();

  /** Whether the memory holds `resource` as of this checkpoint (no warm list needed). */
  isCurrentAt(resource: Resource, resourceVersion: string | undefined): boolean {
    return resourceVersion !== undefined && this.current.get(resource) === resourceVersion;
  }

  /** The end of a run whose checkpoints were written: each synced resource is current at its checkpoint. */
  settle(checkpoints: ReadonlyMap<Resource, string | undefined>): void {
    for (const [resource, rv] of checkpoints) {
      if (rv === undefined) this.current.delete(resource);
      else this.current.set(resource, rv);
    }
  }

  /** Not current at any checkpoint any more (a run that did not write its checkpoints; another cluster). */
  forget(): void {
    this.current.clear();
    this.warm.clear();
    this.followed.clear();
  }

  /** Where a warm list of `resource` keeps its progress: here, beside the pages it refilled. */
  warmProgress(resource: Resource): ListProgressStore {
    return {
      load: () => Promise.resolve(this.warm.get(resource)),
      save: (value) => {
        if (value === '') this.warm.delete(resource);
        else this.warm.set(resource, value);
        return Promise.resolve();
      },
    };
  }

  /**
   * Wraps a durable list progress store: notes what this memory followed, so that a list resumed from a token
   * it saved itself is known to have its earlier pages here (`followsList`).
   */
  following(resource: Resource, store: ListProgressStore): ListProgressStore & { followsList(): boolean } {
    let follows = false;
    return {
      load: async () => {
        const loaded = await store.load();
        follows = loaded !== undefined && loaded !== '' && this.followed.get(resource) === loaded;
        return loaded;
      },
      save: async (value) => {
        await store.save(value);
        if (value === '') this.followed.delete(resource);
        else this.followed.set(resource, value);
      },
      followsList: () => follows,
    };
  }
}
