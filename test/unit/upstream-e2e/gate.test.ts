// The upstream e2e gate's own logic: the XML reader, the JUnit reading, the pass/fail rule and the table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { GATE, ownedKinds, planPasses, planRerun, SERIAL_SKIP, SKIP, type GateEntry } from '../../upstream-e2e/gate.js';
import { Outcome, parseJUnit, type JUnitReport, type SpecResult } from '../../upstream-e2e/junit.js';
import {
  decide,
  decideRerun,
  formatReport,
  mergeRuns,
  rowVerdict,
  RowVerdict,
  toRerun,
  type SideRun,
} from '../../upstream-e2e/verdict.js';
import { parseXml, XmlError } from '../../upstream-e2e/xml.js';

describe('xml', () => {
  it('reads elements, attributes, text, CDATA and entities, skipping the declaration and comments', () => {
    const doc = parseXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><!DOCTYPE r>\n<r a="1 &lt; 2" b='&quot;x&quot;'>` +
        `t&amp;u<e/><f k="v">in<![CDATA[<raw & kept>]]>&#65;&#x42;</f></r>`,
    );
    expect(doc).toEqual({
      name: 'r',
      attrs: { a: '1 < 2', b: '"x"' },
      text: 't&u',
      children: [
        { name: 'e', attrs: {}, children: [], text: '' },
        { name: 'f', attrs: { k: 'v' }, children: [], text: 'in<raw & kept>AB' },
      ],
    });
  });
  it.each([
    { name: 'truncated document', doc: '<a><b></b>', want: /<a> is not closed/ },
    { name: 'mismatched close', doc: '<a><b></a></b>', want: /closing <\/a> does not match <b>/ },
    { name: 'unquoted attribute', doc: '<a x=1/>', want: /expected a quoted value for x/ },
    { name: 'unknown entity', doc: '<a>&nbsp;</a>', want: /unknown entity &nbsp;/ },
    { name: 'two roots', doc: '<a/><b/>', want: /a second root element/ },
    { name: 'empty', doc: '  ', want: /no root element/ },
  ])('rejects a $name', ({ doc, want }) => {
    expect(() => parseXml(doc)).toThrow(XmlError);
    expect(() => parseXml(doc)).toThrow(want);
  });
});

// The layout Ginkgo v2 writes through the e2e framework's --report-dir (junit_01.xml): every spec of the
// suite is listed, those the focus left out as bare "skipped"; suite nodes are test cases too.
const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
  <testsuites tests="7" disabled="3" errors="0" failures="2" time="95.1">
      <testsuite name="Kubernetes e2e suite" package="/x" tests="7" disabled="0" skipped="3" errors="0" failures="2" time="95.1" timestamp="2026-12-01T18:40:00">
          <properties><property name="SuiteSucceeded" value="false"></property></properties>
          <testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="0.5"></testcase>
          <testcase name="[It] [sig-apps] Deployment deployment should support proportional scaling [Conformance]" classname="Kubernetes e2e suite" status="failed" time="62.3">
              <failure type="failed">[FAILED] error waiting for replicaset to have 13 replicas: timed out&#xA;waiting 5m0s&#xA;In [It] at: k8s.io/kubernetes/test/e2e/apps/deployment.go:1325 @ 12/01/26 18:41:02.5&#xA;&#xA;There were additional failures</failure>
              <system-err>log lines</system-err>
          </testcase>
          <testcase name="[It] [sig-apps] ReplicaSet should serve a basic image on each replica with a private image" classname="Kubernetes e2e suite" status="skipped" time="0.2">
              <skipped message="skipped - Only supported for providers [gce gke] (not skeleton)"></skipped>
          </testcase>
          <testcase name="[It] [sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]" classname="Kubernetes e2e suite" status="passed" time="12"></testcase>
          <testcase name="[It] [sig-apps] StatefulSet Basic StatefulSet functionality should scale" classname="Kubernetes e2e suite" status="skipped" time="0">
              <skipped message="skipped"></skipped>
          </testcase>
          <testcase name="[It] [sig-apps] Deployment should validate Deployment Status endpoints [Conformance]" classname="Kubernetes e2e suite" status="timedout" time="300">
              <failure type="timedout">[TIMEDOUT] A suite timeout occurred&#xA;In [It] at: k8s.io/kubernetes/test/e2e/apps/deployment.go:530 @ 12/01/26 18:45:00</failure>
          </testcase>
          <testcase name="[ReportAfterSuite] Kubernetes e2e JUnit report" classname="Kubernetes e2e suite" status="passed" time="0"></testcase>
      </testsuite>
  </testsuites>`;

describe('junit', () => {
  it('keeps the specs that ran, with a one-line reason and where a failure happened', () => {
    expect(parseJUnit(REPORT)).toEqual({
      specs: [
        {
          name: '[sig-apps] Deployment deployment should support proportional scaling [Conformance]',
          outcome: 'failed',
          state: 'failed',
          seconds: 62.3,
          reason: 'error waiting for replicaset to have 13 replicas: timed out waiting 5m0s (deployment.go:1325)',
        },
        {
          name: '[sig-apps] ReplicaSet should serve a basic image on each replica with a private image',
          outcome: 'skipped',
          state: 'skipped',
          seconds: 0.2,
          reason: 'Only supported for providers [gce gke] (not skeleton)',
        },
        {
          name: '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
          outcome: 'passed',
          state: 'passed',
          seconds: 12,
        },
        {
          name: '[sig-apps] Deployment should validate Deployment Status endpoints [Conformance]',
          outcome: 'failed',
          state: 'timedout',
          seconds: 300,
          reason: 'A suite timeout occurred (deployment.go:530)',
        },
      ],
      suiteFailures: [],
    });
  });
  it('reads a real report (e2e.test on e2e-fleetq owning only Deployment; trimmed to a few test cases)', () => {
    const xml = readFileSync(join(process.cwd(), 'test/unit/upstream-e2e/fixtures/junit-regression.xml'), 'utf8');
    const fleetq = parseJUnit(xml);
    expect(fleetq).toEqual({
      specs: [
        {
          name: '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
          outcome: 'failed',
          state: 'failed',
          seconds: 62.152393716,
          reason: 'timed out waiting for the condition (replica_set.go:361)',
        },
      ],
      suiteFailures: [],
    });
    const upstream = { specs: [{ ...fleetq.specs[0]!, outcome: Outcome.Passed, state: 'passed' }], suiteFailures: [] };
    expect(decide({ report: upstream }, { report: fleetq }).problems).toEqual([
      'passes on upstream, failed on fleetq: [sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
    ]);
  });
  it('reports a failed suite node apart from the specs', () => {
    const r = parseJUnit(
      `<testsuite name="s"><testcase name="[SynchronizedBeforeSuite]" status="failed"><failure type="failed">[FAILED] no nodes&#xA;In [SynchronizedBeforeSuite] at: suite_test.go:90 @ t</failure></testcase>` +
        `<testcase name="[It] a spec" status="skipped"><skipped message="skipped"/></testcase></testsuite>`,
    );
    expect(r).toEqual({
      specs: [],
      suiteFailures: [
        {
          name: '[SynchronizedBeforeSuite]',
          outcome: 'failed',
          state: 'failed',
          seconds: 0,
          reason: 'no nodes (suite_test.go:90)',
        },
      ],
    });
  });
  it('cuts an object dump out of the reason', () => {
    const text = [
      '[FAILED] checking pod responses: stopped.',
      'failed to Get from replica pod p-1:',
      'resolve_deny: denied destination (get pods p-1)',
      'Pod status:',
      '    &lt;v1.PodStatus&gt;:',
      '        phase: Running',
      'In [It] at: k8s.io/kubernetes@v1.37.2/test/e2e/apps/replica_set.go:229 @ 12/01/26 19:09:30',
    ].join('&#xA;');
    const r = parseJUnit(
      `<testsuite><testcase name="[It] s" status="failed"><failure>${text}</failure></testcase></testsuite>`,
    );
    expect(r.specs[0]?.reason).toBe(
      'checking pod responses: stopped. failed to Get from replica pod p-1: resolve_deny: denied destination (get pods p-1) (replica_set.go:229)',
    );
  });
  it('falls back to the child elements when there is no status attribute', () => {
    const r = parseJUnit(
      `<testsuite><testcase name="[It] f"><error message="boom" type="panicked"/></testcase><testcase name="[It] p"/></testsuite>`,
    );
    expect(r.specs.map((s) => [s.name, s.outcome, s.reason])).toEqual([
      ['f', 'failed', 'boom'],
      ['p', 'passed', undefined],
    ]);
  });
  it('refuses something that is not a JUnit report', () =>
    expect(() => parseJUnit('<html><body/></html>')).toThrow(/not a JUnit report: root element <html>/));
});

const spec = (name: string, outcome: Outcome, reason?: string): SpecResult => ({
  name,
  outcome,
  state: outcome,
  seconds: 1,
  ...(reason && { reason }),
});
const run = (...specs: SpecResult[]): SideRun => ({ report: { specs, suiteFailures: [] } satisfies JUnitReport });

describe('the gate rule', () => {
  it.each([
    { u: 'passed', f: 'passed', want: RowVerdict.Same },
    { u: 'passed', f: 'failed', want: RowVerdict.Regression },
    { u: 'passed', f: 'skipped', want: RowVerdict.Regression },
    { u: 'passed', f: undefined, want: RowVerdict.Regression },
    { u: 'failed', f: 'failed', want: RowVerdict.BothFail },
    { u: 'failed', f: 'passed', want: RowVerdict.FleetqOnlyPass },
    { u: 'skipped', f: 'passed', want: RowVerdict.FleetqOnlyPass },
    { u: 'skipped', f: 'skipped', want: RowVerdict.Same },
    { u: 'skipped', f: 'failed', want: RowVerdict.FleetqOnlyFail },
    { u: undefined, f: 'failed', want: RowVerdict.FleetqOnlyFail },
    { u: 'failed', f: undefined, want: RowVerdict.Same },
  ] as const)('upstream $u, fleetq $f → $want', ({ u, f, want }) => expect(rowVerdict(u, f)).toBe(want));

  it('passes when fleetq passes wherever upstream does, and lists what fails on both', () => {
    const v = decide(
      run(spec('a', 'passed'), spec('b', 'failed', 'needs HTTP'), spec('c', 'skipped', 'gce only')),
      run(spec('a', 'passed'), spec('b', 'failed', 'needs HTTP too'), spec('c', 'skipped', 'gce only')),
    );
    expect(v.problems).toEqual([]);
    expect(v.rows.map((r) => [r.name, r.verdict])).toEqual([
      ['a', 'same'],
      ['b', 'both-fail'],
      ['c', 'same'],
    ]);
    expect(v.fleetq).toEqual({ passed: 1, failed: 1, skipped: 1 });
  });
  it('fails when a spec passes on upstream and fails, or is missing, on fleetq', () => {
    const v = decide(run(spec('a', 'passed'), spec('b', 'passed')), run(spec('a', 'failed', 'x')));
    expect(v.problems).toEqual(['passes on upstream, failed on fleetq: a', 'passes on upstream, absent on fleetq: b']);
  });
  it('fails without a report, on a failed suite node, and when upstream ran nothing', () => {
    const suiteFailed: SideRun = {
      report: { specs: [], suiteFailures: [spec('[SynchronizedBeforeSuite]', 'failed', 'no nodes')] },
    };
    expect(decide({ error: 'exit 2' }, suiteFailed).problems).toEqual([
      'upstream: no report (exit 2)',
      'fleetq: suite node "[SynchronizedBeforeSuite]" failed: no nodes',
    ]);
    expect(decide(run(spec('s', 'skipped')), run(spec('s', 'skipped'))).problems).toEqual([
      'upstream ran no spec: the focus matches nothing that runs',
    ]);
  });
  it('prints one row per spec and one column per side, the reasons, and closes with the fleetq counts', () => {
    const text = formatReport(
      decide(
        run(spec('spec one', 'passed'), spec('spec two', 'failed', 'why up')),
        run(spec('spec one', 'failed', 'why fq'), spec('spec two', 'failed', 'why fq 2')),
      ),
    );
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '  test      upstream  fleetq',
      '  --------  --------  --------',
      '! spec one  passed    FAILED',
      '~ spec two  FAILED    FAILED',
    ]);
    expect(text).toContain('! spec one\n    fleetq: failed: why fq\n~ spec two\n    upstream: failed: why up\n');
    expect(text).toContain('GATE FAILED:\n  - passes on upstream, failed on fleetq: spec one');
    expect(lines[lines.length - 1]).toBe('0 passed, 2 failed');
  });
});

// .ci/run's fleetq_specs reads the run's fleetq counts with this expression.
const CI_FLEETQ_LINE = /^fleetq: *([0-9]*) passed, ([0-9]*) failed, ([0-9]*) skipped$/m;

describe('the gate rule, upstream rerunning what did not pass on fleetq', () => {
  const selected = (...names: string[]): SideRun => run(...names.map((n) => spec(n, 'passed')));
  it('passes when fleetq passes every spec, with upstream not run, and says so in the table', () => {
    const fleetq = run(spec('a', 'passed'), spec('b', 'passed'), spec('c', 'skipped', 'no StorageClass'));
    expect(toRerun(fleetq, selected('a', 'b', 'c'))).toEqual([]);
    const v = decideRerun(fleetq, selected('a', 'b', 'c'), [], undefined);
    expect(v.problems).toEqual([]);
    expect(v.rows.map((r) => [r.name, r.verdict])).toEqual([
      ['a', 'not-rerun'],
      ['b', 'not-rerun'],
      ['c', 'not-rerun'],
    ]);
    const text = formatReport(v);
    expect(text.split('\n').slice(0, 5)).toEqual([
      '  test  upstream                    fleetq',
      '  ----  --------------------------  --------',
      '  a     not run: passed on fleetq   passed',
      '  b     not run: passed on fleetq   passed',
      '  c     not run: skipped on fleetq  skipped',
    ]);
    expect(text).toContain('\nupstream: not run (every spec passed, or skipped itself, on fleetq)\n');
    expect(text).toContain('gate passed: every spec that did not pass on fleetq did not pass on upstream either');
    expect(CI_FLEETQ_LINE.exec(text)?.slice(1)).toEqual(['2', '0', '1']);
  });
  it("excuses a spec that failed on fleetq and fails in upstream's rerun too", () => {
    const fleetq = run(spec('a', 'passed'), spec('b', 'failed', 'no HTTP'));
    expect(toRerun(fleetq, selected('a', 'b'))).toEqual(['b']);
    const v = decideRerun(fleetq, selected('a', 'b'), ['b'], run(spec('b', 'failed', 'no HTTP either')));
    expect(v.problems).toEqual([]);
    expect(v.rows.map((r) => [r.name, r.verdict])).toEqual([
      ['a', 'not-rerun'],
      ['b', 'both-fail'],
    ]);
    const text = formatReport(v);
    expect(text).toContain('~ b\n    upstream: failed: no HTTP either\n    fleetq: failed: no HTTP\n');
    expect(text).toContain(
      'upstream: 0 passed, 1 failed, 0 skipped (rerun of the 1 spec(s) that did not pass on fleetq)',
    );
    expect(CI_FLEETQ_LINE.exec(text)?.slice(1)).toEqual(['1', '1', '0']);
  });
  it("fails on a spec that failed on fleetq and passes in upstream's rerun", () => {
    const v = decideRerun(
      run(spec('a', 'passed'), spec('b', 'failed', 'x')),
      selected('a', 'b'),
      ['b'],
      run(spec('b', 'passed')),
    );
    expect(v.problems).toEqual(['passes on upstream, failed on fleetq: b']);
    expect(formatReport(v)).toMatch(/^! b +passed +FAILED$/m);
  });
  it("reruns a selected spec missing from fleetq's report (its lane timed out), and fails when upstream passes it", () => {
    const fleetq = run(spec('a', 'passed'));
    expect(toRerun(fleetq, selected('a', 'b'))).toEqual(['b']);
    expect(toRerun({ error: 'exit 2' }, selected('a', 'b'))).toEqual(['a', 'b']);
    expect(decideRerun(fleetq, selected('a', 'b'), ['b'], run(spec('b', 'passed'))).problems).toEqual([
      'passes on upstream, absent on fleetq: b',
    ]);
  });
  it('fails when fleetq ran no spec, when the focus selects none, and without a list of the selected specs', () => {
    const selfSkipped = run(spec('a', 'skipped', 'gce only'));
    expect(decideRerun(selfSkipped, selected('a'), [], undefined).problems).toEqual([
      'fleetq ran no spec: the focus matches nothing that runs',
    ]);
    expect(decideRerun(run(), run(), [], undefined).problems).toEqual([
      'the focus selects no spec (dry run)',
      'fleetq ran no spec: the focus matches nothing that runs',
    ]);
    expect(decideRerun(run(spec('a', 'passed')), { error: 'exit 1' }, [], undefined).problems).toEqual([
      'fleetq: no list of the selected specs (dry run: exit 1)',
    ]);
  });
  it("fails when upstream's rerun has no result for a spec it was asked to run, or no report", () => {
    const fleetq = run(spec('a', 'failed', 'x'), spec('b', 'failed', 'y'));
    const v = decideRerun(fleetq, selected('a', 'b'), ['a', 'b'], run(spec('a', 'failed', 'x too')));
    expect(v.problems).toEqual(["upstream's rerun has no result for a spec that did not pass on fleetq: b"]);
    expect(v.rows.map((r) => [r.name, r.verdict])).toEqual([
      ['a', 'both-fail'],
      ['b', 'no-baseline'],
    ]);
    expect(formatReport(v)).toMatch(/^# b +NO RESULT +FAILED$/m);
    expect(decideRerun(fleetq, selected('a', 'b'), ['a', 'b'], { error: 'exit 2' }).problems).toEqual([
      'upstream: no report (exit 2)',
    ]);
    // A spec that did not pass on fleetq and that upstream was not asked to run has no baseline either.
    expect(decideRerun(run(spec('a', 'failed', 'x')), selected('a'), [], undefined).problems).toEqual([
      "upstream's rerun has no result for a spec that did not pass on fleetq: a",
    ]);
  });
});

describe('the rerun passes', () => {
  it("focuses each spec by its exact name, deals the lanes' longest first, and keeps the serial pass apart", () => {
    const name = '[sig-apps] Deployment should (not) run a.b [Conformance]';
    const { parallel, serial } = planRerun(
      [
        { name, seconds: 5 },
        { name: 'x', seconds: 300 },
        { name: 'y', seconds: 10 },
      ],
      [{ name: 'ds [Serial]', seconds: 20 }],
      2,
    );
    expect(parallel).toEqual([
      { name: 'rerun1', focus: ['x$'], skip: SKIP },
      {
        name: 'rerun2',
        focus: ['y$', String.raw`\[sig-apps\] Deployment should \(not\) run a\.b \[Conformance\]$`],
        skip: SKIP,
      },
    ]);
    expect(serial).toEqual({ name: 'serial', focus: [String.raw`ds \[Serial\]$`], skip: SERIAL_SKIP });
    // Ginkgo matches "<suite description> <spec text>"; a longer name that starts with this one is not selected.
    const focus = new RegExp(parallel[1]!.focus[1]!);
    expect(focus.test(`Kubernetes e2e suite (fleetq gate) ${name}`)).toBe(true);
    expect(focus.test(`Kubernetes e2e suite (fleetq gate) ${name} again`)).toBe(false);
  });
  it('makes no pass without specs', () => expect(planRerun([], [], 3)).toEqual({ parallel: [], serial: undefined }));
});

describe('the gate table', () => {
  const { parallel, serial } = planPasses(3);
  const runs = (name: string): boolean =>
    parallel.some((x) => new RegExp(x.focus.join('|')).test(name) && !new RegExp(x.skip).test(name));
  const runsSerial = (name: string): boolean =>
    serial !== undefined && new RegExp(serial.focus.join('|')).test(name) && !new RegExp(serial.skip).test(name);
  const skip = new RegExp(SKIP);
  it('owns every kind whose controller fleetq has', () =>
    expect(ownedKinds().sort()).toEqual(['CronJob', 'DaemonSet', 'Deployment', 'Job', 'ReplicaSet', 'StatefulSet']));
  it('has one entry per kind', () => expect(new Set(GATE.map((e) => e.kind)).size).toBe(GATE.length));
  it.each([
    '[sig-apps] Deployment deployment should support proportional scaling [Conformance]',
    '[sig-cli] Kubectl rollout undo undo should rollback and update deployment env',
    '[sig-api-machinery] Garbage collector should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan [Conformance]',
    '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
    '[sig-apps] Job should run a job to completion when tasks succeed',
    '[sig-apps] Job should terminate job execution when the number of failed indexes exceeds maxFailedIndexes [Conformance]',
    '[sig-apps] StatefulSet Scaling StatefulSetStartOrdinal Removing .start.ordinal',
    '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform rolling updates and roll backs of template modifications with PVCs',
  ])('runs %s in a lane', (name) => expect(runs(name)).toBe(true));
  // Every CronJob spec of 1.37.2 but the two [Slow] ones: the focus is split in two halves, which must miss none.
  it.each([
    'should schedule multiple jobs concurrently [Conformance]',
    'should replace jobs when ReplaceConcurrent [Conformance]',
    'should be able to schedule after more than 100 missed schedule',
    'should not emit unexpected warnings',
    'should set the cronjob-scheduled-timestamp annotation on a job',
    'should remove from active list jobs that have been deleted',
    'should delete successful finished jobs with limit of one successful job',
    'should delete failed finished jobs with limit of one job',
    'should support timezone',
    'should support CronJob API operations [Conformance]',
  ])('runs CronJob %s', (spec) => expect(runs(`[sig-apps] CronJob ${spec}`)).toBe(true));
  it('runs the DaemonSet [Serial] specs in the serial pass only', () => {
    const ds = '[sig-apps] Daemon set should run and stop simple daemon [Conformance] [Serial]';
    expect(runsSerial(ds)).toBe(true);
    expect(runs(ds)).toBe(false);
  });
  it.each([
    '[sig-apps] ReplicationController should serve a basic image on each replica with a public image [Conformance]',
    '[sig-api-machinery] Garbage collector should orphan pods created by rc if delete options say so [Serial] [Conformance]',
    '[sig-apps] CronJob should not schedule jobs when suspended [Slow] [Conformance]',
  ])('leaves out %s', (name) => expect(runs(name) || runsSerial(name)).toBe(false));
  it.each([
    '[sig-apps] Job should run a job to completion when tasks sometimes fail and are locally restarted [Conformance]',
    '[sig-apps] Job should allow to use a pod failure policy to ignore failure matching on exit code',
    '[sig-apps] Job should recreate pods only after they have failed if pod replacement policy is set to Failed',
    '[sig-apps] Job containers restarted by container restart policy should not trigger PodFailurePolicy [FeatureGate:ContainerRestartRules] [Beta] [NodeConformance]',
    '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform rolling updates and roll backs of template modifications [Conformance]',
    '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 with failing container',
  ])('lists %s as unrunnable', (name) => expect(skip.test(name)).toBe(true));
  it('does not list a Job spec whose pods end by their command as unrunnable', () =>
    expect(skip.test('[sig-apps] Job should run a job to completion when tasks succeed')).toBe(false));
  it.each(['[Serial]', '[Disruptive]', '[Slow]', '[Flaky]', '[Feature:Foo]', '[Alpha]'])('skips %s', (tag) =>
    expect(skip.test(`[sig-apps] Deployment x ${tag}`)).toBe(true),
  );
  it('deals the long expressions (StatefulSet, the CronJob halves) to different lanes', () => {
    const laneOf = (expr: string) => parallel.findIndex((p) => p.focus.some((f) => f.includes(expr)));
    const lanes = ['StatefulSet', 'CronJob should (schedule', 'CronJob should (delete'].map(laneOf);
    expect(new Set(lanes).size).toBe(3);
  });
});

describe('the passes of a side', () => {
  const entries: GateEntry[] = [
    { kind: 'Deployment', focus: ['d1', 'd2'] },
    { kind: 'ReplicaSet', focus: ['r'] },
    { kind: 'Job', focus: [] },
    { kind: 'CronJob', focus: ['c'] },
    { kind: 'DaemonSet', focus: [], serialFocus: ['ds'] },
  ];
  it('deals the focus expressions to the lanes round-robin in table order, then one serial pass without [Serial] skipped', () => {
    expect(planPasses(2, entries)).toEqual({
      parallel: [
        { name: 'lane1', focus: ['d1', 'r'], skip: SKIP },
        { name: 'lane2', focus: ['d2', 'c'], skip: SKIP },
      ],
      serial: { name: 'serial', focus: ['ds'], skip: SERIAL_SKIP },
    });
  });
  it('never makes more lanes than focus expressions, nor fewer than one; no serial pass without serialFocus', () => {
    expect(planPasses(9, entries.slice(0, 2)).parallel.map((p) => p.name)).toEqual(['lane1', 'lane2', 'lane3']);
    expect(planPasses(0, entries.slice(0, 2))).toEqual({
      parallel: [{ name: 'lane1', focus: ['d1', 'd2', 'r'], skip: SKIP }],
      serial: undefined,
    });
  });
  it('skips [Serial] in the lanes only', () => {
    const spec = '[sig-apps] Daemon set should run and stop simple daemon [Conformance] [Serial]';
    expect(new RegExp(SKIP).test(spec)).toBe(true);
    expect(new RegExp(SERIAL_SKIP).test(spec)).toBe(false);
    expect(new RegExp(SERIAL_SKIP).test('[sig-apps] x [Slow]')).toBe(true);
  });
  it('merges the passes of a side, or keeps the first error', () => {
    const spec = (name: string): SpecResult => ({ name, outcome: Outcome.Passed, state: 'passed', seconds: 1 });
    const bad: SpecResult = { ...spec('AfterSuite'), outcome: Outcome.Failed, state: 'failed' };
    expect(
      mergeRuns([
        { report: { specs: [spec('a')], suiteFailures: [] } },
        { report: { specs: [spec('b')], suiteFailures: [bad] } },
      ]),
    ).toEqual({ report: { specs: [spec('a'), spec('b')], suiteFailures: [bad] } });
    expect(mergeRuns([{ report: { specs: [spec('a')], suiteFailures: [] } }, { error: 'no junit' }])).toEqual({
      error: 'no junit',
    });
  });
});
