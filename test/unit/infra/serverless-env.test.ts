// serverless.yml's function environments set only variables something reads: fleetq's code (shared/, functions/)
// or, for the few listed here, the AWS SDK. A variable nothing reads is a setting an operator would change to no
// effect (FLEETQ_MAX_FAILURES was one: fleetq retries without end and dead-letters terminal failures only).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Read by the AWS SDK, not by fleetq's code. */
const READ_BY_SDK = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);

/** The variable names of every `environment:` block (provider and functions). */
function environmentNames(yml: string): string[] {
  const names = new Set<string>();
  let indent: number | undefined;
  for (const line of yml.split('\n')) {
    const depth = line.length - line.trimStart().length;
    if (/^\s*environment:\s*$/.test(line)) {
      indent = depth;
      continue;
    }
    if (indent === undefined || line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (depth <= indent) {
      indent = undefined;
      continue;
    }
    const m = /^\s*([A-Z][A-Z0-9_]*):/.exec(line);
    if (m?.[1]) names.add(m[1]);
  }
  return [...names];
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [readFileSync(join(dir, e.name), 'utf8')]
        : [],
  );
}

describe('serverless.yml environment', () => {
  it('sets only variables that something reads', () => {
    const names = environmentNames(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'));
    expect(names).toEqual(expect.arrayContaining(['FLEETQ_DRIVER', 'SQS_WORK_URL', 'FLEETQ_SECRET_ID']));
    const code = [...sources(join(ROOT, 'shared')), ...sources(join(ROOT, 'functions'))].join('\n');
    const unread = names.filter((n) => !READ_BY_SDK.has(n) && !new RegExp(`\\b${n}\\b`).test(code));
    expect(unread).toEqual([]);
  });
});
