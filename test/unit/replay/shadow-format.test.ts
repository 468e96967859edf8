// What `replay shadow` prints: per differing key, the fields that differ as a unified diff by path, at most
// --max-diffs of them; the table of differing decisions by kind and action counts all of them.
import { describe, expect, it } from '@jest/globals';
import { changeLines, changeTopic, fieldChanges, flatten } from '../../../shared/replay/shadow-diff.js';
import { formatShadow } from '../../../shared/replay/shadow-format.js';
import type { Difference, ShadowReport } from '../../../shared/replay/shadow.js';

const scale = (to: number) => ({
  type: 'scale',
  target: { kind: 'ReplicaSet', namespace: 'ns', name: 'web-1' },
  from: 3,
  to,
  body: { spec: { replicas: to } },
});

describe('shadow field diff', () => {
  it('flattens a decision to paths, empty containers included', () => {
    expect([...flatten({ actions: [scale(4)], requeueAfter: 5, x: {}, 'a-b': [] })]).toEqual([
      ['actions[0].type', 'scale'],
      ['actions[0].target.kind', 'ReplicaSet'],
      ['actions[0].target.namespace', 'ns'],
      ['actions[0].target.name', 'web-1'],
      ['actions[0].from', 3],
      ['actions[0].to', 4],
      ['actions[0].body.spec.replicas', 4],
      ['requeueAfter', 5],
      ['x', {}],
      ['"a-b"', []],
    ]);
  });

  it('gives only the fields that differ, as - and + lines, with what they are about', () => {
    const a = { actions: [scale(3)] };
    const b = { actions: [scale(4), { type: 'delete', uid: 'u' }], requeueAfter: 1000 };
    const { changes, total } = fieldChanges(a, b);
    expect(changes.flatMap(changeLines)).toEqual([
      '- actions[0].to: 3',
      '+ actions[0].to: 4',
      '- actions[0].body.spec.replicas: 3',
      '+ actions[0].body.spec.replicas: 4',
      '+ actions[1].type: delete',
      '+ actions[1].uid: u',
      '+ requeueAfter: 1000',
    ]);
    expect(total).toBe(5);
    expect(new Set(changes.map((c) => changeTopic(c, a, b)))).toEqual(new Set(['scale', 'delete', 'requeueAfter']));
  });

  it('quotes a value that is not a plain string', () => {
    expect(changeLines({ path: 'error', a: 'two words', b: '' })).toEqual(['- error: two words', '+ error: ""']);
    expect(changeLines({ path: 'x', a: null })).toEqual(['- x: null']);
  });
});

describe('formatShadow', () => {
  const difference = (i: number): Difference => {
    const a = { actions: [scale(3)] };
    const b = { actions: [scale(4)] };
    const { changes, total } = fieldChanges(a, b);
    return {
      key: `c1/Deployment/ns/web-${i}`,
      event: {
        index: i,
        type: 'MODIFIED',
        resource: 'deployments',
        name: `ns/web-${i}`,
        resourceVersion: '7',
        observedAt: 0,
      },
      a,
      b,
      changes,
      changed: total,
    };
  };
  const report: ShadowReport = {
    events: 40,
    decisions: 50,
    failed: 0,
    acting: 30,
    differing: 25,
    differences: Array.from({ length: 25 }, (_, i) => difference(i)),
    byKindAction: [
      { kind: 'Deployment', action: 'scale', differing: 25 },
      { kind: 'ReplicaSet', action: 'requeueAfter', differing: 3 },
    ],
    skipped: [{ reason: 'another cluster', count: 2 }],
    failures: [],
  };

  it('prints at most maxDiffs diffs, says how many more, and the complete table', () => {
    const text = formatShadow(report, { maxDiffs: 2 });
    expect(text.match(/^@@ /gm)).toHaveLength(2);
    expect(text).toContain(
      '@@ c1/Deployment/ns/web-0  after event #0 MODIFIED deployments ns/web-0 (rv 7, 1970-01-01T00:00:00.000Z)\n--- a\n+++ b\n- actions[0].to: 3\n+ actions[0].to: 4\n- actions[0].body.spec.replicas: 3\n+ actions[0].body.spec.replicas: 4\n',
    );
    expect(text).toContain('… 23 more differing decision(s) not printed (--max-diffs 2; -o json has the first 25)');
    expect(text).toMatch(/│ Deployment\s+│ scale\s+│ 25\s+│/);
    expect(text).toMatch(/│ ReplicaSet\s+│ requeueAfter\s+│ 3\s+│/);
    expect(text).toContain('skipped 2×: another cluster');
    expect(text.split('\n').at(-1)).toBe(
      '40 event(s), 50 decision(s) compared (30 with actions or a requeue, 0 failed), 25 difference(s)',
    );
  });

  it('prints 20 by default, and no table when nothing differs', () => {
    expect(formatShadow(report).match(/^@@ /gm)).toHaveLength(20);
    const same = formatShadow({ ...report, differing: 0, differences: [], byKindAction: [] });
    expect(same).not.toContain('@@');
    expect(same).not.toContain('KIND');
  });

  it('prints what came from the log inert: an escape sequence in a name, a value or an error shows as text', () => {
    const esc = '\u001b]52;c;cm0gLXJm\u0007';
    const a = { actions: [], error: `bad ${esc}` };
    const b = { actions: [] };
    const { changes, total } = fieldChanges(a, b);
    const hostile: ShadowReport = {
      ...report,
      differing: 1,
      differences: [{ ...difference(0), key: `c1/Deployment/ns/x${esc}`, a, b, changes, changed: total }],
      byKindAction: [{ kind: `Deployment${esc}`, action: 'error', differing: 1 }],
      failures: [{ error: `bad ${esc}`, count: 1 }],
    };
    const text = formatShadow(hostile);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
    expect(text).toContain('- error: "bad \\u001b]52;c;cm0gLXJm\\u0007"');
    expect(text).toContain('c1/Deployment/ns/x\\x1b]52;c;cm0gLXJm\\x07');
  });
});
