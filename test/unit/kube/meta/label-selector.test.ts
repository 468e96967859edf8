import { describe, expect, it } from '@jest/globals';
import {
  InvalidSelectorError,
  hasLabels,
  isSelectingAll,
  labelsOf,
  selectorOf,
  selectorOrNothing,
} from '../../../../shared/kube/meta/label-selector.js';
import { TerminalError } from '../../../../shared/kube/errors.js';

const labels = { app: 'web', tier: 'front', empty: '' };
const expr = (key: string, operator: string, values?: string[]) => ({
  matchExpressions: [{ key, operator, ...(values === undefined ? {} : { values }) }],
});

describe('selectorOf: metav1.LabelSelectorAsSelector, then Matches', () => {
  it.each<{ name: string; selector: unknown; want: boolean }>([
    { name: 'a missing selector matches nothing', selector: undefined, want: false },
    { name: 'a null selector matches nothing', selector: null, want: false },
    { name: 'an empty selector matches everything', selector: {}, want: true },
    {
      name: 'empty matchLabels and matchExpressions match everything',
      selector: { matchLabels: {}, matchExpressions: [] },
      want: true,
    },
    { name: 'matchLabels all equal', selector: { matchLabels: { app: 'web', tier: 'front' } }, want: true },
    { name: 'matchLabels one differs', selector: { matchLabels: { app: 'web', tier: 'back' } }, want: false },
    { name: 'matchLabels key missing', selector: { matchLabels: { zone: 'a' } }, want: false },
    { name: 'matchLabels on an empty value', selector: { matchLabels: { empty: '' } }, want: true },
    { name: 'In with the value', selector: expr('tier', 'In', ['back', 'front']), want: true },
    { name: 'In without the value', selector: expr('tier', 'In', ['back']), want: false },
    { name: 'In on a missing key', selector: expr('zone', 'In', ['a']), want: false },
    { name: 'NotIn without the value', selector: expr('tier', 'NotIn', ['back']), want: true },
    { name: 'NotIn with the value', selector: expr('tier', 'NotIn', ['front']), want: false },
    { name: 'NotIn on a missing key matches', selector: expr('zone', 'NotIn', ['a']), want: true },
    { name: 'Exists with an empty value', selector: expr('empty', 'Exists'), want: true },
    { name: 'Exists on a missing key', selector: expr('zone', 'Exists'), want: false },
    { name: 'DoesNotExist on a missing key', selector: expr('zone', 'DoesNotExist'), want: true },
    { name: 'DoesNotExist on a present key', selector: expr('app', 'DoesNotExist'), want: false },
    { name: 'a prefixed key', selector: { matchLabels: { 'fleetq.dev/x': 'y' } }, want: false },
    {
      name: 'matchLabels and expressions are ANDed',
      selector: { matchLabels: { app: 'web' }, ...expr('tier', 'In', ['back']) },
      want: false,
    },
    {
      name: 'every expression must hold',
      selector: {
        matchExpressions: [
          ...expr('app', 'Exists').matchExpressions,
          ...expr('canary', 'DoesNotExist').matchExpressions,
        ],
      },
      want: true,
    },
  ])('$name', ({ selector, want }) => expect(selectorOf(selector).matches(labels)).toBe(want));

  it('an object without labels is matched as having none', () => {
    expect(selectorOf(expr('a', 'DoesNotExist')).matches(undefined)).toBe(true);
    expect(selectorOf({ matchLabels: { a: 'b' } }).matches(undefined)).toBe(false);
  });

  it('knows the empty selector (Empty()): a missing one is not empty, it selects nothing', () => {
    expect(selectorOf({}).isEmpty).toBe(true);
    expect(selectorOf({ matchLabels: {}, matchExpressions: [] }).isEmpty).toBe(true);
    expect(selectorOf({ matchLabels: { a: 'b' } }).isEmpty).toBe(false);
    expect(selectorOf(undefined).isEmpty).toBe(false);
  });

  it('prints the labelSelector a list call sends, requirements sorted by key', () => {
    const s = selectorOf({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'edge'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'team', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    });
    expect(s.toString()).toBe('app=web,!canary,env notin (prod),team,tier in (edge,front)');
  });
});

describe('invalid selectors', () => {
  it.each<{ name: string; selector: unknown }>([
    { name: 'unknown operator', selector: expr('app', 'Gt', ['1']) },
    { name: 'operator in the wrong case', selector: expr('app', 'in', ['web']) },
    { name: 'In without values', selector: expr('app', 'In', []) },
    { name: 'In with values missing', selector: expr('app', 'In') },
    { name: 'NotIn without values', selector: expr('app', 'NotIn', []) },
    { name: 'Exists with values', selector: expr('app', 'Exists', ['web']) },
    { name: 'DoesNotExist with values', selector: expr('app', 'DoesNotExist', ['web']) },
    { name: 'matchExpressions not a list', selector: { matchExpressions: 'tier in (a)' } },
    { name: 'an expression not an object', selector: { matchExpressions: ['app'] } },
    { name: 'an expression without a key', selector: { matchExpressions: [{ operator: 'Exists' }] } },
    {
      name: 'values not a list of strings',
      selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
    },
    { name: 'matchLabels not a map', selector: { matchLabels: ['app=web'] } },
    { name: 'a matchLabels value not a string', selector: { matchLabels: { app: 1 } } },
    { name: 'a key that is not a qualified name', selector: { matchLabels: { 'a,b': 'c' } } },
    { name: 'a key with two slashes', selector: { matchLabels: { 'a/b/c': 'd' } } },
    { name: 'a key with an empty prefix', selector: { matchLabels: { '/b': 'd' } } },
    { name: 'a value that is not a label value', selector: { matchLabels: { app: 'web,tier=x' } } },
    { name: 'a value longer than 63', selector: expr('app', 'In', ['x'.repeat(64)]) },
    { name: 'not an object', selector: 'app=web' },
  ])('$name: selectorOf throws, selectorOrNothing matches nothing', ({ selector }) => {
    expect(() => selectorOf(selector)).toThrow(InvalidSelectorError);
    expect(() => selectorOf(selector)).toThrow(TerminalError);
    const nothing = selectorOrNothing(selector);
    expect(nothing.matches(labels)).toBe(false);
    expect(nothing.matches({})).toBe(false);
    expect(nothing.isEmpty).toBe(false);
  });
});

describe('helpers', () => {
  it('isSelectingAll: no requirement at all, but not a missing selector', () => {
    expect(isSelectingAll({})).toBe(true);
    expect(isSelectingAll({ matchLabels: {}, matchExpressions: [] })).toBe(true);
    expect(isSelectingAll({ matchLabels: { a: 'b' } })).toBe(false);
    expect(isSelectingAll(undefined)).toBe(false);
  });

  it('hasLabels is a subset test', () => {
    expect(hasLabels({ a: '1', b: '2' }, { a: '1' })).toBe(true);
    expect(hasLabels({ a: '1' }, { a: '1', b: '2' })).toBe(false);
    expect(hasLabels(undefined, undefined)).toBe(true);
  });

  it('labelsOf reads untrusted metadata', () => {
    expect(labelsOf({ metadata: { labels: { a: 'b' } } })).toEqual({ a: 'b' });
    expect(labelsOf({ metadata: { labels: ['a'] } })).toEqual({});
    expect(labelsOf({ metadata: {} })).toEqual({});
    expect(labelsOf(undefined)).toEqual({});
  });
});
