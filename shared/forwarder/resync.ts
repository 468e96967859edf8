// The periodic resync: list each owned kind's own resource afresh and enqueue every key the mapping yields for
// it (every workload; for ConfigMaps, every mirror source and the source of every copy), so that a key lost
// anywhere upstream is reconciled within one interval. Every page of each list is read; an object that yields
// an invalid key is recorded and skipped, never the end of the resync.
import { keyString, type ReconcileKey } from '../kube/key.js';
import { eventKeys, type EventKeys, type InvalidKey, type KeyContext } from './event-keys.js';
import { DESCRIPTORS } from '../controllers/index.js';
import { listAll, type KubeObject, type Lister, type Resource } from './resources.js';
import { isExpiredError } from './watch-errors.js';

export type ResyncInput = {
  readonly lister: Lister;
  readonly owns: readonly string[];
  readonly ctx: KeyContext;
  readonly pageSize: number;
  readonly add: (keys: readonly ReconcileKey[]) => Promise<number>;
  /** Records the keys of one object that are not valid (they are skipped; the resync goes on). */
  readonly park: (resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]) => Promise<void>;
  /** Records an object whose mapping threw (bad data the mapping did not expect). */
  readonly unmappable: (resource: Resource, object: KubeObject, err: unknown) => Promise<void>;
};

/** Returns how many keys were added. */
export async function runResync(input: ResyncInput): Promise<number> {
  let added = 0;
  const seen = new Set<string>();
  for (const resource of new Set(input.owns.map((k) => (input.ctx.descriptors ?? DESCRIPTORS).primaryResource(k)))) {
    const { items } = await listAll(input.lister, resource, input.pageSize, isExpiredError);
    const keys: ReconcileKey[] = [];
    for (const object of items) {
      let mapped: EventKeys;
      try {
        mapped = eventKeys({ type: 'ADDED', resource, object }, input.ctx);
      } catch (err) {
        await input.unmappable(resource, object, err);
        continue;
      }
      if (mapped.invalid.length > 0) await input.park(resource, object, mapped.invalid);
      for (const key of mapped.keys) {
        const id = keyString(key);
        if (seen.has(id)) continue;
        seen.add(id);
        keys.push(key);
      }
    }
    added += await input.add(keys);
  }
  return added;
}
