// Reads the JUnit report a Kubernetes e2e.test writes (--report-dir → junit_01.xml, Ginkgo v2's JUnit
// layout): one result per spec that ran, with a one-line reason for failures and skips.
import { childrenNamed, parseXml, type XmlElement } from './xml.js';

export const Outcome = { Passed: 'passed', Failed: 'failed', Skipped: 'skipped' } as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

export type SpecResult = {
  /** The spec's full text, without Ginkgo's leading node type ("[It] "). */
  readonly name: string;
  readonly outcome: Outcome;
  /** Ginkgo's state: passed, failed, timedout, panicked, interrupted, aborted, skipped, pending. */
  readonly state: string;
  readonly seconds: number;
  /** For failures and skips: the first line of the message, and for failures where it failed. */
  readonly reason?: string;
};

export type JUnitReport = {
  readonly specs: readonly SpecResult[];
  /** Suite-level nodes (BeforeSuite, AfterSuite, ReportAfterSuite…) that failed: the run is not trustworthy. */
  readonly suiteFailures: readonly SpecResult[];
};

const FAILED_STATES = new Set(['failed', 'timedout', 'panicked', 'interrupted', 'aborted']);
const SKIPPED_STATES = new Set(['skipped', 'pending']);
const REASON_MAX = 400;

export function parseJUnit(xml: string): JUnitReport {
  const root = parseXml(xml);
  const suites = root.name === 'testsuites' ? childrenNamed(root, 'testsuite') : [root];
  if (root.name !== 'testsuites' && root.name !== 'testsuite')
    throw new Error(`not a JUnit report: root element <${root.name}>`);
  const specs: SpecResult[] = [];
  const suiteFailures: SpecResult[] = [];
  for (const suite of suites) {
    for (const tc of childrenNamed(suite, 'testcase')) {
      const result = readCase(tc);
      if (result === 'not-selected') continue;
      if (result.isSpec) specs.push(result.spec);
      else if (result.spec.outcome === Outcome.Failed) suiteFailures.push(result.spec);
    }
  }
  return { specs, suiteFailures };
}

function readCase(tc: XmlElement): { isSpec: boolean; spec: SpecResult } | 'not-selected' {
  const fullName = (tc.attrs.name ?? '').trim();
  const isSpec = fullName.startsWith('[It] ');
  const name = isSpec ? fullName.slice('[It] '.length) : fullName;
  const failure = childrenNamed(tc, 'failure')[0] ?? childrenNamed(tc, 'error')[0];
  const skipped = childrenNamed(tc, 'skipped')[0];
  const state = tc.attrs.status ?? (failure ? 'failed' : skipped ? 'skipped' : 'passed');
  const seconds = Number(tc.attrs.time ?? '0') || 0;
  if (FAILED_STATES.has(state) || (failure && !SKIPPED_STATES.has(state))) {
    const reason = failureReason(failure);
    return { isSpec, spec: { name, outcome: Outcome.Failed, state, seconds, ...(reason && { reason }) } };
  }
  if (SKIPPED_STATES.has(state) || skipped) {
    const message = skipped?.attrs.message ?? state;
    // Ginkgo lists every spec the focus/skip filters left out as skipped with the bare message "skipped";
    // a spec that ran and skipped itself (e2eskipper) says why after " - ".
    if (message === 'skipped' || message === 'pending') return 'not-selected';
    const reason = oneLine(message.replace(/^skipped - /, ''));
    return { isSpec, spec: { name, outcome: Outcome.Skipped, state, seconds, reason } };
  }
  return { isSpec, spec: { name, outcome: Outcome.Passed, state, seconds } };
}

/** "[FAILED] message…\nIn [It] at: k8s.io/…/deployment.go:1266 @ time" → "message… (deployment.go:1266)". */
export function failureReason(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  const text = el.text.trim() || el.attrs.message?.trim() || el.attrs.type || '';
  if (text === '') return undefined;
  const lines = text.split('\n');
  const where = lines.find((l) => l.startsWith('In [') && l.includes(' at: '));
  // The message runs up to Ginkgo's "In [It] at:" line; an object dump in it (indented lines, and the
  // line that introduces them) is cut off.
  const indented = (l: string | undefined): boolean => l !== undefined && /^\s/.test(l);
  const end = lines.findIndex((l, i) => l.startsWith('In [') || (i > 0 && (indented(l) || indented(lines[i + 1]))));
  const head = oneLine(lines.slice(0, end < 0 ? lines.length : end).join(' ')).replace(/^\[[A-Z]+\]\s*/, '');
  const at = where?.split(' at: ')[1]?.split(' @ ')[0]?.split('/').pop();
  const suffix = at ? ` (${at})` : '';
  return truncate(head, REASON_MAX - suffix.length) + suffix;
}

function oneLine(s: string): string {
  return truncate(s.replace(/\s+/g, ' ').trim());
}

function truncate(s: string, max = REASON_MAX): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
