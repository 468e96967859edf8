import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { PodTemplateSpec } from '../../../../shared/kube/api/objects.js';
import { parseGoQuantity } from '../../../../shared/controllers/common/go-quantity.js';
import { fnv32a, safeEncodeString } from '../../../../shared/controllers/common/hash-encoding.js';
import { computeHash, dumpForHash } from '../../../../shared/controllers/common/pod-template-hash.js';

type GoldenCase = {
  name: string;
  template: PodTemplateSpec;
  collisionCount?: number;
  goHash: string;
  goDump: string;
  upstreamHash?: string;
};

const golden = JSON.parse(readFileSync(new URL('./fixtures/hash-golden.json', import.meta.url), 'utf8')) as {
  cases: GoldenCase[];
};

describe('pod-template-hash (golden: kube-controller-manager 1.37.2 and the Go printer)', () => {
  it.each(golden.cases)('$name: same dump as Go', ({ template, goDump }) => {
    expect(dumpForHash(template)).toBe(goDump);
  });
  it.each(golden.cases)('$name: same hash as Go and upstream', ({ template, collisionCount, goHash, upstreamHash }) => {
    const hash = computeHash(template, collisionCount);
    expect(hash).toBe(goHash);
    if (upstreamHash !== undefined) expect(hash).toBe(upstreamHash);
  });

  it('changes with collisionCount and is stable', () => {
    const t = golden.cases[0]?.template ?? {};
    expect(computeHash(t, 1)).not.toBe(computeHash(t, 2));
    expect(computeHash(t, 1)).toBe(computeHash(t, 1));
    expect(computeHash(t)).not.toBe(computeHash(t, 0));
  });
});

describe('hash building blocks', () => {
  it.each([
    { name: 'empty input', bytes: '', want: 0x811c9dc5 },
    { name: '"a"', bytes: 'a', want: 0xe40c292c },
    { name: '"foobar"', bytes: 'foobar', want: 0xbf9cf968 },
  ])('fnv32a $name', ({ bytes, want }) => expect(fnv32a(Buffer.from(bytes))).toBe(want));

  it('SafeEncodeString maps each byte into the vowel-free alphabet', () => {
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it.each([
    { q: '100m', want: { kind: 'int', value: 100n, scale: -3, s: '100m', format: 'DecimalSI' } },
    { q: '128Mi', want: { kind: 'int', value: 134217728n, scale: 0, s: '', format: 'BinarySI' } },
    { q: '3Mi', want: { kind: 'int', value: 3145728n, scale: 0, s: '3Mi', format: 'BinarySI' } },
    { q: '1536Mi', want: { kind: 'int', value: 1610612736n, scale: 0, s: '', format: 'BinarySI' } },
    { q: '1k', want: { kind: 'int', value: 1n, scale: 3, s: '1k', format: 'DecimalSI' } },
    { q: '1000', want: { kind: 'int', value: 1000n, scale: 0, s: '', format: 'DecimalSI' } },
    { q: '0', want: { kind: 'int', value: 0n, scale: 0, s: '0', format: 'DecimalSI' } },
    { q: '2Pi', want: { kind: 'dec', unscaled: 2251799813685248000000000n, scale: 9, format: 'BinarySI' } },
  ])('ParseQuantity internals of $q', ({ q, want }) => expect(parseGoQuantity(q)).toEqual(want));
});
