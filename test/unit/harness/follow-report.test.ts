// The chaos suite's follow check (every watched event followed by a successful run of its key): a run that
// started before the test's own watch saw an event still follows it when the forwarder saw the event first.
import { describe, expect, it } from '@jest/globals';
import { followReport, WATCH_SKEW_MS, type Run, type WatchedEvent } from '../../helpers/chaos/harness.js';

const KEY = 'c1/ReplicaSet/ns/web-1';
const event: WatchedEvent = { at: 10_000, type: 'MODIFIED', kind: 'Pod', name: 'web-1-abc', keys: [KEY], rv: '42' };
const run = (start: number): Run => ({
  proc: 'worker-1',
  id: KEY,
  token: 't',
  start,
  end: start + 50,
  outcome: 'done',
});

describe('followReport', () => {
  it('a run that started well before the test saw the event does not follow it', () => {
    const r = followReport([event], [run(event.at - WATCH_SKEW_MS - 200)], { boundMs: 60_000 });
    expect(r.misses).toHaveLength(1);
    expect(r.misses[0]).toContain('no successful run');
  });

  it('it does when the forwarder saw the event before the run started', () => {
    const start = event.at - WATCH_SKEW_MS - 200;
    const sightings = new Map([['pods/web-1-abc@42', start - 10]]);
    expect(followReport([event], [run(start)], { boundMs: 60_000, sightings }).misses).toEqual([]);
  });

  it('a sighting of another version or after the run changes nothing', () => {
    const start = event.at - WATCH_SKEW_MS - 200;
    for (const sightings of [new Map([['pods/web-1-abc@41', start - 10]]), new Map([['pods/web-1-abc@42', start + 1]])])
      expect(followReport([event], [run(start)], { boundMs: 60_000, sightings }).misses).toHaveLength(1);
  });
});
