// Text from a cluster, Redis or a log file, made safe to print on an operator's terminal. An apiserver's error
// message, a dead-lettered message body or an object name is untrusted: it may carry escape sequences that
// recolour, retitle or clear the terminal, move the cursor over earlier output, or (OSC 52) write the clipboard.
// - displayText: one line for a table cell. Every control character (C0 including ESC, DEL, C1 including the
//   8-bit CSI U+009B, the line and paragraph separators, and the bidirectional overrides that reorder what is
//   shown) is written as a visible escape (`\x1b`, `\u009b`, `\u202e`), so an escape sequence shows as inert
//   text; white space runs become one space; the result is cut to `max` characters with a `…(+N)` marker.
// - terminalSafeJson: JSON.stringify, with the characters JSON leaves raw (DEL, C1, separators, bidi) escaped
//   as \uXXXX too: the same value for a JSON reader, inert on a terminal.

/** DEL, C1 controls, the line/paragraph separators and the bidi embedding, override and isolate controls. */
const JSON_RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/** What displayText escapes: every C0 control (white space is folded first) and the JSON_RAW_UNSAFE ones. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const DISPLAY_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

const hex = (c: string, width: number): string => (c.codePointAt(0) ?? 0).toString(16).padStart(width, '0');

/** One line of `text` fit for a terminal: controls escaped visibly, white space folded, at most `max` characters. */
export function displayText(text: string, max = 200): string {
  const folded = text.replace(/[\t\n\v\f\r \u0085\u00a0\u2028\u2029]+/g, ' ').trim();
  return capText(
    folded.replace(DISPLAY_UNSAFE, (c) => (c <= '\u00ff' ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`)),
    max,
  );
}

/** JSON.stringify(value, null, indent) with every character a terminal could act on escaped as \uXXXX. */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW_UNSAFE, (c) => `\\u${hex(c, 4)}`);
}

/** `s` cut to at most `max` characters (code points), ending in a `…(+N)` marker saying how many were cut. */
export function capText(s: string, max: number): string {
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  const room = Math.max(0, max - `…(+${chars.length})`.length);
  return `${chars.slice(0, room).join('')}…(+${chars.length - room})`;
}

/** Characters YAML leaves raw that a terminal acts on (DEL, C1 such as the 8-bit CSI, separators, bidi controls). */
const YAML_RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * `data` as YAML safe to print: every string double-quoted with JSON's escapes, and the characters the yaml
 * library leaves raw escaped as \uXXXX (inside double quotes: the same value for a YAML reader).
 */
export async function inertYaml(data: unknown): Promise<string> {
  const { stringify } = await import('yaml');
  return stringify(data, {
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'PLAIN',
    doubleQuotedAsJSON: true,
    lineWidth: 0,
  }).replace(YAML_RAW_UNSAFE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
