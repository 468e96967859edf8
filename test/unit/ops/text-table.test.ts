// The tables of `fleetq status` and `fleetq dlq list` (shared/ops/text-table.ts): columns two spaces apart,
// aligned as asked, no trailing spaces, and bold headings only when colour is asked for.
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { COLOURED, PLAIN, textTable, textStyleFor } from '../../../shared/ops/text-table.js';

describe('textTable', () => {
  it('aligns columns two spaces apart, numbers right, with no trailing spaces', () => {
    expect(
      textTable(
        ['CLUSTER', 'DEPTH', 'NOTE'],
        [
          ['eu-1', '3', 'ok'],
          ['us-east-2', '120', ''],
        ],
        { align: ['left', 'right', 'left'] },
      ).split('\n'),
    ).toEqual(['CLUSTER    DEPTH  NOTE', 'eu-1           3  ok', 'us-east-2    120']);
  });

  it('makes the heading bold when coloured, and only then', () => {
    expect(textTable(['KEY'], [['a']], { style: COLOURED })).toBe('\u001b[1mKEY\u001b[22m\na');
    expect(textTable(['KEY'], [['a']], { style: PLAIN })).toBe('KEY\na');
  });

  it('takes no colour for a stream that is not a terminal', () => {
    const pipe = new PassThrough() as unknown as NodeJS.WriteStream; // a pipe: no isTTY
    expect(textStyleFor(pipe).heading('KEY')).toBe('KEY');
  });
});
