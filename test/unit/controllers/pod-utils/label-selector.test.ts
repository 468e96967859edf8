import { describe, expect, it } from '@jest/globals';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { compileSelector, hasAllLabels } from '../../../../shared/controllers/pod-utils/label-selector.js';
import { TerminalError } from '../../../../shared/kube/errors.js';

describe('compileSelector', () => {
  const sel: V1LabelSelector = {
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'edge'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'team', operator: 'Exists' },
      { key: 'canary', operator: 'DoesNotExist' },
    ],
  };
  it.each<{ name: string; labels: Record<string, string> | undefined; want: boolean }>([
    { name: 'all requirements met', labels: { app: 'web', tier: 'edge', team: 'x' }, want: true },
    {
      name: 'NotIn matches a different value',
      labels: { app: 'web', tier: 'front', team: 'x', env: 'dev' },
      want: true,
    },
    { name: 'NotIn excludes its value', labels: { app: 'web', tier: 'front', team: 'x', env: 'prod' }, want: false },
    { name: 'In needs the key', labels: { app: 'web', team: 'x' }, want: false },
    { name: 'Exists needs the key', labels: { app: 'web', tier: 'front' }, want: false },
    {
      name: 'DoesNotExist excludes the key',
      labels: { app: 'web', tier: 'front', team: 'x', canary: '' },
      want: false,
    },
    { name: 'matchLabels value differs', labels: { app: 'api', tier: 'front', team: 'x' }, want: false },
    { name: 'no labels', labels: undefined, want: false },
  ])('$name', ({ labels, want }) => {
    expect(compileSelector(sel)(labels)).toBe(want);
  });

  it('an empty selector matches everything, a missing one nothing', () => {
    expect(compileSelector({})({ any: 'thing' })).toBe(true);
    expect(compileSelector(undefined)({ any: 'thing' })).toBe(false);
  });

  it.each([
    { name: 'In without values', e: { key: 'a', operator: 'In', values: [] } },
    { name: 'Exists with values', e: { key: 'a', operator: 'Exists', values: ['x'] } },
    { name: 'unknown operator', e: { key: 'a', operator: 'Near' } },
  ])('invalid: $name', ({ e }) => {
    expect(() => compileSelector({ matchExpressions: [e] })).toThrow(TerminalError);
  });

  it('hasAllLabels is a subset test', () => {
    expect(hasAllLabels({ a: '1', b: '2' }, { a: '1' })).toBe(true);
    expect(hasAllLabels({ a: '1' }, { a: '1', b: '2' })).toBe(false);
    expect(hasAllLabels(undefined, undefined)).toBe(true);
  });
});
