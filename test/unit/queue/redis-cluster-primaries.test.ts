import { describe, expect, it } from '@jest/globals';
import {
  mergeSlotServers,
  slotServerChanges,
  type ServerIdentity,
  type SlotServer,
} from '../../../shared/queue/redis/redis-loss.js';

const id = (run: string, repl: string): ServerIdentity => ({ runId: run.repeat(40), replId: repl.repeat(40) });
const A = id('a', '1');
const B = id('b', '2');
const C = id('c', '3');
/** A slot map of `length` slots: each [from, to, node, identity] range, the rest unknown. */
function map(length: number, ...ranges: [number, number, string, ServerIdentity][]): (SlotServer | undefined)[] {
  const out: (SlotServer | undefined)[] = Array.from({ length });
  for (const [from, to, node, server] of ranges) for (let s = from; s <= to; s++) out[s] = { node, server };
  return out;
}

describe('slotServerChanges', () => {
  it('the same servers are no change', () => {
    const m = map(12, [0, 5, 'h:1', A], [6, 11, 'h:2', B]);
    expect(slotServerChanges(m, map(12, [0, 5, 'h:1', A], [6, 11, 'h:2', B]))).toEqual([]);
  });

  it('the same server under another address (a slot map refresh naming it differently) is no change', () => {
    expect(slotServerChanges(map(4, [0, 3, 'h:1', A]), map(4, [0, 3, '10.0.0.1:1', A]))).toEqual([]);
  });

  it("a failover: the replica now serving the dead primary's slots is a change of those slots only", () => {
    const before = map(12, [0, 5, 'h:1', A], [6, 11, 'h:2', B]);
    const after = map(12, [0, 5, 'h:1', A], [6, 11, 'h:4', C]);
    expect(slotServerChanges(before, after)).toEqual([{ node: 'h:4', slots: [[6, 11]], previousServer: B, server: C }]);
  });

  it('a restart in place (same address, new run_id) is a change', () => {
    const restarted = id('d', '1');
    expect(slotServerChanges(map(3, [0, 2, 'h:1', A]), map(3, [0, 2, 'h:1', restarted]))).toEqual([
      { node: 'h:1', slots: [[0, 2]], previousServer: A, server: restarted },
    ]);
  });

  it('a slot unknown before or now (a primary not read) is not compared', () => {
    const before = map(6, [0, 2, 'h:1', A]);
    const after = map(6, [3, 5, 'h:2', C]);
    expect(slotServerChanges(before, after)).toEqual([]);
    expect(slotServerChanges(after, map(6))).toEqual([]);
  });

  it('ranges are grouped per new primary and previous identity, split where they are not contiguous', () => {
    const before = map(10, [0, 1, 'h:1', A], [2, 3, 'h:2', B], [4, 5, 'h:1', A], [6, 9, 'h:3', C]);
    const after = map(10, [0, 5, 'h:4', C], [6, 9, 'h:3', C]);
    expect(slotServerChanges(before, after)).toEqual([
      {
        node: 'h:4',
        slots: [
          [0, 1],
          [4, 5],
        ],
        previousServer: A,
        server: C,
      },
      { node: 'h:4', slots: [[2, 3]], previousServer: B, server: C },
    ]);
  });
});

describe('mergeSlotServers', () => {
  it('keeps the last known server of a slot not read now, takes the new one elsewhere', () => {
    const before = map(4, [0, 3, 'h:1', A]);
    const after = map(4, [2, 3, 'h:2', B]);
    expect(mergeSlotServers(before, after)).toEqual(map(4, [0, 1, 'h:1', A], [2, 3, 'h:2', B]));
  });
});
