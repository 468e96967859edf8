// The options of the runner of a project's own Ginkgo e2e suite (ginkgo-options.ts): lanes, options, the
// BeforeSuite mark.
import { describe, expect, it } from '@jest/globals';
import {
  BEFORE_SUITE_ENDED,
  dealLanes,
  exactFocus,
  junitNameFocus,
  parseSuiteOptions,
  type OptionDefaults,
} from '../../upstream-e2e/ginkgo-options.js';

const CONFIG: OptionDefaults = {
  specs: [
    { focus: 'a', seconds: 30 },
    { focus: 'b', seconds: 20 },
    { focus: 'c', seconds: 15 },
    { focus: 'd', seconds: 10 },
  ],
  reports: '/tmp/x-e2e-reports',
  owns: ['StatefulSet'],
  lanes: 2,
  timeoutMinutes: 4,
};

describe('dealLanes', () => {
  it('deals the longest first, each to the lane with the least so far', () => {
    expect(dealLanes(CONFIG.specs, 2)).toEqual([
      ['a', 'd'],
      ['b', 'c'],
    ]);
  });
  it('makes no more lanes than specs', () => {
    expect(dealLanes(CONFIG.specs.slice(0, 1), 3)).toEqual([['a']]);
  });
});

describe('parseSuiteOptions', () => {
  it("takes the suite's defaults", () => {
    expect(parseSuiteOptions([], CONFIG)).toEqual({
      owns: ['StatefulSet'],
      lanes: [
        ['a', 'd'],
        ['b', 'c'],
      ],
      sides: ['upstream', 'fleetq'],
      upstream: 'rerun',
      reports: '/tmp/x-e2e-reports',
      nodes: 2,
      timeoutMinutes: 4,
      down: false,
    });
  });
  it('refuses a kind fleetq does not register where the fleetq side runs, and lets the upstream side run alone', () => {
    const config = { ...CONFIG, owns: ['NoSuchKind'] };
    expect(() => parseSuiteOptions([], config)).toThrow(/fleetq registers no kind NoSuchKind/);
    expect(parseSuiteOptions(['--side', 'upstream'], config).sides).toEqual(['upstream']);
  });
  it('takes --upstream all (both sides fully, at once) and refuses another scope', () => {
    expect(parseSuiteOptions(['--upstream', 'all'], CONFIG).upstream).toBe('all');
    expect(() => parseSuiteOptions(['--upstream', 'some'], CONFIG)).toThrow(/--upstream must be rerun or all/);
  });
  it('deals a focus of its own evenly', () => {
    expect(parseSuiteOptions(['--focus', 'p', '--focus', 'q', '--lanes', '3'], CONFIG).lanes).toEqual([['p'], ['q']]);
  });
});

describe('exactFocus', () => {
  // As Ginkgo matches it: "<suite description> <container texts> <It text>".
  const text = (name: string): string => `End To End Suite ${name}`;
  it.each([
    { name: 'Can perform a rolling update', other: 'Can perform a rolling update with maxSurge set' },
    { name: "Can deploy lws with 'replicas', 'size', and 'restart policy' set", other: 'Can deploy lws' },
    { name: 'JobSet [with] a.b (c) $x ^y *z +w ?v |u {t} \\s', other: 'JobSet [with] a.b (c)' },
  ])('selects $name alone', ({ name, other }) => {
    const focus = new RegExp(exactFocus(name));
    expect(focus.test(text(name))).toBe(true);
    expect(focus.test(text(other))).toBe(false);
  });
});

describe('junitNameFocus', () => {
  it('selects a spec whose report name carries its labels, by its text', () => {
    const focus = new RegExp(junitNameFocus('lws gang scheduling creates a PodGroup [volcano]'));
    expect(focus.test('End To End Suite lws gang scheduling creates a PodGroup')).toBe(true);
    expect(focus.test('End To End Suite lws gang scheduling creates a PodGroup [volcano]')).toBe(true);
    expect(focus.test('End To End Suite lws gang scheduling creates a PodGroup twice')).toBe(false);
  });
  it('is exactFocus for a name without a bracketed end', () =>
    expect(junitNameFocus('Can perform a rolling update')).toBe(exactFocus('Can perform a rolling update')));
});

describe('BEFORE_SUITE_ENDED', () => {
  it.each([
    { name: 'passed', log: '[BeforeSuite] \n/x/suite_test.go:62\n[BeforeSuite] PASSED [0.301 seconds]\n', want: true },
    {
      name: 'failed',
      log: '[BeforeSuite] \n/x/suite_test.go:62\n[BeforeSuite] [FAILED] [120.0 seconds]\n',
      want: true,
    },
    {
      name: 'still running',
      log: '[BeforeSuite] \n/x/suite_test.go:62\n  STEP: waiting for webhooks to come up\n',
      want: false,
    },
  ])('$name', ({ log, want }) => expect(BEFORE_SUITE_ENDED.test(log)).toBe(want));
});
