// What `fleetq rollout list|status` prints: pure functions of parsed FleetRollouts (types.ts) and `now`. The
// progress view is the current revision's ledger entry (the last one: the planner's current revision) grouped by
// the spec's waves, each cluster's state read from its record: a verdict when it has one, soaking once the revision
// was seen available there, progressing once admitted, pending before. Text from the cluster is untrusted and is
// printed inert (displayText).
import { displayText } from '../ops/terminal-text.js';
import { PLAIN, textTable, type TextStyle } from '../ops/text-table.js';
import type { ClusterRecord, FleetRollout, RevisionLedger, RolloutPhase, Verdict } from './types.js';

/** A duration the way `fleetq status` prints one: 850ms, 42s, 17m, 5h. */
export function formatAge(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}

/** Phases after which nothing more happens to the revision until the spec changes or a retry. */
export const TERMINAL_PHASES: readonly RolloutPhase[] = ['Succeeded', 'RolledBack', 'Halted'];
/** Terminal phases that mean the revision did not make it (`fleetq rollout status` exits 1 on them). */
export const FAILED_PHASES: readonly RolloutPhase[] = ['RolledBack', 'Halted'];

export type ClusterState = Verdict | 'Soaking' | 'Progressing' | 'Pending';

export type ClusterProgress = {
  readonly cluster: string;
  readonly state: ClusterState;
  readonly admittedAt?: string;
  readonly availableSince?: string;
  /** Soak still to go (ms) while soaking; absent otherwise. */
  readonly soakRemainingMs?: number;
  /** `signature (image)` when a failure signature failed it. */
  readonly failure?: string;
  readonly reason?: string;
  readonly observedGeneration?: number;
};

export type WaveState = 'Done' | 'Current' | 'WaitingForApproval' | 'Pending' | 'Stopped';

export type WaveProgress = {
  readonly name: string;
  readonly state: WaveState;
  /** Whether the wave needs an approval, and whether the current revision has it. */
  readonly approval: boolean;
  readonly approved: boolean;
  readonly soakMs: number;
  readonly clusters: readonly ClusterProgress[];
};

export type RolloutProgress = {
  readonly namespace: string;
  readonly name: string;
  readonly target: string;
  readonly phase: RolloutPhase | 'Unknown';
  readonly paused: boolean;
  readonly revision?: string;
  readonly attempt?: number;
  readonly startedAt?: string;
  readonly wave: string;
  readonly stoppedAt?: string;
  readonly stopReason?: string;
  readonly waves: readonly WaveProgress[];
  readonly departed: readonly { readonly cluster: string; readonly wave: string; readonly at: string }[];
};

/** The ledger entry of the current revision: the last one (oldest first), which the planner rolls and retries. */
export function currentEntry(r: FleetRollout): RevisionLedger | undefined {
  const revisions = r.status.revisions ?? [];
  return revisions[revisions.length - 1];
}

/** The current revision has stopped (past the budget, or one signature twice): held until a retry. */
export function isStopped(r: FleetRollout): boolean {
  return currentEntry(r)?.stoppedAt !== undefined;
}

/** Whether `wave` is approved for `revision` in the rollout's status. */
export function isApproved(r: FleetRollout, revision: string, wave: string): boolean {
  return (r.status.approvals ?? []).some((a) => a.revision === revision && a.wave === wave);
}

function clusterProgress(rec: ClusterRecord, soakMs: number, now: number): ClusterProgress {
  const state: ClusterState =
    rec.verdict ??
    (rec.admittedAt === undefined ? 'Pending' : rec.availableSince === undefined ? 'Progressing' : 'Soaking');
  const soakRemainingMs =
    state === 'Soaking' && rec.availableSince !== undefined
      ? Math.max(0, soakMs - (now - Date.parse(rec.availableSince)))
      : undefined;
  return {
    cluster: rec.cluster,
    state,
    ...(rec.admittedAt !== undefined && { admittedAt: rec.admittedAt }),
    ...(rec.availableSince !== undefined && { availableSince: rec.availableSince }),
    ...(soakRemainingMs !== undefined && { soakRemainingMs }),
    ...(rec.failure !== undefined && { failure: `${rec.failure.signature} (${rec.failure.image})` }),
    ...(rec.reason !== undefined && { reason: rec.reason }),
    ...(rec.observedGeneration !== undefined && { observedGeneration: rec.observedGeneration }),
  };
}

/** The progress view of `r` at `now` (ms since the epoch). */
export function rolloutProgress(r: FleetRollout, now: number): RolloutProgress {
  const entry = currentEntry(r);
  const revision = entry?.revision;
  const specWaves = r.spec.waves.map((w) => w.name);
  // Records of a wave the spec no longer has are shown after the spec's waves, under their own name.
  const extra = [...new Set((entry?.clusters ?? []).map((c) => c.wave))].filter((w) => !specWaves.includes(w));
  const waveSpecs = [
    ...r.spec.waves,
    ...extra.map((name) => ({ name, soakMs: 0, approval: false, clusters: undefined, maxConcurrency: { count: 1 } })),
  ];
  const currentWave = entry?.wave ?? '';
  const currentIndex = waveSpecs.findIndex((w) => w.name === currentWave);
  const waves = waveSpecs.map((w, i): WaveProgress => {
    const approved = revision !== undefined && isApproved(r, revision, w.name);
    const records = (entry?.clusters ?? [])
      .filter((c) => c.wave === w.name)
      .sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
    const clusters = records.map((c) => clusterProgress(c, w.soakMs, now));
    const done = clusters.length > 0 && records.every((c) => c.verdict !== undefined);
    let state: WaveState;
    if (entry?.stoppedAt !== undefined) state = done ? 'Done' : 'Stopped';
    else if (w.name === currentWave) state = w.approval && !approved ? 'WaitingForApproval' : 'Current';
    else if (entry?.phase === 'Succeeded' || (currentIndex >= 0 && i < currentIndex) || done) state = 'Done';
    else state = 'Pending';
    return { name: w.name, state, approval: w.approval, approved, soakMs: w.soakMs, clusters };
  });
  const t = r.spec.target;
  return {
    namespace: r.metadata.namespace,
    name: r.metadata.name,
    target: `${t.kind} ${t.namespace}/${t.name}`,
    phase: r.status.phase ?? 'Unknown',
    paused: r.spec.paused,
    ...(entry !== undefined && {
      revision: entry.revision,
      attempt: entry.attempt,
      startedAt: entry.startedAt,
    }),
    wave: currentWave,
    ...(entry?.stoppedAt !== undefined && { stoppedAt: entry.stoppedAt }),
    ...(entry?.stopReason !== undefined && { stopReason: entry.stopReason }),
    waves,
    departed: entry?.departed ?? [],
  };
}

const ago = (iso: string | undefined, now: number): string =>
  iso === undefined ? '-' : `${formatAge(Math.max(0, now - Date.parse(iso)))} ago`;

/**
 * The progress view as text: a header (rollout, target, phase, revision, wave, stop reason), then one table of
 * every wave's clusters. Wide adds the times themselves and the observed generation.
 */
export function formatProgress(
  p: RolloutProgress,
  now: number,
  o: { readonly wide?: boolean; readonly style?: TextStyle } = {},
): string {
  const t = (s: string, max = 200) => displayText(s, max);
  const head = [
    `Rollout:   ${t(`${p.namespace}/${p.name}`)}`,
    `Target:    ${t(p.target)}`,
    `Phase:     ${p.phase}${p.paused ? ' (paused)' : ''}`,
    `Revision:  ${p.revision === undefined ? '-' : `${t(p.revision)} (attempt ${p.attempt ?? 1}, started ${ago(p.startedAt, now)})`}`,
    `Wave:      ${p.wave === '' ? '-' : t(p.wave)}`,
    ...(p.stopReason !== undefined || p.stoppedAt !== undefined
      ? [`Stopped:   ${ago(p.stoppedAt, now)}: ${t(p.stopReason ?? 'no reason recorded')}`]
      : []),
  ];
  const header = o.wide
    ? ['WAVE', 'CLUSTER', 'STATE', 'ADMITTED', 'AVAILABLE SINCE', 'SOAK LEFT', 'GENERATION', 'FAILURE', 'REASON']
    : ['WAVE', 'CLUSTER', 'STATE', 'ADMITTED', 'AVAILABLE', 'SOAK LEFT', 'FAILURE', 'REASON'];
  const rows: string[][] = [];
  for (const w of p.waves) {
    const label = `${t(w.name, 63)} (${waveLabel(w)})`;
    if (w.clusters.length === 0) {
      rows.push([label, '-', ...header.slice(2).map(() => '')]);
      continue;
    }
    w.clusters.forEach((c, i) => {
      const first = i === 0 ? label : '';
      const soak = c.soakRemainingMs === undefined ? '-' : formatAge(c.soakRemainingMs);
      const failure = c.failure === undefined ? '-' : t(c.failure, 80);
      const reason = c.reason === undefined ? '-' : t(c.reason, o.wide ? 200 : 60);
      rows.push(
        o.wide
          ? [
              first,
              t(c.cluster, 63),
              c.state,
              c.admittedAt ?? '-',
              c.availableSince ?? '-',
              soak,
              c.observedGeneration === undefined ? '-' : String(c.observedGeneration),
              failure,
              reason,
            ]
          : [
              first,
              t(c.cluster, 63),
              c.state,
              ago(c.admittedAt, now),
              ago(c.availableSince, now),
              soak,
              failure,
              reason,
            ],
      );
    });
  }
  const departed = p.departed.map((d) => `  ${t(d.cluster, 63)} (wave ${t(d.wave, 63)}) left ${ago(d.at, now)}`);
  return [
    ...head,
    '',
    textTable(header, rows, { style: o.style ?? PLAIN }),
    ...(departed.length > 0 ? ['', 'Departed:', ...departed] : []),
  ].join('\n');
}

function waveLabel(w: WaveProgress): string {
  if (w.state === 'WaitingForApproval') return 'waiting for approval';
  const approval = w.approval ? (w.approved ? ', approved' : ', needs approval') : '';
  return `${w.state.toLowerCase()}${approval}`;
}

/** One row of `fleetq rollout list`. */
export type RolloutListRow = {
  readonly namespace: string;
  readonly name: string;
  readonly target: string;
  readonly revision: string;
  readonly wave: string;
  readonly phase: string;
  readonly createdAt?: string;
};

export function listRow(r: FleetRollout, createdAt: string | undefined): RolloutListRow {
  const t = r.spec.target;
  return {
    namespace: r.metadata.namespace,
    name: r.metadata.name,
    target: `${t.kind}/${t.namespace}/${t.name}`,
    revision: r.status.revision ?? '',
    wave: r.status.wave ?? '',
    phase: `${r.status.phase ?? ''}${r.spec.paused && r.status.phase !== 'Paused' ? ' (paused)' : ''}`,
    ...(createdAt !== undefined && { createdAt }),
  };
}

export function formatList(rows: readonly RolloutListRow[], now: number, o: { readonly style?: TextStyle } = {}) {
  if (rows.length === 0) return 'No FleetRollouts.';
  const cell = (s: string) => (s === '' ? '-' : displayText(s, 80));
  return textTable(
    ['NAMESPACE', 'NAME', 'TARGET', 'REVISION', 'WAVE', 'PHASE', 'AGE'],
    rows.map((r) => [
      cell(r.namespace),
      cell(r.name),
      cell(r.target),
      cell(r.revision),
      cell(r.wave),
      cell(r.phase),
      r.createdAt === undefined ? '-' : formatAge(Math.max(0, now - Date.parse(r.createdAt))),
    ]),
    { style: o.style ?? PLAIN },
  );
}
