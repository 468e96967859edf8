// The progress view of `fleetq rollout status` and the rows of `fleetq rollout list` (shared/rollouts/format.ts):
// pure functions of a parsed FleetRollout and the time.
import { describe, expect, it } from '@jest/globals';
import { formatList, formatProgress, listRow, rolloutProgress } from '../../../shared/rollouts/format.js';
import { parseFleetRollout } from '../../../shared/rollouts/types.js';
import { CURRENT_REVISION, ledgerRollout } from '../../helpers/rollouts/ledger-fixture.js';

const NOW = Date.parse('2026-03-02T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const progressing = parseFleetRollout(ledgerRollout('web', 'fleetq-system', NOW));
const stopped = parseFleetRollout(ledgerRollout('web', 'fleetq-system', NOW, { stopped: true }));

/** The table's row that starts with `cells` (columns split on two or more spaces). */
const row = (text: string, first: string): string[] | undefined =>
  text
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/))
    .find((cells) => cells[0] === first || cells[1] === first);

describe('rolloutProgress', () => {
  it("groups the current revision's records by wave, each cluster's state from its record", () => {
    const p = rolloutProgress(progressing, NOW);
    expect(p).toMatchObject({
      namespace: 'fleetq-system',
      name: 'web',
      target: 'Deployment shop/web',
      phase: 'Progressing',
      paused: false,
      revision: CURRENT_REVISION,
      attempt: 1,
      wave: 'canary',
      departed: [],
    });
    expect(p.stopReason).toBeUndefined();
    expect(p.waves).toEqual([
      {
        name: 'canary',
        state: 'Current',
        approval: false,
        approved: false,
        soakMs: 600_000,
        clusters: [
          {
            cluster: 'eu-1',
            state: 'Succeeded',
            admittedAt: minutesAgo(29),
            availableSince: minutesAgo(25),
            reason: 'AvailableAndSoaked',
            observedGeneration: 7,
          },
          {
            cluster: 'us-2',
            state: 'Soaking',
            admittedAt: minutesAgo(12),
            availableSince: minutesAgo(4),
            soakRemainingMs: 6 * 60_000, // a 10m soak, available for 4m
            reason: 'Available',
            observedGeneration: 3,
          },
        ],
      },
      // Approved for the previous revision only: the current one still needs it.
      {
        name: 'rest',
        state: 'Pending',
        approval: true,
        approved: false,
        soakMs: 0,
        clusters: [{ cluster: 'ap-3', state: 'Pending' }],
      },
    ]);
  });

  it('a soak past its length shows 0 left, not a negative time', () => {
    const c = rolloutProgress(progressing, NOW + 60 * 60_000).waves[0]?.clusters[1];
    expect(c).toMatchObject({ cluster: 'us-2', state: 'Soaking', soakRemainingMs: 0 });
  });

  it('the current wave waiting for its approval, and approved once the current revision has it', () => {
    const raw = ledgerRollout('web', 'fleetq-system', NOW);
    const [older, current] = raw.status.revisions as [Record<string, unknown>, Record<string, unknown>];
    raw.status.revisions = [older, { ...current, wave: 'rest' }];
    raw.status.wave = 'rest';
    const waiting = rolloutProgress(parseFleetRollout(raw), NOW);
    expect(waiting.waves.map((w) => [w.name, w.state])).toEqual([
      ['canary', 'Done'],
      ['rest', 'WaitingForApproval'],
    ]);
    raw.status.approvals = [{ revision: CURRENT_REVISION, wave: 'rest', at: minutesAgo(1) }];
    const approved = rolloutProgress(parseFleetRollout(raw), NOW);
    expect(approved.waves[1]).toMatchObject({ name: 'rest', state: 'Current', approved: true });
  });

  it('a stopped revision: its stop reason and time, verdicts and the failure signature', () => {
    const p = rolloutProgress(stopped, NOW);
    expect(p).toMatchObject({
      phase: 'RolledBack',
      wave: '',
      stoppedAt: minutesAgo(2),
      stopReason: '1 cluster failed (us-2), past the budget of 0',
    });
    expect(p.waves.map((w) => [w.name, w.state])).toEqual([
      ['canary', 'Done'],
      ['rest', 'Stopped'],
    ]);
    expect(p.waves[0]?.clusters.map((c) => [c.cluster, c.state, c.failure])).toEqual([
      ['eu-1', 'RolledBack', undefined],
      ['us-2', 'Failed', 'ImagePullBackOff (shop/web:2)'],
    ]);
  });

  it('records of a wave the spec no longer has are shown under that wave, after the others', () => {
    const raw = ledgerRollout('web', 'fleetq-system', NOW);
    const spec = raw.spec as { waves: unknown[] };
    spec.waves = [spec.waves[1]];
    const p = rolloutProgress(parseFleetRollout(raw), NOW);
    expect(p.waves.map((w) => [w.name, w.clusters.map((c) => c.cluster)])).toEqual([
      ['rest', ['ap-3']],
      ['canary', ['eu-1', 'us-2']],
    ]);
  });
});

describe('formatProgress', () => {
  it('a header, then one row per cluster under its wave: state, admitted, available, soak left, reason', () => {
    const text = formatProgress(rolloutProgress(progressing, NOW), NOW);
    expect(text).toContain('Rollout:   fleetq-system/web');
    expect(text).toContain('Target:    Deployment shop/web');
    expect(text).toContain('Phase:     Progressing\n');
    expect(text).toContain(`Revision:  ${CURRENT_REVISION} (attempt 1, started 30m ago)`);
    expect(text).toContain('Wave:      canary');
    expect(text).not.toContain('Stopped:');
    expect(row(text, 'WAVE')).toEqual([
      'WAVE',
      'CLUSTER',
      'STATE',
      'ADMITTED',
      'AVAILABLE',
      'SOAK LEFT',
      'FAILURE',
      'REASON',
    ]);
    expect(row(text, 'eu-1')).toEqual([
      'canary (current)',
      'eu-1',
      'Succeeded',
      '29m ago',
      '25m ago',
      '-',
      '-',
      'AvailableAndSoaked',
    ]);
    expect(row(text, 'us-2')).toEqual(['us-2', 'Soaking', '12m ago', '4m ago', '6m', '-', 'Available']);
    expect(row(text, 'ap-3')).toEqual(['rest (pending, needs approval)', 'ap-3', 'Pending', '-', '-', '-', '-', '-']);
  });

  it('wide: the times themselves and the observed generation', () => {
    const text = formatProgress(rolloutProgress(progressing, NOW), NOW, { wide: true });
    expect(row(text, 'us-2')).toEqual(['us-2', 'Soaking', minutesAgo(12), minutesAgo(4), '6m', '3', '-', 'Available']);
  });

  it('stopped: the reason in the header and the failure in its row; paused is said', () => {
    const text = formatProgress(rolloutProgress(stopped, NOW), NOW);
    expect(text).toContain('Stopped:   2m ago: 1 cluster failed (us-2), past the budget of 0');
    expect(text).toContain('Wave:      -');
    expect(row(text, 'us-2')).toEqual([
      'us-2',
      'Failed',
      '12m ago',
      '-',
      '-',
      'ImagePullBackOff (shop/web:2)',
      'FailureSignature',
    ]);
    const paused = parseFleetRollout({
      ...ledgerRollout('web', 'x', NOW),
      spec: { ...ledgerRollout('web', 'x', NOW).spec, paused: true },
    });
    expect(formatProgress(rolloutProgress(paused, NOW), NOW)).toContain('Phase:     Progressing (paused)');
  });

  it('text from the cluster is printed inert: escape sequences shown, not sent to the terminal', () => {
    const raw = ledgerRollout('web', 'fleetq-system', NOW, { stopped: true });
    const current = (raw.status.revisions as Record<string, unknown>[])[1] as Record<string, unknown>;
    current.stopReason = 'bad\u001b[2Jthing';
    const text = formatProgress(rolloutProgress(parseFleetRollout(raw), NOW), NOW);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('bad\\x1b[2Jthing');
  });
});

describe('formatList', () => {
  it('namespace, name, target, revision, wave, phase, age', () => {
    const created = minutesAgo(90);
    const text = formatList([listRow(progressing, created), listRow(stopped, undefined)], NOW);
    expect(row(text, 'NAMESPACE')).toEqual(['NAMESPACE', 'NAME', 'TARGET', 'REVISION', 'WAVE', 'PHASE', 'AGE']);
    const lines = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(lines[1]).toEqual([
      'fleetq-system',
      'web',
      'Deployment/shop/web',
      CURRENT_REVISION,
      'canary',
      'Progressing',
      '90m',
    ]);
    expect(lines[2]).toEqual(['fleetq-system', 'web', 'Deployment/shop/web', CURRENT_REVISION, '-', 'RolledBack', '-']);
    expect(formatList([], NOW)).toBe('No FleetRollouts.');
  });
});
