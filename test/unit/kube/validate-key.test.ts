import { describe, expect, it } from '@jest/globals';
import { MAX_KEY_LENGTH, MalformedKeyError, keyString, parseKey, validateKey } from '../../../shared/kube/key.js';

const key = (o: Partial<Record<'cluster' | 'kind' | 'namespace' | 'name', unknown>>) =>
  ({ cluster: 'eu-1', kind: 'Deployment', namespace: 'web', name: 'api', ...o }) as Parameters<typeof validateKey>[0];

describe('validateKey', () => {
  it.each([
    { name: 'namespaced', k: key({}) },
    { name: 'cluster-scoped', k: key({ kind: 'Node', namespace: '' }) },
    { name: 'dotted name', k: key({ name: 'app.config-1' }) },
    { name: '253-character name', k: key({ name: `${'a'.repeat(126)}.${'b'.repeat(126)}` }) },
    { name: '63-character namespace', k: key({ namespace: 'n'.repeat(63) }) },
    {
      name: 'the longest key',
      k: key({ cluster: 'c'.repeat(63), kind: 'K'.repeat(63), namespace: 'n'.repeat(63), name: 'x'.repeat(253) }),
    },
  ])('accepts a $name key', ({ k }) => {
    expect(validateKey(k)).toBeNull();
    expect(keyString(k).length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
    expect(parseKey(keyString(k))).toEqual(k);
  });

  it.each([
    { name: 'owner name with spaces', k: key({ name: 'Not A Name' }), reason: 'name "Not A Name" is not a valid name' },
    { name: 'underscore in name', k: key({ name: '_b' }), reason: 'name "_b" is not a valid name' },
    { name: 'upper case name', k: key({ name: 'Web' }), reason: 'name "Web" is not a valid name' },
    { name: 'slash in name', k: key({ name: 'a/b' }), reason: 'name "a/b" is not a valid name' },
    { name: 'empty name', k: key({ name: '' }), reason: 'name "" is not a valid name' },
    { name: 'empty label in name', k: key({ name: 'a..b' }), reason: 'name "a..b" is not a valid name' },
    {
      name: '254-character name',
      k: key({ name: 'a'.repeat(254) }),
      reason: 'name is 254 characters long (at most 253)',
    },
    {
      name: '300-character name',
      k: key({ name: 'a'.repeat(300) }),
      reason: 'name is 300 characters long (at most 253)',
    },
    { name: 'dot in namespace', k: key({ namespace: 'a.b' }), reason: 'namespace "a.b" is not a valid name' },
    {
      name: '64-character namespace',
      k: key({ namespace: 'n'.repeat(64) }),
      reason: 'namespace is 64 characters long (at most 63)',
    },
    { name: 'space in cluster', k: key({ cluster: 'c x' }), reason: 'cluster "c x" is not a valid name' },
    { name: 'name not a string', k: key({ name: 7 }), reason: 'name is not a string' },
    { name: 'namespace missing', k: key({ namespace: undefined }), reason: 'namespace is not a string' },
  ])('rejects $name', ({ k, reason }) => {
    expect(validateKey(k)).toBe(reason);
  });

  it('is not fooled by something that is not a key', () => {
    expect(validateKey(null as never)).toBe('not a key object');
    expect(validateKey('eu-1/Deployment/web/api' as never)).toBe('not a key object');
  });

  it('parseKey applies the same rules, and bounds the raw length first', () => {
    expect(() => parseKey('eu-1/Deployment/web/Not A Name')).toThrow(MalformedKeyError);
    expect(() => parseKey(`eu-1/Deployment/web/${'a'.repeat(600)}`)).toThrow(/at most 512/);
  });
});
