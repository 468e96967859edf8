// The quarantine's Redis values (cluster-quarantine.ts) are read back untrusted: what parses, what is treated as
// absent, and which clusters are quarantined at a given server time.
import { describe, expect, it } from '@jest/globals';
import {
  parseDeathRecord,
  parseDeathRecords,
  parseSyncingMark,
  quarantinedAt,
  remedy,
  syncingMark,
} from '../../../shared/forwarder/cluster-quarantine.js';

const NOW = Date.parse('2026-12-05T07:00:00Z');
const report = '{"holder":"host/12/ab","resource":"deployments","object":"tenant/big-7"}';

describe('syncing marks', () => {
  it('round-trips the largest object a holder reports', () => {
    const mark = syncingMark(42, {
      holder: 'host/12/ab',
      resource: 'deployments',
      object: 'tenant/big-7',
      bytes: 262_144,
    });
    expect(mark).toBe(`42|262144|${report}`);
    expect(parseSyncingMark(mark)).toEqual({
      token: 42,
      largest: { holder: 'host/12/ab', resource: 'deployments', object: 'tenant/big-7', bytes: 262_144 },
    });
  });

  it('caps the report fields it writes', () => {
    const mark = syncingMark(1, { holder: 'h', object: 'x'.repeat(5_000), bytes: 1 });
    expect((parseSyncingMark(mark)?.largest?.object ?? '').length).toBe(300);
  });

  it.each([
    { name: 'empty', value: '' },
    { name: 'no bytes', value: '42|{"holder":"h"}' },
    { name: 'a token that is not a number', value: 'x|0|{"holder":"h"}' },
    { name: 'a negative token', value: '-1|0|{"holder":"h"}' },
    { name: 'a token of 16 digits', value: '1234567890123456|0|{"holder":"h"}' },
  ])('$name: no mark', ({ value }) => expect(parseSyncingMark(value)).toBeUndefined());

  it('a report that is not JSON, or names no holder, leaves the mark without a largest object', () => {
    expect(parseSyncingMark('7|10|not json')).toEqual({ token: 7 });
    expect(parseSyncingMark('7|10|{"resource":"pods"}')).toEqual({ token: 7 });
    expect(parseSyncingMark('7|10|["h"]')).toEqual({ token: 7 });
    expect(parseSyncingMark('7|10|{"holder":5,"object":{}}')).toEqual({ token: 7 });
  });
});

describe('death records', () => {
  it('parses the count, the quarantine times and the largest object', () => {
    expect(parseDeathRecord(`3|${NOW}|${NOW + 3_600_000}|262144|${report}`)).toEqual({
      deaths: 3,
      sinceMs: NOW,
      untilMs: NOW + 3_600_000,
      largest: { holder: 'host/12/ab', resource: 'deployments', object: 'tenant/big-7', bytes: 262_144 },
    });
    expect(parseDeathRecord('1|0|0|0|{"holder":"h"}')).toEqual({
      deaths: 1,
      sinceMs: 0,
      untilMs: 0,
      largest: { holder: 'h', bytes: 0 },
    });
  });

  it.each([
    { name: 'garbage', value: 'garbage' },
    { name: 'a field missing', value: '3|0|0|{"holder":"h"}' },
    { name: 'a float', value: '3|0|1.5e15|0|{}' },
    { name: 'until of 16 digits (could never end)', value: '3|0|9999999999999999|0|{}' },
  ])('$name: treated as absent', ({ value }) => expect(parseDeathRecord(value)).toBeUndefined());

  it('HGETALL with unreadable values: those clusters are named, the others kept', () => {
    const { records, unreadable } = parseDeathRecords([
      'stuck',
      `3|${NOW - 1_000}|${NOW + 1_000}|0|{"holder":"h"}`,
      'over',
      `4|${NOW - 5_000}|${NOW - 1}|0|{"holder":"h"}`,
      'counting',
      '1|0|0|0|{"holder":"h"}',
      'bad',
      'x|y',
      'odd',
    ]);
    expect([...records.keys()]).toEqual(['stuck', 'over', 'counting']);
    expect(unreadable).toEqual(['bad']);
    expect([...quarantinedAt(records, NOW).keys()]).toEqual(['stuck']);
  });

  it('tells the operator how to lift it', () => {
    expect(remedy('stuck')).toContain('fleetq forwarder unquarantine stuck');
  });
});
