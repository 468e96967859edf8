// client-go's EventCorrelator rules (aggregation, dedup, spam filter) as fleetq's correlator applies them,
// driven by a fixed clock: each case is a sequence of recorded events and what would be written for each.
import { describe, expect, it } from '@jest/globals';
import { EventCorrelator } from '../../../../shared/kube/events/correlator.js';
import { makeEvent } from '../../../../shared/kube/events/make-event.js';
import { nanosOf, type CoreEvent, type ResolvedEvent } from '../../../../shared/kube/events/types.js';

const T0 = nanosOf(new Date('2025-01-01T00:00:00Z'));
const at = (seconds: number): bigint => T0 + BigInt(Math.round(seconds * 1e9));

type Step = { at: number; object?: string; reason?: string; message?: string; type?: 'Normal' | 'Warning' };

function spec(s: Step): ResolvedEvent {
  const name = s.object ?? 'web';
  return {
    regarding: { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name, uid: `uid-${name}` },
    source: 'replicaset-controller',
    type: s.type ?? 'Normal',
    reason: s.reason ?? 'SuccessfulCreate',
    message: s.message ?? 'Created pod: web-1',
  };
}

/** Runs the steps; each outcome: `skip`, or `create|patch <count> <message>`. Writes succeed (updateState). */
function run(steps: readonly Step[], c = new EventCorrelator()): { outcomes: string[]; written: CoreEvent[] } {
  const outcomes: string[] = [];
  const written: CoreEvent[] = [];
  let rv = 1;
  for (const s of steps) {
    const r = c.correlate(makeEvent(spec(s), at(s.at)), at(s.at));
    if (r.skip) {
      outcomes.push('skip');
      continue;
    }
    if (r.patch)
      expect(r.patch).toEqual({ count: r.event.count, lastTimestamp: r.event.lastTimestamp, message: r.event.message });
    outcomes.push(`${r.patch ? 'patch' : 'create'} ${r.event.count} ${r.event.message}`);
    const server = { ...r.event, metadata: { ...r.event.metadata, resourceVersion: String(rv++) } };
    written.push(server);
    c.updateState(server);
  }
  return { outcomes, written };
}

const repeat = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const COMBINED = '(combined from similar events): ';

describe('EventCorrelator', () => {
  it.each([
    {
      name: 'a first event is created with count 1',
      steps: [{ at: 0 }],
      want: ['create 1 Created pod: web-1'],
    },
    {
      name: 'an identical event is a patch of the same Event, count + 1',
      steps: [{ at: 0 }, { at: 5 }, { at: 90 }],
      want: ['create 1 Created pod: web-1', 'patch 2 Created pod: web-1', 'patch 3 Created pod: web-1'],
    },
    {
      name: 'another message, type or reason is another Event',
      steps: [
        { at: 0 },
        { at: 1, message: 'Created pod: web-2' },
        { at: 2, type: 'Warning' as const },
        { at: 3, reason: 'SuccessfulDelete' },
      ],
      want: [
        'create 1 Created pod: web-1',
        'create 1 Created pod: web-2',
        'create 1 Created pod: web-1',
        'create 1 Created pod: web-1',
      ],
    },
    {
      name: 'the 10th distinct message of similar events within 10 min becomes one aggregate, then counted',
      steps: repeat(12, (i) => ({ at: i, message: `Created pod: web-${i + 1}` })),
      want: [
        ...repeat(9, (i) => `create 1 Created pod: web-${i + 1}`),
        `create 1 ${COMBINED}Created pod: web-10`,
        `patch 2 ${COMBINED}Created pod: web-11`,
        `patch 3 ${COMBINED}Created pod: web-12`,
      ],
    },
    {
      name: 'a gap of more than 10 min since the last similar event starts the count again',
      steps: [
        ...repeat(9, (i) => ({ at: i, message: `Created pod: web-${i + 1}` })),
        { at: 8 + 601, message: 'Created pod: web-10' },
      ],
      want: [...repeat(9, (i) => `create 1 Created pod: web-${i + 1}`), 'create 1 Created pod: web-10'],
    },
    {
      name: 'similar events each within 10 min of the previous one keep counting (not a fixed window)',
      steps: repeat(10, (i) => ({ at: i * 500, message: `Created pod: web-${i + 1}` })),
      want: [...repeat(9, (i) => `create 1 Created pod: web-${i + 1}`), `create 1 ${COMBINED}Created pod: web-10`],
    },
    {
      name: 'spam filter: 25 events per source and object, whatever the reason, then none',
      steps: [
        ...repeat(24, (i) => ({ at: i / 10, reason: `Reason${i}` })),
        { at: 3, reason: 'Other' },
        { at: 3.1, reason: 'Other2' },
        { at: 3.2, object: 'api', reason: 'Other2' },
      ],
      want: [...repeat(25, () => 'create 1 Created pod: web-1'), 'skip', 'create 1 Created pod: web-1'],
    },
    {
      name: 'spam filter: one more event per 5 minutes; a skipped repeat still counts towards the next patch',
      steps: [...repeat(27, (i) => ({ at: i })), { at: 299 }, { at: 301 }, { at: 302 }],
      want: [
        'create 1 Created pod: web-1',
        ...repeat(24, (i) => `patch ${i + 2} Created pod: web-1`),
        'skip',
        'skip',
        'skip',
        'patch 29 Created pod: web-1',
        'skip',
      ],
    },
  ])('$name', ({ steps, want }) => {
    expect(run(steps).outcomes).toEqual(want);
  });

  it('an event upstream records through events.k8s.io: 40 similar ones all written, no aggregate, no spam filter; an identical repeat still counted', () => {
    const c = new EventCorrelator();
    const outcomes = repeat(40, (i) => {
      const r = c.correlate(
        makeEvent(spec({ at: i / 10, message: `Created pod: web-${i}` }), at(i / 10)),
        at(i / 10),
        true,
      );
      return r.skip ? 'skip' : `${r.patch ? 'patch' : 'create'} ${r.event.count} ${r.event.message}`;
    });
    expect(outcomes).toEqual(repeat(40, (i) => `create 1 Created pod: web-${i}`));
    const first = c.correlate(makeEvent(spec({ at: 5, message: 'again' }), at(5)), at(5), true);
    if (first.skip) throw new Error('skipped');
    c.updateState({ ...first.event, metadata: { ...first.event.metadata, resourceVersion: '7' } });
    const again = c.correlate(makeEvent(spec({ at: 6, message: 'again' }), at(6)), at(6), true);
    expect(again.skip ? 'skip' : `${again.patch ? 'patch' : 'create'} ${again.event.count}`).toBe('patch 2');
  });

  it('a repeat patches the Event by the name and resourceVersion the server answered', () => {
    const { written } = run([{ at: 0 }, { at: 1 }]);
    expect(written[1]?.metadata).toEqual({ name: written[0]?.metadata.name, namespace: 'ns', resourceVersion: '2' });
    expect(written[1]?.firstTimestamp).toBe('2025-01-01T00:00:00Z');
    expect(written[1]?.lastTimestamp).toBe('2025-01-01T00:00:01Z');
  });

  it('an aggregate Event is named after the object and the aggregation time, without a reporting component', () => {
    const { written } = run(repeat(10, (i) => ({ at: 100, message: `m${i}` })));
    const agg = written[9];
    expect(agg?.metadata.name).toBe(`web.${at(100).toString(16)}`);
    expect(agg?.reportingComponent).toBe('');
    expect(agg?.source).toEqual({ component: 'replicaset-controller' });
  });

  it('caches are bounded (LRU): an evicted event is created again, not patched', () => {
    const c = new EventCorrelator({ cacheSize: 2 });
    const { outcomes } = run(
      [{ at: 0 }, { at: 1, object: 'a' }, { at: 2, object: 'b' }, { at: 3 }, { at: 4, object: 'b' }],
      c,
    );
    expect(outcomes).toEqual([
      'create 1 Created pod: web-1',
      'create 1 Created pod: web-1',
      'create 1 Created pod: web-1',
      'create 1 Created pod: web-1',
      'patch 2 Created pod: web-1',
    ]);
  });
});

describe('makeEvent', () => {
  const base = spec({ at: 0 });
  it.each([
    { name: 'named <object>.<unix nanoseconds in hex>', regarding: base.regarding, want: `web.${at(0).toString(16)}` },
    {
      name: 'a name that would not be a DNS subdomain becomes a uuid',
      regarding: { ...base.regarding, name: 'x'.repeat(250) },
      want: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    },
  ])('$name', ({ regarding, want }) => {
    expect(makeEvent({ ...base, regarding }, at(0)).metadata.name).toEqual(want);
  });

  it('is the core/v1 Event client-go records', () => {
    expect(makeEvent(base, at(1.5))).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `web.${at(1.5).toString(16)}`, namespace: 'ns' },
      involvedObject: { kind: 'ReplicaSet', namespace: 'ns', name: 'web', uid: 'uid-web', apiVersion: 'apps/v1' },
      reason: 'SuccessfulCreate',
      message: 'Created pod: web-1',
      source: { component: 'replicaset-controller' },
      firstTimestamp: '2025-01-01T00:00:01Z',
      lastTimestamp: '2025-01-01T00:00:01Z',
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'replicaset-controller',
      reportingInstance: '',
    });
  });
});
