// The options of a project's own Ginkgo e2e suite's runner (ginkgo-suite.ts), the lanes its specs are dealt to,
// and what it reads from a lane's output. Pure: no cluster, no process.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isKind } from '../../shared/kube/kinds.js';
import type { SuiteConfig } from './ginkgo-suite.js';
import { Side, UpstreamScope } from './verdict.js';

/** A focus expression of one spec, with about how long the spec takes here. */
export type TimedSpec = { readonly focus: string; readonly seconds: number };

export type SuiteOptions = {
  readonly owns: readonly string[];
  readonly lanes: readonly (readonly string[])[];
  readonly sides: readonly Side[];
  /** With both sides: upstream reruns what did not pass on fleetq, after it (default), or runs all, at once. */
  readonly upstream: UpstreamScope;
  readonly reports: string;
  readonly nodes: number;
  readonly timeoutMinutes: number;
  readonly down: boolean;
};

/** Focus expressions dealt to `lanes` lanes, longest first, each to the lane with the least time so far. */
export function dealLanes(specs: readonly TimedSpec[], lanes: number): string[][] {
  const out = Array.from({ length: Math.min(lanes, specs.length) }, () => ({ focus: [] as string[], seconds: 0 }));
  for (const s of [...specs].sort((a, b) => b.seconds - a.seconds)) {
    const lane = out.reduce((least, l) => (l.seconds < least.seconds ? l : least));
    lane.focus.push(s.focus);
    lane.seconds += s.seconds;
  }
  return out.map((l) => l.focus);
}

/** What a suite's options default to: its own specs, report folder, owned kinds, lanes and timeout. */
export type OptionDefaults = Pick<SuiteConfig, 'specs' | 'reports' | 'owns' | 'lanes' | 'timeoutMinutes'>;

export function parseSuiteOptions(argv: string[], config: OptionDefaults): SuiteOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      focus: { type: 'string', multiple: true },
      lanes: { type: 'string', default: String(config.lanes ?? 3) },
      side: { type: 'string', default: 'both' },
      upstream: { type: 'string', default: UpstreamScope.Rerun },
      timeout: { type: 'string', default: String(config.timeoutMinutes ?? 8) },
      reports: { type: 'string', default: config.reports },
      nodes: { type: 'string', default: '2' },
      down: { type: 'boolean', default: false },
      owns: { type: 'string' },
    },
    strict: true,
  });
  const side = values.side;
  if (side !== 'both' && side !== Side.Fleetq && side !== Side.Upstream)
    throw new Error(`--side must be both, fleetq or upstream, got ${JSON.stringify(side)}`);
  const upstream = parseUpstreamScope(values.upstream);
  const positive = (name: string, v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const lanes = positive('lanes', values.lanes);
  // A focus of one's own has no known durations: dealt as if all took the same.
  const dealt = dealLanes(values.focus?.map((focus) => ({ focus, seconds: 1 })) ?? config.specs, lanes);
  const sides = side === 'both' ? [Side.Upstream, Side.Fleetq] : [side];
  const owns = values.owns === undefined ? [...config.owns] : values.owns.split(',').filter(Boolean);
  // Checked only where fleetq runs: a kind not registered yet still lets the upstream side run alone.
  const unknown = owns.filter((k) => !isKind(k));
  if (sides.includes(Side.Fleetq) && unknown.length > 0)
    throw new Error(
      `fleetq registers no kind ${unknown.join(', ')} (shared/controllers/index.ts): the fleetq side cannot own it; run --side upstream`,
    );
  return {
    owns,
    lanes: dealt,
    sides,
    upstream,
    reports: resolve(values.reports),
    nodes: positive('nodes', values.nodes),
    timeoutMinutes: positive('timeout', values.timeout),
    down: values.down,
  };
}

/** --upstream: rerun (the default) or all. */
export function parseUpstreamScope(value: string): UpstreamScope {
  if (value !== UpstreamScope.Rerun && value !== UpstreamScope.All)
    throw new Error(`--upstream must be rerun or all, got ${JSON.stringify(value)}`);
  return value;
}

export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A focus expression that selects one spec by its full name as a JUnit report gives it (without "[It] "). Ginkgo
 * matches a focus against "<suite description> <full spec text>", so the name is anchored at its end only (a spec
 * whose name ends with another's whole name would run too: the table then shows its upstream result as well).
 */
export const exactFocus = (name: string): string => `${escapeRegex(name)}$`;

/**
 * exactFocus for a name from Ginkgo's own JUnit report (-ginkgo.junit-report), which appends a spec's labels to it
 * (" [a, b]") while the focus is matched against the spec's text alone: the name with or without a closing
 * bracketed part.
 */
export function junitNameFocus(name: string): string {
  const bare = /^(.*) \[[^\]]*\]$/.exec(name)?.[1];
  return bare === undefined ? exactFocus(name) : `(?:${escapeRegex(name)}|${escapeRegex(bare)})$`;
}

/** Ginkgo's verbose report of a finished BeforeSuite: `[BeforeSuite] PASSED [0.3 seconds]`, `[BeforeSuite] [FAILED] …`. */
export const BEFORE_SUITE_ENDED = /^\[BeforeSuite\] (PASSED|\[)/m;
