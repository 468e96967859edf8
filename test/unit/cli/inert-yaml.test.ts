// -o yaml of the queue commands (shared/ops/terminal-text.ts inertYaml): text from Redis or a cluster is printed
// with every character a terminal acts on escaped, and still reads back as the same value.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { inertYaml } from '../../../shared/ops/terminal-text.js';

describe('inertYaml', () => {
  it('escapes C0, C1 (8-bit CSI) and bidi controls, and reads back as the same data', async () => {
    const data = { reason: 'x\u001b[2Jy \u009b31m \u202e', lines: 'one\ntwo', n: 3, none: null };
    const text = await inertYaml(data);
    // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text).toContain('reason: "x\\u001b[2Jy \\u009b31m \\u202e"');
    expect(text).toContain('lines: "one\\ntwo"');
    expect(parse(text)).toEqual(data);
  });
});
