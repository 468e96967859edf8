import { describe, expect, it } from '@jest/globals';
import { isSelectorEmpty, isSelectorMatch, type LabelSelector } from '../../../shared/forwarder/label-selector.js';

const labels = { app: 'web', tier: 'front', empty: '' };

describe('isSelectorMatch', () => {
  it.each<{ name: string; selector: LabelSelector; want: boolean }>([
    { name: 'empty selector matches everything', selector: {}, want: true },
    { name: 'matchLabels all equal', selector: { matchLabels: { app: 'web', tier: 'front' } }, want: true },
    { name: 'matchLabels one differs', selector: { matchLabels: { app: 'web', tier: 'back' } }, want: false },
    { name: 'matchLabels key missing', selector: { matchLabels: { zone: 'a' } }, want: false },
    {
      name: 'In with the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back', 'front'] }] },
      want: true,
    },
    {
      name: 'In without the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      want: false,
    },
    {
      name: 'In on a missing key',
      selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      want: false,
    },
    {
      name: 'NotIn without the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] },
      want: true,
    },
    {
      name: 'NotIn with the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
      want: false,
    },
    {
      name: 'NotIn on a missing key matches',
      selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      want: true,
    },
    {
      name: 'Exists with an empty value',
      selector: { matchExpressions: [{ key: 'empty', operator: 'Exists' }] },
      want: true,
    },
    {
      name: 'Exists on a missing key',
      selector: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      want: false,
    },
    {
      name: 'DoesNotExist on a missing key',
      selector: { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] },
      want: true,
    },
    {
      name: 'DoesNotExist on a present key',
      selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] },
      want: false,
    },
    {
      name: 'unknown operator matches nothing',
      selector: { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      want: false,
    },
    {
      name: 'matchLabels and expressions are ANDed',
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      want: false,
    },
  ])('$name', ({ selector, want }) => expect(isSelectorMatch(selector, labels)).toBe(want));

  it('knows an empty selector', () => {
    expect(isSelectorEmpty({})).toBe(true);
    expect(isSelectorEmpty({ matchLabels: {}, matchExpressions: [] })).toBe(true);
    expect(isSelectorEmpty({ matchLabels: { a: 'b' } })).toBe(false);
  });
});
