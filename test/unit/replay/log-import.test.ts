import { describe, expect, it } from '@jest/globals';
import type { LogRecord } from '../../../shared/queue/history/log-record.js';
import { importProblem, MAX_FUTURE_SKEW_MS } from '../../../shared/replay/log-import.js';
import { checkLogName, importStoreSpec } from '../../../shared/replay/log-store.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const record = (o: Partial<Record<keyof LogRecord, unknown>> = {}, object: unknown = undefined): LogRecord =>
  ({
    v: 1,
    cluster: 'eu-1',
    resource: 'deployments',
    type: 'MODIFIED',
    resourceVersion: '4711',
    observedAt: NOW - 60_000,
    object: object ?? { kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'u-1' } },
    ...o,
  }) as LogRecord;

describe('importProblem', () => {
  it.each([
    { name: 'a good record', r: record(), want: null },
    {
      name: 'a cluster-scoped object',
      r: record({ resource: 'nodes' }, { kind: 'Node', metadata: { name: 'n1' } }),
      want: null,
    },
    { name: 'a record just inside the clock skew', r: record({ observedAt: NOW + MAX_FUTURE_SKEW_MS }), want: null },
    {
      name: 'a cluster ../escape',
      r: record({ cluster: '../escape' }),
      want: /cluster "\.\.\/escape" is not a cluster name/,
    },
    { name: 'a cluster with a slash', r: record({ cluster: 'a/b' }), want: /is not a cluster name/ },
    { name: 'a cluster of 64 characters', r: record({ cluster: 'c'.repeat(64) }), want: /is not a cluster name/ },
    { name: 'an upper-case cluster', r: record({ cluster: 'EU-1' }), want: /is not a cluster name/ },
    { name: 'a resource with a dot', r: record({ resource: '../pods' }), want: /is not an API resource/ },
    {
      name: 'a kind with a slash',
      r: record({}, { kind: 'a/b', metadata: { name: 'web' } }),
      want: /kind "a\/b" is not a kind/,
    },
    {
      name: 'a record dated 2100',
      r: record({ observedAt: Date.UTC(2100, 0, 1) }),
      want: /2100-01-01T00:00:00\.000Z is in the future/,
    },
    { name: 'a record 6 min ahead', r: record({ observedAt: NOW + 6 * 60_000 }), want: /is in the future/ },
    { name: 'a time in seconds', r: record({ observedAt: 1_735_689_600 }), want: /before 2014/ },
    { name: 'a fractional time', r: record({ observedAt: NOW - 0.5 }), want: /not epoch milliseconds/ },
    {
      name: 'a name with a slash',
      r: record({}, { metadata: { name: '../x', namespace: 'default' } }),
      want: /metadata\.name/,
    },
    {
      name: 'a name of 254 characters',
      r: record({}, { metadata: { name: 'n'.repeat(254) } }),
      want: /metadata\.name/,
    },
    {
      name: 'a namespace with a dot',
      r: record({}, { metadata: { name: 'web', namespace: 'a.b' } }),
      want: /metadata\.namespace/,
    },
    { name: 'no metadata', r: record({}, { kind: 'Deployment' }), want: /no metadata/ },
    { name: 'a null object', r: record({ object: null }), want: /object is not an object/ },
    { name: 'a resourceVersion with a newline', r: record({ resourceVersion: '1\n2' }), want: /resourceVersion/ },
  ])('$name', ({ r, want }) => {
    const problem = importProblem(r, NOW);
    if (want === null) expect(problem).toBeNull();
    else expect(problem).toMatch(want);
  });
});

describe('where an import goes', () => {
  it.each([
    { spec: 'redis', into: 'incident-42', want: 'redis:incident-42' },
    { spec: 'redis', into: 'live', want: 'redis' },
    { spec: 'jsonl:/var/log/fleetq', into: 'incident-42', want: 'jsonl:/var/log/fleetq/_imports/incident-42' },
    { spec: 'jsonl:/var/log/fleetq', into: 'live', want: 'jsonl:/var/log/fleetq' },
  ])('$spec --into $into → $want', ({ spec, into, want }) => expect(importStoreSpec(spec, into)).toBe(want));

  it.each(['../x', 'Upper', '', 'a'.repeat(41), 'a/b', '-x'])('refuses the log name %j', (name) =>
    expect(() => checkLogName(name)).toThrow(/lowercase letters, digits and '-'/),
  );
});
