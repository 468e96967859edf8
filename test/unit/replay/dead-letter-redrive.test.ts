// `fleetq dlq redrive --dry-run` (previewRedrive) and what a redrive that matches nothing says (filterText), on
// the in-process queue: the preview names exactly what a redrive would move, and moves nothing.
import { describe, expect, it } from '@jest/globals';
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';
import { COLOURED } from '../../../shared/ops/text-table.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import {
  filterText,
  formatDeadLetters,
  isFiltered,
  previewRedrive,
  redriveDeadLetters,
} from '../../../shared/replay/dead-letters.js';

const key = (cluster: string, kind: string, name: string): ReconcileKey => ({ cluster, kind, namespace: 'ns', name });

async function parked(keys: readonly ReconcileKey[]): Promise<MemoryQueue> {
  const q = new MemoryQueue();
  for (const k of keys) {
    await q.add(k);
    const lease = await q.get(1_000);
    if (!lease) throw new Error('no lease');
    await q.deadLetter(lease, `terminal: ${k.name}`);
  }
  await q.parkInvalid('not a key', 'malformed');
  return q;
}

describe('previewRedrive', () => {
  it('lists the letters a redrive would move, moves none, and then the redrive moves exactly those', async () => {
    const q = await parked([key('c1', 'Deployment', 'a'), key('c1', 'Job', 'b'), key('c2', 'Deployment', 'c')]);
    const now = Date.now();
    const { wouldMove, refused } = await previewRedrive(q, { kind: 'Deployment' }, now);
    expect(wouldMove.map((d) => (d.key ? keyString(d.key) : null))).toEqual([
      'c1/Deployment/ns/a',
      'c2/Deployment/ns/c',
    ]);
    expect(refused).toEqual([]);
    expect((await q.deadLetters()).length).toBe(4);
    expect((await redriveDeadLetters(q, { kind: 'Deployment' }, now)).moved).toBe(2);
    await q.close();
  });
});

describe('filterText', () => {
  it('says the filter as the flags that made it', () => {
    expect(filterText({ cluster: 'eu-1', kind: 'Job', olderThanMs: 3_600_000 })).toBe(
      '--cluster eu-1 --kind Job --older-than 3600000ms',
    );
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ key: 'a/B/c/d' })).toBe(true);
  });
});

describe('formatDeadLetters', () => {
  it('makes the heading bold only when asked', async () => {
    const q = await parked([key('c1', 'Job', 'b')]);
    const letters = await q.deadLetters();
    expect(formatDeadLetters(letters, Date.now(), { style: COLOURED }).split('\n')[0]).toMatch(
      /^\u001b\[1mKEY\u001b\[22m/, // eslint-disable-line no-control-regex -- the escape is what is tested
    );
    expect(formatDeadLetters(letters, Date.now()).split('\n')[0]).toMatch(/^KEY {2,}FAILURES/);
    await q.close();
  });
});
