// intstr.GetScaledValueFromIntOrPercent (common/int-or-percent.ts) and the wire time helpers (common/wire-time.ts)
// every controller shares.
import { describe, expect, it } from '@jest/globals';
import { scaledValue } from '../../../../shared/controllers/common/int-or-percent.js';
import { timeMs, wireTime } from '../../../../shared/controllers/common/wire-time.js';

describe('scaledValue (GetScaledValueFromIntOrPercent)', () => {
  it.each([
    { name: 'an int as it is', v: 3, total: 10, roundUp: false, want: 3 },
    { name: '25% of 10 rounded up', v: '25%', total: 10, roundUp: true, want: 3 },
    { name: '25% of 10 rounded down', v: '25%', total: 10, roundUp: false, want: 2 },
    { name: '0% of 7', v: '0%', total: 7, roundUp: true, want: 0 },
    { name: '+50% of 3 (Atoi takes a sign)', v: '+50%', total: 3, roundUp: false, want: 1 },
    { name: '-10% of 25 rounded down', v: '-10%', total: 25, roundUp: false, want: -3 },
    { name: 'a string without %', v: '5', total: 10, roundUp: true, want: null },
    { name: 'not a number before %', v: 'x%', total: 10, roundUp: true, want: null },
    { name: 'a bare %', v: '%', total: 10, roundUp: true, want: null },
  ])('$name → $want', ({ v, total, roundUp, want }) => {
    expect(scaledValue(v, total, roundUp)).toBe(want);
  });
});

describe('wire time', () => {
  it('wireTime: RFC 3339 in whole seconds, UTC, from a Date or milliseconds', () => {
    expect(wireTime(new Date('2025-03-04T05:06:07.890Z'))).toBe('2025-03-04T05:06:07Z');
    expect(wireTime(Date.parse('2025-03-04T05:06:07.890Z'))).toBe('2025-03-04T05:06:07Z');
  });

  it.each([
    { name: 'a string', t: '2025-01-01T00:00:01Z', want: Date.parse('2025-01-01T00:00:01Z') },
    { name: 'an offset', t: '2025-01-01T01:00:01+01:00', want: Date.parse('2025-01-01T00:00:01Z') },
    { name: 'absent', t: undefined, want: undefined },
    { name: 'null', t: null, want: undefined },
    { name: 'garbage', t: 'yesterday-ish', want: undefined },
  ])('timeMs of $name', ({ t, want }) => {
    expect(timeMs(t)).toBe(want);
  });
});
