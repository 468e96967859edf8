// Runs a scenario on two sides at once (side A: the reference, upstream-1; side B: fleetq-1 under fleetq,
// or upstream-1 again to check the harness itself), step by step in lockstep, sampling invariants on both
// the whole time, and compares the normalized states at every `compare` step. Also: the suite summary
// (`N passed, M failed`, agreement per kind) and its JSON file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptySnapshot, Side } from './client.js';
import { diff, formatDiff, normalize, type Difference, type NormalizedSide } from './normalize.js';
import { stableJson } from './model.js';
import { Sampler } from './sampler.js';
import { runStep } from './steps.js';
import type { Scenario, ScenarioKind, Step } from './types.js';

export type SideSpec = { readonly cluster: string; readonly label: string };

export type ConformanceOptions = {
  readonly a: SideSpec;
  readonly b: SideSpec;
  /** Compare raw pod-template-hash values too (only when fleetq computes them as upstream does). */
  readonly exactHashes: boolean;
  /**
   * The events of each workload (the set of reason + type per object of a compared kind) differing fails the
   * scenario; default on (CONFORMANCE_STRICT_EVENTS=0 only reports them).
   */
  readonly strictEvents: boolean;
  /** Keep the namespaces of failed scenarios for inspection. */
  readonly keepFailed: boolean;
  /** Opens a side; default Side.open on the sandbox cluster of that name. */
  readonly openSide?: (cluster: string, label: string, scenario: string) => Promise<Side>;
  /** Fails every scenario at once with this reason (e.g. fleetq has no controller for the kind). */
  readonly unsupported?: (s: Scenario) => string | undefined;
};

export type CheckpointResult = {
  readonly label: string;
  readonly agreed: boolean;
  readonly differences: readonly Difference[];
  readonly eventDifferences: readonly Difference[];
  readonly hashesEqual: boolean;
  /** Both normalized states as compared (written to the JSON summary for review). */
  readonly states: readonly [NormalizedSide, NormalizedSide];
};

export type ScenarioResult = {
  readonly name: string;
  readonly kind: ScenarioKind;
  readonly ok: boolean;
  readonly durationMs: number;
  readonly failures: string[];
  readonly checkpoints: CheckpointResult[];
  /** Invariant name → samples in which it was (transiently) broken, per side. */
  readonly transient: Record<string, Record<string, number>>;
  readonly log: string[];
  readonly report: string;
};

const STABLE_MS = Number(process.env.CONFORMANCE_STABLE_MS ?? 1_500);
const COMPARE_MS = Number(process.env.CONFORMANCE_COMPARE_MS ?? 45_000);
/**
 * Events are written in the background on both sides, one at a time per cluster and within each side's API
 * budget: client-go's broadcaster shares the replicaset-controller's client (kube-controller-manager's default
 * 20 qps) with its pod creates, and with rs-many-pods-paged's 550 creates in flight upstream-1's events were seen
 * 50 s behind its pods (its kube-controller-manager log: SuccessfulCreate recorded 05:23:21, written 05:24:11);
 * fleetq's, through its cluster budget, 10 s behind. So once the states agree, the events are read again until
 * they agree too or this much time has passed: a difference in what was recorded is still a failure, a late
 * write is not. Agreeing events cost no wait.
 */
const EVENTS_SETTLE_MS = Number(process.env.CONFORMANCE_EVENTS_SETTLE_MS ?? 120_000);

export function conformanceOptions(env: NodeJS.ProcessEnv = process.env): ConformanceOptions {
  const a = env.CONFORMANCE_A ?? 'upstream-1';
  const b = env.CONFORMANCE_B ?? 'fleetq-1';
  return {
    a: { cluster: a, label: a },
    b: { cluster: b, label: a === b ? `${b}#2` : b },
    exactHashes: env.CONFORMANCE_EXACT_HASH === '1',
    strictEvents: env.CONFORMANCE_STRICT_EVENTS !== '0',
    keepFailed: env.CONFORMANCE_KEEP === '1',
  };
}

type Run = { side: Side; sampler: Sampler };

async function snapshotNormalized(r: Run): Promise<{ n: NormalizedSide; key: string }> {
  const s = await r.sampler.next();
  const n = normalize(s, r.side.namespace);
  return { n, key: stableJson(n.state) };
}

/** Waits until both sides are unchanged for STABLE_MS and equal, or the deadline passes; then compares. */
async function compareSides(
  label: string,
  a: Run,
  b: Run,
  o: ConformanceOptions,
  timeoutMs: number,
  ignore: readonly string[] = [],
): Promise<CheckpointResult> {
  const ignored = (path: string): boolean => ignore.some((p) => path === p || path.startsWith(`${p}.`));
  const deadline = Date.now() + timeoutMs;
  const since = [Date.now(), Date.now()];
  let prev: string[] = ['', ''];
  let last: [NormalizedSide, NormalizedSide] | undefined;
  for (;;) {
    const [x, y] = await Promise.all([snapshotNormalized(a), snapshotNormalized(b)]);
    const now = Date.now();
    [x, y].forEach((v, i) => {
      if (v.key !== prev[i]) since[i] = now;
    });
    prev = [x.key, y.key];
    last = [x.n, y.n];
    const stable = now - (since[0] ?? now) >= STABLE_MS && now - (since[1] ?? now) >= STABLE_MS;
    const same = x.key === y.key || (ignore.length > 0 && diff(x.n.state, y.n.state).every((d) => ignored(d.path)));
    if ((stable && same) || now >= deadline) break;
  }
  const [na, nb] = last;
  const { eventsA, eventsB } = await settledEvents(a, b);
  const differences = diff(na.state, nb.state).filter((d) => !ignored(d.path));
  const hashDiffs = diff(na.hashes, nb.hashes);
  if (o.exactHashes) differences.push(...hashDiffs.map((d) => ({ ...d, path: `hashes.${d.path}` })));
  const eventDifferences = diff(eventsA, eventsB);
  return {
    label,
    agreed: differences.length === 0 && (!o.strictEvents || eventDifferences.length === 0),
    differences,
    eventDifferences,
    hashesEqual: hashDiffs.length === 0,
    states: [
      { ...na, events: eventsA },
      { ...nb, events: eventsB },
    ],
  };
}

/** Both sides' normalized events, read until they agree (each read after a fresh sample) or EVENTS_SETTLE_MS. */
async function settledEvents(
  a: Run,
  b: Run,
): Promise<{ eventsA: NormalizedSide['events']; eventsB: NormalizedSide['events'] }> {
  const deadline = Date.now() + EVENTS_SETTLE_MS;
  for (;;) {
    const [sa, sb] = await Promise.all([a.sampler.next(), b.sampler.next()]);
    const [ea, eb] = await Promise.all([a.side.events(), b.side.events()]);
    const eventsA = normalize(sa, a.side.namespace, ea).events;
    const eventsB = normalize(sb, b.side.namespace, eb).events;
    if (diff(eventsA, eventsB).length === 0 || Date.now() >= deadline) return { eventsA, eventsB };
  }
}

export async function runScenario(sc: Scenario, o: ConformanceOptions): Promise<ScenarioResult> {
  const started = Date.now();
  const failures: string[] = [];
  const checkpoints: CheckpointResult[] = [];
  const log: string[] = [];
  const unsupported = o.unsupported?.(sc);
  if (unsupported) {
    return result(sc, started, [unsupported], [], {}, log, o);
  }
  const runs: Run[] = [];
  try {
    const sides = await Promise.all([
      (o.openSide ?? Side.open)(o.a.cluster, o.a.label, sc.name),
      (o.openSide ?? Side.open)(o.b.cluster, o.b.label, sc.name),
    ]);
    for (const side of sides) {
      const sampler = new Sampler(side, sc.invariants);
      sampler.start();
      runs.push({ side, sampler });
    }
    const [a, b] = runs as [Run, Run];
    log.push(`namespaces: ${a.side.label}/${a.side.namespace}, ${b.side.label}/${b.side.namespace}`);
    for (const [i, step] of sc.steps.entries()) {
      const t0 = Date.now();
      if (step.do === 'compare') {
        const cp = await compareSides(step.label, a, b, o, step.timeoutMs ?? COMPARE_MS, step.ignore);
        checkpoints.push(cp);
        const outcome = cp.agreed ? 'agree' : `${cp.differences.length} differences`;
        log.push(`#${i} compare ${step.label} (${Date.now() - t0} ms): ${outcome}`);
        if (!cp.agreed)
          failures.push(
            cp.differences.length > 0 ? `state differs at "${step.label}"` : `events differ at "${step.label}"`,
          );
        continue;
      }
      if (step.do === 'on' && step.step.do === 'compare') throw new Error('a compare step runs on both sides');
      const targets = step.do === 'on' ? [step.side === 'a' ? a : b] : runs;
      const inner = step.do === 'on' ? (step.step as Exclude<Step, { do: 'compare' } | { do: 'on' }>) : step;
      const outcomes = await Promise.allSettled(targets.map((r) => runStep(inner, r.side, r.sampler)));
      const errors: string[] = [];
      outcomes.forEach((out, j) => {
        const label = targets[j]?.side.label ?? '?';
        if (out.status === 'fulfilled') log.push(`#${i} ${label} (${Date.now() - t0} ms): ${out.value}`);
        else errors.push(`${label}: step #${i} ${describeStep(step)}: ${errorText(out.reason)}`);
      });
      if (errors.length > 0) {
        failures.push(...errors);
        break;
      }
    }
    const recorded = diff(a.side.recordings, b.side.recordings);
    if (recorded.length > 0) {
      failures.push('kubectl outputs differ');
      checkpoints.push({
        label: 'kubectl outputs',
        agreed: false,
        differences: recorded,
        eventDifferences: [],
        hashesEqual: true,
        states: [emptySide(a.side.recordings), emptySide(b.side.recordings)],
      });
    }
  } catch (err) {
    failures.push(`harness: ${errorText(err)}`);
  } finally {
    await Promise.all(runs.map((r) => r.sampler.stop()));
  }
  for (const r of runs) for (const v of r.sampler.tracker.violations) failures.push(`${r.side.label}: invariant ${v}`);
  const transient: Record<string, Record<string, number>> = {};
  for (const r of runs) for (const [name, n] of r.sampler.tracker.transient) (transient[name] ??= {})[r.side.label] = n;
  const res = result(sc, started, failures, checkpoints, transient, log, o);
  if (res.ok || !o.keepFailed) await Promise.all(runs.map((r) => r.side.removeNamespace()));
  return res;
}

function result(
  sc: Scenario,
  started: number,
  failures: string[],
  checkpoints: CheckpointResult[],
  transient: Record<string, Record<string, number>>,
  log: string[],
  o: ConformanceOptions,
): ScenarioResult {
  const ok = failures.length === 0;
  const lines = [`scenario ${sc.name} (${sc.kind}): ${ok ? 'agrees' : 'FAILS'} — ${sc.description}`];
  for (const f of failures) lines.push(`  ✗ ${f}`);
  for (const cp of checkpoints) {
    if (cp.differences.length > 0)
      lines.push(
        `  differences at "${cp.label}" (path, then both sides):`,
        formatDiff(cp.differences, o.a.label, o.b.label),
      );
    if (cp.eventDifferences.length > 0)
      lines.push(
        `  events differ at "${cp.label}"${o.strictEvents ? '' : ' (not failing: CONFORMANCE_STRICT_EVENTS=0)'}:`,
        formatDiff(cp.eventDifferences, o.a.label, o.b.label),
      );
  }
  if (!ok) lines.push('  steps:', ...log.map((l) => `    ${l}`));
  return {
    name: sc.name,
    kind: sc.kind,
    ok,
    durationMs: Date.now() - started,
    failures,
    checkpoints,
    transient,
    log,
    report: lines.join('\n'),
  };
}

function emptySide(recordings: Record<string, unknown>): NormalizedSide {
  return { ...normalize(emptySnapshot(), ''), recordings };
}

function describeStep(step: Step): string {
  switch (step.do) {
    case 'waitFor':
      return `waitFor "${step.what}"`;
    case 'kubectl':
      return `kubectl ${step.args.join(' ')}`;
    case 'arm':
    case 'disarm':
      return `${step.do} ${step.invariant.name}`;
    case 'compare':
      return `compare ${step.label}`;
    case 'on':
      return `on ${step.side}: ${describeStep(step.step)}`;
    default:
      return step.do;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs tasks with at most `limit` at once; results in input order. */
export function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T>[] {
  let active = 0;
  const queue: Array<() => void> = [];
  const release = (): void => {
    active--;
    queue.shift()?.();
  };
  return tasks.map(async (task) => {
    if (active >= limit) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await task();
    } finally {
      release();
    }
  });
}

export type Summary = {
  readonly suite: string;
  readonly sides: readonly [string, string];
  readonly passed: number;
  readonly failed: number;
  readonly agreement: Record<string, { passed: number; total: number; percent: number }>;
  /** Scenarios in which the events (reason + type per workload) differed (failing unless strictEvents is off). */
  readonly eventsDiffer: readonly string[];
  readonly scenarios: readonly Omit<ScenarioResult, 'report'>[];
};

export function summarize(suite: string, o: ConformanceOptions, results: readonly ScenarioResult[]): Summary {
  const agreement: Summary['agreement'] = {};
  for (const r of results) {
    const k = (agreement[r.kind] ??= { passed: 0, total: 0, percent: 0 });
    k.total++;
    if (r.ok) k.passed++;
  }
  for (const k of Object.values(agreement)) k.percent = Math.round((1000 * k.passed) / k.total) / 10;
  return {
    suite,
    sides: [o.a.label, o.b.label],
    passed: results.filter((r) => r.ok).length,
    failed: results.filter((r) => !r.ok).length,
    agreement,
    eventsDiffer: results.filter((r) => r.checkpoints.some((c) => c.eventDifferences.length > 0)).map((r) => r.name),
    scenarios: results.map(({ report: _report, ...rest }) => rest),
  };
}

export function summaryLine(s: Summary): string {
  const kinds = Object.entries(s.agreement)
    .map(([k, v]) => `${k} ${v.passed}/${v.total} (${v.percent}%)`)
    .join(', ');
  const events = s.eventsDiffer.length > 0 ? `; events differ in ${s.eventsDiffer.length} scenarios` : '';
  // The failed scenarios, each with its first failure, on the line itself: CI shows only an excerpt of the log.
  const failed = s.scenarios
    .filter((r) => !r.ok)
    .map((r) => `\n  failed: ${r.kind} ${r.name}: ${oneLine(r.failures[0] ?? 'no failure recorded', 400)}`)
    .join('');
  return `conformance ${s.suite} [${s.sides[0]} vs ${s.sides[1]}]: ${s.passed} passed, ${s.failed} failed; agreement: ${kinds}${events}${failed}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function writeSummary(s: Summary, dir = join(process.cwd(), 'test', 'conformance', '.results')): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${s.suite}.json`);
  writeFileSync(file, `${JSON.stringify({ ...s, writtenAt: new Date().toISOString() }, null, 2)}\n`);
  return file;
}
