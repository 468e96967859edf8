// `fleetq dlq list|show` print dead-letter reasons that carry apiserver text verbatim, and raw message bodies from
// the queue: neither may reach the terminal as control sequences (ANSI CSI/OSC, 8-bit C1, bidi overrides), and
// neither may flood it. Table cells are escaped visibly and capped; JSON is escaped (\uXXXX, the same value for a
// JSON reader) and, in list mode, long texts are capped.
import { describe, expect, it } from '@jest/globals';
import type { DeadLetter } from '../../../shared/queue/work-queue.js';
import { formatDeadLetters, formatDeadLettersJson } from '../../../shared/replay/dead-letters.js';
import { displayText, terminalSafeJson } from '../../../shared/ops/terminal-text.js';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const HOSTILE =
  'admission webhook denied: \x1b]0;owned\x07\x1b[2J\x1b[1;1H\u009b31mred\u009b0m \u202eevil\u202c ' +
  '\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 line\r\nbreak\x00nul\x7f';
// What a terminal acts on: C0 but the newline between rows, DEL, C1, separators, bidi controls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]/;

const letters: DeadLetter[] = [
  {
    key: { cluster: 'c1', kind: 'Deployment', namespace: 'ns', name: 'web' },
    reason: HOSTILE + 'x'.repeat(50_000),
    failures: 1,
    at: NOW - 60_000,
  },
  { key: null, raw: '\u009b2J\x1b[31m' + 'y'.repeat(5_000), reason: 'not a key\x1b[5m', failures: 0, at: NOW },
];

describe('dead-letter display', () => {
  it('escapes control sequences in the table and caps each cell', () => {
    const table = formatDeadLetters(letters, NOW);
    expect(table).not.toMatch(TERMINAL_ACTIVE);
    const rows = table.split('\n');
    expect(rows).toHaveLength(4); // header, two letters, count: no line break from the data
    for (const row of rows) expect(Array.from(row).length).toBeLessThan(400);
    // Shown, as inert text, rather than dropped: an operator sees what the apiserver sent.
    expect(rows[1]).toContain('admission webhook denied: \\x1b]0;owned\\x07\\x1b[2J');
    expect(rows[1]).toContain('\\u202eevil');
    expect(rows[1]).toMatch(/…\(\+\d+\)$/);
    expect(rows[2]).toContain('\\x9b2J');
  });

  it('escapes JSON too: the same value for a reader, inert on a terminal; list mode caps long texts', () => {
    const show = formatDeadLettersJson(letters, 'show');
    for (const text of show) expect(text).not.toMatch(TERMINAL_ACTIVE); // indented: newlines only
    expect(show.map((j) => JSON.parse(j) as DeadLetter)).toEqual(letters);
    const lines = formatDeadLettersJson(letters, 'list');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toMatch(TERMINAL_ACTIVE);
      expect(line.length).toBeLessThan(12_000);
    }
    const first = JSON.parse(lines[0] ?? '') as DeadLetter;
    expect(first.reason.startsWith(HOSTILE)).toBe(true);
    expect(first.reason).toMatch(/…\(\+\d+\)$/);
    expect(first.key).toEqual(letters[0]?.key);
  });

  it.each([
    { name: 'CSI and OSC', text: '\x1b[31mred\x1b]0;t\x07', want: '\\x1b[31mred\\x1b]0;t\\x07' },
    { name: '8-bit CSI', text: '\u009b2J', want: '\\x9b2J' },
    { name: 'bidi override', text: 'a\u202eb', want: 'a\\u202eb' },
    { name: 'white space', text: ' a\r\n\tb ', want: 'a b' },
    { name: 'a long text', text: 'z'.repeat(30), max: 10, want: 'zzzz…(+26)' },
    { name: 'an astral character at the cut', text: '😀'.repeat(12), max: 10, want: '😀😀😀😀…(+8)' },
  ])('displayText: $name', ({ text, max, want }) => expect(displayText(text, max)).toBe(want));

  it('terminalSafeJson keeps the value', () => {
    const v = { s: '\u009b\u202e\u2028\x1b' };
    expect(terminalSafeJson(v)).toBe('{"s":"\\u009b\\u202e\\u2028\\u001b"}');
    expect(JSON.parse(terminalSafeJson(v))).toEqual(v);
  });
});
