// A file given as a log is refused before it is read when it cannot be one: missing, a directory, empty,
// binary. The message names the file and says what is wrong.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { checkLogInput, noRecordsMessage } from '../../../shared/replay/log-input.js';
import { formatStats } from '../../../shared/replay/log-stats.js';

describe('checkLogInput', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-log-input-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('accepts a JSON-lines file', async () => {
    const file = join(dir, 'ok.jsonl');
    await writeFile(file, '{"v":1}\n');
    await expect(checkLogInput(file)).resolves.toBeUndefined();
  });

  it.each([
    ['missing', async (f: string) => f, /missing\.jsonl: no such file$/],
    ['empty', async (f: string) => writeFile(f, ''), /empty\.jsonl: empty file, no log records/],
    [
      'binary',
      async (f: string) => writeFile(f, Buffer.from([0x7b, 0x00, 0x01])),
      /binary\.jsonl: a binary file \(a NUL byte at offset 1\)/,
    ],
    ['gzip', async (f: string) => writeFile(f, gzipSync('{"v":1}\n')), /gzip\.jsonl: a binary file .*gunzip it first/],
  ])('refuses a %s file, naming it', async (name, make, want) => {
    const file = join(dir, `${name}.jsonl`);
    await make(file);
    await expect(checkLogInput(file)).rejects.toThrow(want);
  });

  it('refuses a directory, pointing at --store jsonl:', async () => {
    await expect(checkLogInput(dir)).rejects.toThrow(
      `${dir}: a directory, not a log file (a JSON-lines store is --store jsonl:${dir})`,
    );
  });

  it('says why a file held no record', () => {
    expect(noRecordsMessage('f.jsonl', 0, undefined)).toBe('f.jsonl: no log records');
    expect(noRecordsMessage('f.jsonl', 3, 'f.jsonl:1: not JSON')).toBe(
      'f.jsonl: no readable log records (3 line(s) are not log records; first: f.jsonl:1: not JSON). Give a file `fleetq log export` wrote',
    );
  });
});

describe('formatStats', () => {
  it('is a table of resources by event type with totals, then the count and span', () => {
    const text = formatStats({
      records: 5,
      firstAt: 0,
      lastAt: 1000,
      counts: { pods: { ADDED: 2, MODIFIED: 1 }, deployments: { LISTED: 2 } },
    });
    const rows = text.split('\n');
    expect(rows[1]).toMatch(/│ RESOURCE\s+│ LISTED │ ADDED │ MODIFIED │ DELETED │ TOTAL │/);
    expect(text).toMatch(
      /│ deployments │ 2\s+│ 0\s+│ 0\s+│ 0\s+│ 2\s+│[\s\S]*│ pods\s+│ 0\s+│ 2\s+│ 1\s+│ 0\s+│ 3\s+│/,
    );
    expect(rows.at(-1)).toBe('5 record(s), 1970-01-01T00:00:00.000Z .. 1970-01-01T00:00:01.000Z');
  });
});
