import { describe, expect, it } from '@jest/globals';
import { parseInstant } from '../../../shared/replay/time-window.js';

const T = Date.parse('2025-12-03T12:00:00Z');

describe('--since / --until as a Unix time', () => {
  it.each([
    { name: '10 digits are Unix seconds', text: '1764763200', want: T },
    { name: '13 digits are epoch milliseconds', text: '1764763200000', want: T },
    { name: '13 digits keep their milliseconds', text: '1764763200123', want: T + 123 },
  ])('$name', ({ text, want }) => expect(parseInstant(text, '--since', T)).toBe(want));

  it.each(['176476320', '17647632000', '176476320000', '17647632000000'])(
    'refuses %s: neither 10 digits (seconds) nor 13 (milliseconds)',
    (text) => expect(() => parseInstant(text, '--since', T)).toThrow(/--since .*10 digits.*seconds.*13.*milliseconds/),
  );
});
