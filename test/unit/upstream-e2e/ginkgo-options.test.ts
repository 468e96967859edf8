// The options of the runner of a project's own Ginkgo e2e suite (ginkgo-options.ts): lanes, options, the
// BeforeSuite mark.
import { describe, expect, it } from '@jest/globals';
import {
  BEFORE_SUITE_ENDED,
  dealLanes,
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
  it('deals a focus of its own evenly', () => {
    expect(parseSuiteOptions(['--focus', 'p', '--focus', 'q', '--lanes', '3'], CONFIG).lanes).toEqual([['p'], ['q']]);
  });
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
