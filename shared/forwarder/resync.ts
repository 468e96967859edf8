// The periodic resync: list each owned kind's own resource afresh and enqueue every key the mapping yields for
// it (every workload; for ConfigMaps, every mirror source and the source of every copy), so that a key lost
// anywhere upstream is reconciled within one interval.
import { keyString, type ReconcileKey } from '../kube/key.js';
import type { Kind } from '../kube/kinds.js';
import { eventKeys, type KeyContext } from './event-keys.js';
import { PRIMARY_RESOURCE, listAll, type Lister } from './resources.js';
import { isExpiredError } from './watch-errors.js';

export type ResyncInput = {
  readonly lister: Lister;
  readonly owns: readonly Kind[];
  readonly ctx: KeyContext;
  readonly pageSize: number;
  readonly add: (keys: readonly ReconcileKey[]) => Promise<number>;
};

/** Returns how many keys were added. */
export async function runResync(input: ResyncInput): Promise<number> {
  let added = 0;
  const seen = new Set<string>();
  for (const resource of new Set(input.owns.map((k) => PRIMARY_RESOURCE[k]))) {
    const { items } = await listAll(input.lister, resource, input.pageSize, isExpiredError);
    const keys: ReconcileKey[] = [];
    for (const object of items) {
      for (const key of eventKeys({ type: 'ADDED', resource, object }, input.ctx)) {
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
