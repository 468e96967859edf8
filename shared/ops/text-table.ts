// The tables `fleetq status` and `fleetq dlq list` print: cli-table3 without borders, columns two spaces apart,
// the way kubectl prints (a script may split a line on runs of two spaces). The header is bold only when the
// caller says the output is a terminal that takes colour (textStyle); cells are the caller's, already made inert.
import { styleText } from 'node:util';
import Table from 'cli-table3';

export type Align = 'left' | 'right';

/** How headings are shown: bold on a terminal that takes colour, plain text anywhere else. */
export type TextStyle = { readonly heading: (text: string) => string };

export const PLAIN: TextStyle = { heading: (text) => text };

/**
 * The style for `stream`: bold headings when it is a terminal that takes colour (Node's own test: not a TTY,
 * NO_COLOR, NODE_DISABLE_COLORS or TERM=dumb turn it off), plain otherwise.
 */
export function textStyleFor(stream: NodeJS.WriteStream): TextStyle {
  return { heading: (text) => styleText('bold', text, { validateStream: true, stream }) };
}

/** The style that always colours (for tests, and a caller that checked the terminal itself). */
export const COLOURED: TextStyle = { heading: (text) => styleText('bold', text, { validateStream: false }) };

const NO_BORDER = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** Rows under a header, columns aligned (`align[i]`, default left), no line with trailing spaces. */
export function textTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  o: { readonly align?: readonly Align[]; readonly style?: TextStyle } = {},
): string {
  const style = o.style ?? PLAIN;
  const table = new Table({
    chars: NO_BORDER,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    head: header.map((h) => style.heading(h)),
    colAligns: header.map((_, i) => o.align?.[i] ?? 'left'),
    wordWrap: false,
  });
  for (const row of rows) table.push([...row]);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
