// The gate's rule over the two sides' results, and the table it prints. By default fleetq runs every spec first and
// upstream then reruns only those that did not pass on fleetq (decideRerun); with --upstream all both sides run
// every spec at once (decide). The rule is the same either way:
//   - a spec that passed on fleetq passes;
//   - a spec that did not pass on fleetq (failed, or absent from its report) fails the run when it passed on
//     upstream, and is listed with both reasons when it did not;
//   - a side whose suite setup failed, or whose report is missing, fails the run (no baseline, no verdict);
//   - so does a run that proves nothing: upstream ran no spec (--upstream all), or fleetq ran none, the focus
//     selects none (its dry run), or upstream's rerun has no result for a spec it was asked to run (the default).
// A spec that skipped itself on fleetq (no provider, no StorageClass: the cluster's setup, which both sides share)
// is not rerun, and neither is one fleetq passed: the table says "not run" in upstream's column for them.
import { Outcome, type JUnitReport, type SpecResult } from './junit.js';

export const Side = { Upstream: 'upstream', Fleetq: 'fleetq' } as const;
export type Side = (typeof Side)[keyof typeof Side];

/** What a side produced: its report, or why there is none. */
export type SideRun = { readonly report: JUnitReport } | { readonly error: string };

export const RowVerdict = {
  /** Same outcome on both sides. */
  Same: 'same',
  /** Passed on fleetq, not on upstream. */
  FleetqOnlyPass: 'fleetq-only-pass',
  /** Failed on both: listed, does not fail the run. */
  BothFail: 'both-fail',
  /** Passed on upstream, not on fleetq: fails the run. */
  Regression: 'regression',
  /** Upstream skipped or did not run it; fleetq failed it. Listed, does not fail the run. */
  FleetqOnlyFail: 'fleetq-only-fail',
  /** Passed, or skipped itself, on fleetq: upstream's rerun was not asked to run it. */
  NotRerun: 'not-rerun',
  /** Did not pass on fleetq, and upstream's rerun has no result for it: fails the run (no baseline). */
  NoBaseline: 'no-baseline',
} as const;
export type RowVerdict = (typeof RowVerdict)[keyof typeof RowVerdict];

/** What upstream runs in a run of both sides: every spec at once with fleetq, or only what did not pass on fleetq. */
export const UpstreamScope = { Rerun: 'rerun', All: 'all' } as const;
export type UpstreamScope = (typeof UpstreamScope)[keyof typeof UpstreamScope];

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
  /** Set when upstream reran only what did not pass on fleetq: how many specs it was asked to run. */
  readonly rerun?: { readonly asked: number };
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

/** Both sides ran every spec (--upstream all). */
export function decide(upstream: SideRun, fleetq: SideRun): Verdict {
  const problems = [...reportProblems(Side.Upstream, upstream), ...reportProblems(Side.Fleetq, fleetq)];
  const up = byName(specsOf(upstream));
  const fq = byName(specsOf(fleetq));
  const names = [...new Set([...up.keys(), ...fq.keys()])].sort();
  const rows = names.map((name): Row => {
    const u = up.get(name);
    const f = fq.get(name);
    return { name, upstream: u, fleetq: f, verdict: rowVerdict(u?.outcome, f?.outcome) };
  });
  problems.push(...regressions(rows));
  const upstreamCounts = counts(up);
  if ('report' in upstream && upstreamCounts.passed + upstreamCounts.failed === 0)
    problems.push('upstream ran no spec: the focus matches nothing that runs');
  return { rows, problems, fleetq: counts(fq), upstream: upstreamCounts };
}

/**
 * The specs of one fleetq pass that upstream reruns: those it failed, and those its dry run selected that are not in
 * its report (a lane stopped by its timeout reports the specs it did not reach as bare skips, which are left out).
 * Without a report, every selected spec.
 */
export function toRerun(fleetq: SideRun, selected: SideRun): string[] {
  const ran = byName(specsOf(fleetq));
  const failed = [...ran.values()].filter((s) => s.outcome === Outcome.Failed).map((s) => s.name);
  const absent = specsOf(selected)
    .map((s) => s.name)
    .filter((name) => !ran.has(name));
  return [...new Set([...failed, ...absent])];
}

/**
 * fleetq ran every spec, then upstream reran `asked` (toRerun over fleetq's passes; `upstream` is undefined when
 * that was none). `selected` is the dry run of fleetq's passes: what the focus selects.
 */
export function decideRerun(
  fleetq: SideRun,
  selected: SideRun,
  asked: readonly string[],
  upstream: SideRun | undefined,
): Verdict {
  const problems = [...reportProblems(Side.Fleetq, fleetq)];
  if ('error' in selected) problems.push(`fleetq: no list of the selected specs (dry run: ${selected.error})`);
  else if (selected.report.specs.length === 0) problems.push('the focus selects no spec (dry run)');
  if (upstream) problems.push(...reportProblems(Side.Upstream, upstream));
  else if (asked.length > 0) problems.push('upstream: no report (its rerun did not run)');
  const up = byName(specsOf(upstream));
  const fq = byName(specsOf(fleetq));
  const names = [...new Set([...specsOf(selected).map((s) => s.name), ...fq.keys(), ...asked, ...up.keys()])].sort();
  // Without a report from upstream the run fails already (above); a spec then has no row of its own to fail.
  const upstreamFailed = upstream === undefined ? asked.length > 0 : 'error' in upstream;
  const rows = names.map((name): Row => {
    const u = up.get(name);
    const f = fq.get(name);
    if (u === undefined && f !== undefined && f.outcome !== Outcome.Failed)
      return { name, fleetq: f, verdict: RowVerdict.NotRerun };
    // Failed on fleetq or absent from its report, and no result from upstream (asked or not): no baseline.
    if (u === undefined && !upstreamFailed) return { name, fleetq: f, verdict: RowVerdict.NoBaseline };
    return { name, upstream: u, fleetq: f, verdict: rowVerdict(u?.outcome, f?.outcome) };
  });
  problems.push(...regressions(rows));
  for (const r of rows)
    if (r.verdict === RowVerdict.NoBaseline)
      problems.push(`upstream's rerun has no result for a spec that did not pass on fleetq: ${r.name}`);
  const fleetqCounts = counts(fq);
  if ('report' in fleetq && fleetqCounts.passed + fleetqCounts.failed === 0)
    problems.push('fleetq ran no spec: the focus matches nothing that runs');
  return { rows, problems, fleetq: fleetqCounts, upstream: counts(up), rerun: { asked: asked.length } };
}

export function rowVerdict(u: Outcome | undefined, f: Outcome | undefined): RowVerdict {
  if (u === Outcome.Passed) return f === Outcome.Passed ? RowVerdict.Same : RowVerdict.Regression;
  if (f === Outcome.Passed) return RowVerdict.FleetqOnlyPass;
  if (u === Outcome.Failed && f === Outcome.Failed) return RowVerdict.BothFail;
  if (f === Outcome.Failed) return RowVerdict.FleetqOnlyFail;
  return RowVerdict.Same;
}

function reportProblems(side: Side, run: SideRun): string[] {
  if ('error' in run) return [`${side}: no report (${run.error})`];
  return run.report.suiteFailures.map(
    (f) => `${side}: suite node "${f.name}" ${f.state}${f.reason ? `: ${f.reason}` : ''}`,
  );
}

function regressions(rows: readonly Row[]): string[] {
  return rows
    .filter((r) => r.verdict === RowVerdict.Regression)
    .map((r) => `passes on upstream, ${r.fleetq ? r.fleetq.outcome : 'absent'} on fleetq: ${r.name}`);
}

const specsOf = (run: SideRun | undefined): readonly SpecResult[] => (run && 'report' in run ? run.report.specs : []);

function counts(m: Map<string, SpecResult>): Counts {
  const all = [...m.values()];
  const n = (o: Outcome): number => all.filter((s) => s.outcome === o).length;
  return { passed: n(Outcome.Passed), failed: n(Outcome.Failed), skipped: n(Outcome.Skipped) };
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
  'not-rerun': ' ',
  'no-baseline': '#',
};

/** Upstream's cell: its outcome, or why it has none. */
function upstreamCell(r: Row): string {
  if (r.upstream) return CELL[r.upstream.outcome];
  if (r.verdict === RowVerdict.NotRerun) return `not run: ${r.fleetq ? r.fleetq.outcome : 'absent'} on fleetq`;
  if (r.verdict === RowVerdict.NoBaseline) return 'NO RESULT';
  return '—';
}

/** The table (one row per spec, one column per side), the reasons, and the closing count lines. */
export function formatReport(v: Verdict): string {
  const nameWidth = Math.min(110, Math.max(4, ...v.rows.map((r) => r.name.length)));
  const upWidth = Math.max(8, ...v.rows.map((r) => upstreamCell(r).length));
  const clip = (s: string): string => (s.length > nameWidth ? `${s.slice(0, nameWidth - 1)}…` : s);
  const line = (mark: string, name: string, u: string, f: string): string =>
    `${mark} ${name.padEnd(nameWidth)}  ${u.padEnd(upWidth)}  ${f}`;
  const out = [
    line(' ', 'test', 'upstream', 'fleetq'),
    line(' ', '-'.repeat(nameWidth), '-'.repeat(upWidth), '--------'),
  ];
  for (const r of v.rows)
    out.push(line(MARK[r.verdict], clip(r.name), upstreamCell(r), r.fleetq ? CELL[r.fleetq.outcome] : '—'));
  out.push('', '  ! passes on upstream, not on fleetq (fails the run)   ~ fails on both   + passes on fleetq only');
  out.push('  ? fails on fleetq, upstream skipped it   — not run on that side');
  if (v.rerun)
    out.push(
      '  upstream reran only the specs that did not pass on fleetq; "not run" rows passed, or skipped themselves, there',
      "  # did not pass on fleetq, and upstream's rerun has no result for it (fails the run)",
    );
  const explained = v.rows.filter(
    (r) =>
      (r.verdict !== RowVerdict.Same && r.verdict !== RowVerdict.NotRerun) ||
      r.upstream?.outcome === Outcome.Skipped ||
      r.fleetq?.outcome === Outcome.Skipped,
  );
  if (explained.length > 0) out.push('', 'reasons:');
  for (const r of explained) {
    out.push(`${MARK[r.verdict]} ${r.name}`);
    for (const [side, s] of [
      [Side.Upstream, r.upstream],
      [Side.Fleetq, r.fleetq],
    ] as const)
      if (s && s.outcome !== Outcome.Passed) out.push(`    ${side}: ${s.outcome}: ${s.reason ?? s.state}`);
  }
  const upstreamLine = `upstream: ${v.upstream.passed} passed, ${v.upstream.failed} failed, ${v.upstream.skipped} skipped`;
  out.push(
    '',
    !v.rerun
      ? upstreamLine
      : v.rerun.asked === 0
        ? 'upstream: not run (every spec passed, or skipped itself, on fleetq)'
        : `${upstreamLine} (rerun of the ${v.rerun.asked} spec(s) that did not pass on fleetq)`,
    `fleetq:   ${v.fleetq.passed} passed, ${v.fleetq.failed} failed, ${v.fleetq.skipped} skipped`,
  );
  if (v.problems.length > 0) out.push('', 'GATE FAILED:', ...v.problems.map((p) => `  - ${p}`));
  else if (v.rerun) out.push('', 'gate passed: every spec that did not pass on fleetq did not pass on upstream either');
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
