// The `fleetq status` table: one row per cluster, unknowns as '-', numbers right-aligned, notes after.
import { describe, expect, it } from '@jest/globals';
import {
  formatAge,
  formatLatency,
  formatStatus,
  type ClusterStatus,
  type FleetStatus,
} from '../../../shared/ops/status.js';

const row = (cluster: string, o: Partial<ClusterStatus> = {}): ClusterStatus => ({
  cluster,
  forwarder: null,
  forwarderToken: null,
  lastEventAgeMs: null,
  depth: 0,
  oldestReadyAgeMs: null,
  oldestReadyLowerBound: false,
  inFlight: 0,
  backoff: 0,
  deadLetters: 0,
  reconcilesPerSec: null,
  errorsPerSec: null,
  ...o,
});

const status = (clusters: ClusterStatus[], notes: string[] = []): FleetStatus => ({
  at: '2026-12-03T16:00:00.000Z',
  driver: 'redis',
  queue: 'fleetq',
  rateWindowMs: 65_000,
  clusters,
  notes,
});

describe('formatStatus', () => {
  it("lists the pool's members with their registry digests and marks one on an old registry", () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const text = formatStatus({
      ...status([row('eu-1')]),
      forwarders: [
        { holder: 'host-a/1/x', digest: a, ttlMs: 9_000, current: true },
        { holder: 'host-b/2/y', digest: b, ttlMs: 9_000, current: false },
        { holder: 'old-version/3/z', digest: null, ttlMs: 9_000, current: false },
      ],
    });
    expect(text.split('\n').slice(-4)).toEqual([
      'FORWARDER        REGISTRY',
      'host-a/1/x       aaaaaaaaaaaa',
      'host-b/2/y       bbbbbbbbbbbb  old',
      'old-version/3/z  none          old',
    ]);
  });

  it('lists the quarantined clusters with deaths, since, until and the largest object; their row says so', () => {
    const text = formatStatus({
      ...status([row('eu-1', { forwarder: 'host-a/1/x' }), row('stuck')]),
      quarantined: [
        {
          cluster: 'stuck',
          deaths: 3,
          sinceMs: Date.parse('2026-12-03T15:30:00Z'),
          untilMs: Date.parse('2026-12-03T16:30:00Z'),
          since: '2026-12-03T15:30:00.000Z',
          until: '2026-12-03T16:30:00.000Z',
          largestObject: { resource: 'deployments', object: 'tenant/big\u001b[2J', bytes: 262_144, holder: 'h/1/x' },
        },
        {
          cluster: 'quiet',
          deaths: 4,
          sinceMs: 0,
          untilMs: 1,
          since: '1970-01-01T00:00:00.000Z',
          until: '1970-01-01T00:00:00.001Z',
          largestObject: null,
        },
      ],
    });
    const lines = text.split('\n');
    expect(lines.find((l) => l.startsWith('stuck '))?.split(/\s{2,}/)[1]).toBe('(quarantined)');
    const head = lines.findIndex((l) => l.startsWith('QUARANTINED'));
    expect(lines[head]?.split(/\s{2,}/)).toEqual(['QUARANTINED', 'DEATHS', 'SINCE', 'UNTIL', 'LARGEST OBJECT']);
    expect(lines[head + 1]?.split(/\s{2,}/)).toEqual([
      'stuck',
      '3',
      '2026-12-03T15:30:00.000Z',
      '2026-12-03T16:30:00.000Z',
      'deployments tenant/big\\x1b[2J (262144 bytes)',
    ]);
    expect(lines[head + 2]?.split(/\s{2,}/).at(-1)).toBe('none reported');
    expect(text).not.toContain('\u001b');
  });

  it('prints names and notes read from Redis inert and redacted', () => {
    const text = formatStatus({
      ...status([row('eu-1', { forwarder: 'evil\u001b]52;c;AAAA\u0007/1/x' })]),
      notes: ['Redis at REDIS_URL not readable (Error: connect rediss://:hunter2-pass@redis:6379 \u001b[2J)'],
      forwarders: [{ holder: 'h\u001b[31m/1/x', digest: null, ttlMs: 1_000, current: true }],
    });
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('hunter2-pass');
    expect(text).toContain('evil\\x1b]52;c;AAAA\\x07/1/x');
    expect(text).toContain('h\\x1b[31m/1/x');
  });

  it('prints a header and one aligned row per cluster', () => {
    const text = formatStatus(
      status([
        row('eu-1', {
          forwarder: 'host/12/ab',
          lastEventAgeMs: 2_400,
          depth: 3,
          oldestReadyAgeMs: 1_500,
          inFlight: 12,
          reconcilesPerSec: 4.2,
          errorsPerSec: 0,
        }),
        row('us-2', {
          depth: 250,
          oldestReadyAgeMs: 600_000,
          oldestReadyLowerBound: true,
          backoff: 1,
          deadLetters: 2,
          reconcilesPerSec: 150,
          errorsPerSec: 0.05,
        }),
        row('ap-3', { depth: 2 }),
      ]),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('queue fleetq (redis) at 2026-12-03T16:00:00.000Z, rates over 65s');
    expect(lines[1]?.split(/\s{2,}/)).toEqual([
      'CLUSTER',
      'FORWARDER',
      'LAST EVENT',
      'DEPTH',
      'LATENCY',
      'IN FLIGHT',
      'BACKOFF',
      'DEAD',
      'REC/S',
      'ERR/S',
    ]);
    expect(lines[2]?.split(/\s{2,}/)).toEqual([
      'eu-1',
      'host/12/ab',
      '2s ago',
      '3',
      '2s',
      '12',
      '0',
      '0',
      '4.20',
      '0.00',
    ]);
    // A lower bound (more ready keys than status reads) is marked; a cluster with only delayed keys shows none.
    expect(lines[3]?.split(/\s{2,}/)).toEqual(['us-2', '-', '-', '250', '≥10m', '0', '1', '2', '150', '0.05']);
    expect(lines[4]?.split(/\s{2,}/)).toEqual(['ap-3', '-', '-', '2', '-', '0', '0', '0', '-', '-']);
    // Right-aligned numbers: the DEPTH column ends at the same place on every line.
    const end = (l: string | undefined): number => (l ?? '').indexOf('DEPTH') + 'DEPTH'.length;
    expect(lines[2]?.[end(lines[1]) - 1]).toBe('3');
  });

  it('shows unknown figures as - and the notes last', () => {
    const text = formatStatus(
      status([row('*', { depth: 7, inFlight: 1, backoff: null, deadLetters: 4 })], ['sqs: approximate']),
    );
    expect(text.split('\n')[2]?.split(/\s{2,}/)).toEqual(['*', '-', '-', '7', '-', '1', '-', '4', '-', '-']);
    expect(text.split('\n').at(-1)).toBe('note: sqs: approximate');
  });

  it('-o wide shows LATENCY too, with the forwarder token last', () => {
    const text = formatStatus(status([row('eu-1', { depth: 1, oldestReadyAgeMs: 450, forwarderToken: 7 })]), {
      wide: true,
    });
    const [header, line] = text
      .split('\n')
      .slice(1, 3)
      .map((l) => l.split(/\s{2,}/));
    expect(header?.slice(3, 5)).toEqual(['DEPTH', 'LATENCY']);
    expect(header?.at(-1)).toBe('TOKEN');
    expect(line?.slice(3, 5)).toEqual(['1', '450ms']);
    expect(line?.at(-1)).toBe('7');
  });

  it('-o wide shows the tokens that wrote for a cluster before its lease token, the last five', () => {
    const text = formatStatus(
      status([
        row('eu-1', { forwarderToken: 7, forwarderWriters: [3, 7] }),
        row('eu-2', { forwarderToken: 9, forwarderWriters: [1, 2, 4, 5, 8, 9] }),
        row('eu-3'),
      ]),
      { wide: true },
    );
    const cells = text
      .split('\n')
      .slice(1, 5)
      .map((l) =>
        l
          .trim()
          .split(/\s{2,}/)
          .slice(-2),
      );
    expect(cells).toEqual([
      ['WRITERS', 'TOKEN'],
      ['3,7', '7'],
      ['…2,4,5,8,9', '9'],
      ['-', '-'],
    ]);
  });

  it('says so when there is no cluster at all', () => {
    expect(formatStatus(status([]))).toMatch(/no clusters: nothing queued and no registry given/);
  });
});

describe('formatAge', () => {
  it.each([
    [null, '-'],
    [450, '450ms'],
    [2_400, '2s'],
    [119_000, '119s'],
    [600_000, '10m'],
    [3 * 3_600_000, '3h'],
  ])('%p → %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});

describe('formatLatency', () => {
  it.each([
    { name: 'no ready key', age: null, lowerBound: false, text: '-' },
    { name: 'under a second', age: 12, lowerBound: false, text: '12ms' },
    { name: 'seconds', age: 42_400, lowerBound: false, text: '42s' },
    { name: 'a lower bound', age: 3 * 3_600_000, lowerBound: true, text: '≥3h' },
  ])('$name → $text', ({ age, lowerBound, text }) =>
    expect(formatLatency({ oldestReadyAgeMs: age, oldestReadyLowerBound: lowerBound })).toBe(text),
  );
});
