// The gate's rule over the two sides' results, and the table it prints.
//   - a spec that passed on upstream and did not pass on fleetq (failed, skipped, or absent) fails the run;
//   - a spec that failed on both sides is listed with both reasons and does not fail the run;
//   - a side whose suite setup failed, or whose report is missing, fails the run (no baseline, no verdict);
//   - so does a run where upstream ran no spec at all (a focus that matches nothing proves nothing).
import { Outcome, type JUnitReport, type SpecResult } from './junit.js';

export const Side = { Upstream: 'upstream', Fleetq: 'fleetq' } as const;
export type Side = (typeof Side)[keyof typeof Side];

/** What a side produced: its report, or why there is none. */
export type SideRun = { readonly report: JUnitReport } | { readonly error: string };

export const RowVerdict = {
  /** Same outcome on both sides, or fleetq passed where upstream did not. */
  Same: 'same',
  FleetqOnlyPass: 'fleetq-only-pass',
  /** Failed on both: listed, does not fail the run. */
  BothFail: 'both-fail',
  /** Passed on upstream, not on fleetq: fails the run. */
  Regression: 'regression',
  /** Upstream skipped or did not run it; fleetq failed it. Listed, does not fail the run. */
  FleetqOnlyFail: 'fleetq-only-fail',
} as const;
export type RowVerdict = (typeof RowVerdict)[keyof typeof RowVerdict];

export type Row = {
  readonly name: string;
  readonly upstream?: SpecResult;
  readonly fleetq?: SpecResult;
  readonly verdict: RowVerdict;
};

export type Verdict = {
  readonly rows: readonly Row[];
  /** Why the run fails; empty when it passes. */
  readonly problems: readonly string[];
  readonly fleetq: Counts;
  readonly upstream: Counts;
};

/** One side's passes (lanes, serial pass) as one run: every pass's specs, or the first pass's error. */
export function mergeRuns(runs: readonly SideRun[]): SideRun {
  const failed = runs.find((r): r is { error: string } => 'error' in r);
  if (failed) return failed;
  const reports = runs.map((r) => (r as { report: JUnitReport }).report);
  return {
    report: { specs: reports.flatMap((r) => r.specs), suiteFailures: reports.flatMap((r) => r.suiteFailures) },
  };
}

export type Counts = { readonly passed: number; readonly failed: number; readonly skipped: number };

export function decide(upstream: SideRun, fleetq: SideRun): Verdict {
  const problems: string[] = [];
  for (const [side, run] of [
    [Side.Upstream, upstream],
    [Side.Fleetq, fleetq],
  ] as const) {
    if ('error' in run) problems.push(`${side}: no report (${run.error})`);
    else
      for (const f of run.report.suiteFailures)
        problems.push(`${side}: suite node "${f.name}" ${f.state}${f.reason ? `: ${f.reason}` : ''}`);
  }
  const up = byName('report' in upstream ? upstream.report.specs : []);
  const fq = byName('report' in fleetq ? fleetq.report.specs : []);
  const names = [...new Set([...up.keys(), ...fq.keys()])].sort();
  const rows = names.map((name): Row => {
    const u = up.get(name);
    const f = fq.get(name);
    return { name, upstream: u, fleetq: f, verdict: rowVerdict(u?.outcome, f?.outcome) };
  });
  for (const r of rows)
    if (r.verdict === RowVerdict.Regression)
      problems.push(`passes on upstream, ${r.fleetq ? r.fleetq.outcome : 'absent'} on fleetq: ${r.name}`);
  const counts = (m: Map<string, SpecResult>): Counts => {
    const all = [...m.values()];
    const n = (o: Outcome): number => all.filter((s) => s.outcome === o).length;
    return { passed: n(Outcome.Passed), failed: n(Outcome.Failed), skipped: n(Outcome.Skipped) };
  };
  const upstreamCounts = counts(up);
  if ('report' in upstream && upstreamCounts.passed + upstreamCounts.failed === 0)
    problems.push('upstream ran no spec: the focus matches nothing that runs');
  return { rows, problems, fleetq: counts(fq), upstream: upstreamCounts };
}

export function rowVerdict(u: Outcome | undefined, f: Outcome | undefined): RowVerdict {
  if (u === Outcome.Passed) return f === Outcome.Passed ? RowVerdict.Same : RowVerdict.Regression;
  if (f === Outcome.Passed) return RowVerdict.FleetqOnlyPass;
  if (u === Outcome.Failed && f === Outcome.Failed) return RowVerdict.BothFail;
  if (f === Outcome.Failed) return RowVerdict.FleetqOnlyFail;
  return RowVerdict.Same;
}

function byName(specs: readonly SpecResult[]): Map<string, SpecResult> {
  const m = new Map<string, SpecResult>();
  // A spec run twice (flake attempts) counts by its last result.
  for (const s of specs) m.set(s.name, s);
  return m;
}

const CELL: Readonly<Record<Outcome, string>> = { passed: 'passed', failed: 'FAILED', skipped: 'skipped' };
const MARK: Readonly<Record<RowVerdict, string>> = {
  same: ' ',
  'fleetq-only-pass': '+',
  'both-fail': '~',
  regression: '!',
  'fleetq-only-fail': '?',
};

/** The table (one row per spec, one column per side), the reasons, and the closing count line. */
export function formatReport(v: Verdict): string {
  const cell = (s: SpecResult | undefined): string => (s ? CELL[s.outcome] : '—');
  const nameWidth = Math.min(110, Math.max(4, ...v.rows.map((r) => r.name.length)));
  const clip = (s: string): string => (s.length > nameWidth ? `${s.slice(0, nameWidth - 1)}…` : s);
  const line = (mark: string, name: string, u: string, f: string): string =>
    `${mark} ${name.padEnd(nameWidth)}  ${u.padEnd(8)}  ${f}`;
  const out = [line(' ', 'test', 'upstream', 'fleetq'), line(' ', '-'.repeat(nameWidth), '--------', '--------')];
  for (const r of v.rows) out.push(line(MARK[r.verdict], clip(r.name), cell(r.upstream), cell(r.fleetq)));
  out.push('', '  ! passes on upstream, not on fleetq (fails the run)   ~ fails on both   + passes on fleetq only');
  out.push('  ? fails on fleetq, upstream skipped it   — not run on that side');
  const explained = v.rows.filter((r) => r.verdict !== RowVerdict.Same || r.upstream?.outcome === Outcome.Skipped);
  if (explained.length > 0) out.push('', 'reasons:');
  for (const r of explained) {
    out.push(`${MARK[r.verdict]} ${r.name}`);
    for (const [side, s] of [
      [Side.Upstream, r.upstream],
      [Side.Fleetq, r.fleetq],
    ] as const)
      if (s && s.outcome !== Outcome.Passed) out.push(`    ${side}: ${s.outcome}: ${s.reason ?? s.state}`);
  }
  out.push(
    '',
    `upstream: ${v.upstream.passed} passed, ${v.upstream.failed} failed, ${v.upstream.skipped} skipped`,
    `fleetq:   ${v.fleetq.passed} passed, ${v.fleetq.failed} failed, ${v.fleetq.skipped} skipped`,
  );
  if (v.problems.length > 0) out.push('', 'GATE FAILED:', ...v.problems.map((p) => `  - ${p}`));
  else out.push('', 'gate passed: every spec that passes on upstream passes on fleetq');
  out.push(`${v.fleetq.passed} passed, ${v.fleetq.failed} failed`);
  return out.join('\n');
}

/** One side alone (--side): its specs, their outcomes and reasons, and the count line. No gate rule. */
export function formatOneSide(side: Side, run: SideRun): string {
  if ('error' in run) return `${side}: no report (${run.error})`;
  const specs = [...run.report.specs].sort((a, b) => a.name.localeCompare(b.name));
  const out = specs.map((s) => `${CELL[s.outcome].padEnd(8)}  ${s.name}${s.reason ? `\n          ${s.reason}` : ''}`);
  for (const f of run.report.suiteFailures) out.push(`suite node "${f.name}" ${f.state}: ${f.reason ?? ''}`);
  const n = (o: Outcome): number => specs.filter((s) => s.outcome === o).length;
  out.push('', `${side}: ${n(Outcome.Passed)} passed, ${n(Outcome.Failed)} failed, ${n(Outcome.Skipped)} skipped`);
  out.push(`${n(Outcome.Passed)} passed, ${n(Outcome.Failed)} failed`);
  return out.join('\n');
}
