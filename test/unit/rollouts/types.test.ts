// Parsing a FleetRollout read from the hub cluster: the example, defaults, and refusals naming the field.
import { describe, expect, it } from '@jest/globals';
import { FleetRolloutError, parseFleetRollout } from '../../../shared/rollouts/types.js';
import { exampleRollout } from '../../helpers/rollouts/example.js';

const EXAMPLE = exampleRollout();

const withSpec = (spec: Record<string, unknown>) => ({ ...EXAMPLE, spec: { ...EXAMPLE.spec, ...spec } });

describe('parseFleetRollout', () => {
  it("reads the issue's example: durations in ms, int-or-percent kept as which it is", () => {
    expect(parseFleetRollout(EXAMPLE)).toEqual({
      metadata: { name: 'web', namespace: 'fleetq-system' },
      spec: {
        target: { kind: 'Deployment', namespace: 'shop', name: 'web' },
        clusters: { matchLabels: { env: 'prod' } },
        waves: [
          {
            name: 'canary',
            clusters: { matchLabels: { ring: '0' } },
            maxConcurrency: { count: 1 },
            soakMs: 600_000,
            approval: false,
          },
          {
            name: 'early',
            clusters: { matchLabels: { ring: '1' } },
            maxConcurrency: { count: 2 },
            soakMs: 300_000,
            approval: false,
          },
          { name: 'rest', maxConcurrency: { percent: 25 }, soakMs: 0, approval: false },
        ],
        progressDeadlineMs: 600_000,
        maxFailedClusters: { count: 1 },
        onFailure: 'Rollback',
        paused: false,
      },
      status: {},
    });
  });

  it('defaults: one cluster at a time, no soak, a 10m deadline, no failure allowed, Rollback, not paused', () => {
    const r = parseFleetRollout({
      ...EXAMPLE,
      spec: { target: EXAMPLE.spec.target, clusters: {}, waves: [{ name: 'all' }] },
    });
    expect(r.spec).toEqual({
      target: EXAMPLE.spec.target,
      clusters: {},
      waves: [{ name: 'all', maxConcurrency: { count: 1 }, soakMs: 0, approval: false }],
      progressDeadlineMs: 600_000,
      maxFailedClusters: { count: 0 },
      onFailure: 'Rollback',
      paused: false,
    });
  });

  it('takes Go durations (1h30m, 90s) and a percent budget', () => {
    const r = parseFleetRollout(
      withSpec({
        progressDeadline: '1h30m',
        waves: [{ name: 'a', soak: '90s' }],
        failureBudget: { maxFailedClusters: '10%' },
      }),
    );
    expect([r.spec.progressDeadlineMs, r.spec.waves[0]?.soakMs, r.spec.maxFailedClusters]).toEqual([
      5_400_000,
      90_000,
      { percent: 10 },
    ]);
  });

  it.each([
    {
      name: 'an unknown target kind',
      spec: { target: { kind: 'ReplicaSet', namespace: 'shop', name: 'web' } },
      line: 'spec.target.kind: must be Deployment, StatefulSet or DaemonSet',
    },
    {
      name: 'a bad duration',
      spec: { progressDeadline: '5 minutes' },
      line: 'spec.progressDeadline: "5 minutes" is not a duration like 90s, 10m or 1h30m',
    },
    {
      name: 'a bad percent',
      spec: { waves: [{ name: 'a', maxConcurrency: '150%' }] },
      line: 'spec.waves[0].maxConcurrency: "150%" is not a count or a percent from 0% to 100%',
    },
    {
      name: 'zero concurrency',
      spec: { waves: [{ name: 'a', maxConcurrency: 0 }] },
      line: 'spec.waves[0].maxConcurrency: must admit at least one cluster',
    },
    {
      name: 'duplicate wave names',
      spec: { waves: [{ name: 'a', clusters: {} }, { name: 'a' }] },
      line: 'spec.waves[1].name: duplicate wave name a',
    },
    {
      name: 'a wave without clusters before the last',
      spec: { waves: [{ name: 'a' }, { name: 'b' }] },
      line: 'spec.waves[0].clusters: only the last wave may leave out clusters',
    },
    { name: 'no waves', spec: { waves: [] }, line: 'spec.waves: must list at least one wave' },
    { name: 'an unknown onFailure', spec: { onFailure: 'Retry' }, line: 'spec.onFailure: must be Rollback or Pause' },
    { name: 'an unknown field', spec: { pause: true }, line: 'spec: ' },
    {
      name: 'a bad label key in a selector',
      spec: { clusters: { matchLabels: { 'a/b/c': 'x' } } },
      line: 'spec.clusters.matchLabels.a/b/c: label key "a/b/c"',
    },
  ])('refuses $name, naming the field', ({ spec, line }) => {
    expect(() => parseFleetRollout(withSpec(spec))).toThrow(FleetRolloutError);
    expect(() => parseFleetRollout(withSpec(spec))).toThrow(`invalid FleetRollout fleetq-system/web\n  ${line}`);
  });

  it('refuses a malformed ledger in status, naming the field', () => {
    const status = {
      revisions: [{ revision: 'r2', attempt: 1, startedAt: 'yesterday', phase: 'Progressing', wave: '', clusters: [] }],
    };
    expect(() => parseFleetRollout({ ...EXAMPLE, status })).toThrow(
      'status.revisions[0].startedAt: must be an RFC 3339 time',
    );
  });

  it('refuses a ledger entry with two records of one cluster', () => {
    const record = { cluster: 'c0', wave: 'canary' };
    const status = {
      revisions: [
        {
          revision: 'r2',
          attempt: 1,
          startedAt: '2026-01-01T00:00:00Z',
          phase: 'Progressing',
          wave: 'canary',
          clusters: [record, { cluster: 'c1', wave: 'canary' }, record],
        },
      ],
    };
    expect(() => parseFleetRollout({ ...EXAMPLE, status })).toThrow(
      'status.revisions[0].clusters[2].cluster: a second record of cluster c0',
    );
  });

  it('refuses another kind of object', () => {
    expect(() => parseFleetRollout({ ...EXAMPLE, kind: 'Deployment' })).toThrow('kind: must be FleetRollout');
    expect(() => parseFleetRollout(null)).toThrow('invalid FleetRollout\n  (root)');
  });
});
