// How a FleetRollout stops: past its failure budget, or when one failure signature on one image shows in two
// clusters. onFailure Rollback returns every cluster that moved to its previous revision, the last wave first;
// Pause freezes every cluster in flight. Either way the revision is held everywhere (the ledger entry's stoppedAt)
// until the target revision changes or a retry.
import type { Decision, Entry, Note, Row } from './decisions.js';
import type { ClusterObservation } from './observation.js';
import { compare } from './select.js';
import { REVISION_PHASE, VERDICT, type Wave } from './types.js';

/**
 * One pull failure, two names: the kubelet reports ErrImagePull on a failed pull and ImagePullBackOff while it
 * waits to try again, so one pod alternates between them and two clusters can show the same failure under each.
 */
function signatureFamily(signature: string): string {
  return signature === 'ErrImagePull' ? 'ImagePullBackOff' : signature;
}

/** The first failure signature on one image seen in two failed clusters, and those clusters. */
export function repeatedSignature(failed: readonly Row[]) {
  const seen = new Map<string, string[]>();
  for (const r of failed) {
    if (r.failure === undefined) continue;
    const key = `${signatureFamily(r.failure.signature)}\u0000${r.failure.image}`;
    const clusters = [...(seen.get(key) ?? []), r.cluster];
    if (clusters.length >= 2) return { ...r.failure, clusters };
    seen.set(key, clusters);
  }
  return undefined;
}

/** Every cluster that moved goes back to its previous revision, the last wave first; the revision is held. */
export function rollBack(
  entry: Entry,
  waves: readonly Wave[],
  obs: (cluster: string) => ClusterObservation,
  at: string,
  decisions: Decision[],
  note: Note,
): void {
  const order = (r: Row) => waves.findIndex((w) => w.name === r.wave);
  const moved = entry.clusters
    .filter((r) => r.admittedAt !== undefined && r.verdict !== VERDICT.RolledBack)
    .sort(
      (a, b) => order(b) - order(a) || compare(b.admittedAt ?? '', a.admittedAt ?? '') || compare(b.cluster, a.cluster),
    );
  for (const row of moved) {
    const to = row.previousRevision || obs(row.cluster).previousRevision;
    if (to === '') {
      if (row.verdict !== VERDICT.Failed)
        decisions.push({
          type: 'freeze',
          cluster: row.cluster,
          revision: entry.revision,
          reason: 'no previous revision to return to',
        });
      note(
        'Warning',
        'RollbackImpossible',
        `${row.cluster}: no previous revision to return to; frozen at ${entry.revision}`,
      );
      continue;
    }
    decisions.push({
      type: 'rollback',
      cluster: row.cluster,
      fromRevision: entry.revision,
      toRevision: to,
      wave: row.wave,
    });
    Object.assign(row, {
      verdict: VERDICT.RolledBack,
      verdictAt: at,
      previousRevision: to,
      reason: row.failedAt !== undefined ? `${row.reason}; rolled back` : `rolled back: ${entry.stopReason}`,
    });
  }
  entry.phase = REVISION_PHASE.RolledBack;
  entry.wave = '';
  note(
    'Warning',
    'RolloutRolledBack',
    `revision ${entry.revision} stopped (${entry.stopReason}); rolling back ${moved.map((r) => r.cluster).join(', ') || 'no cluster'}, held everywhere`,
  );
}

/** onFailure: Pause: every cluster admitted and not done is frozen where it is; the revision is held. */
export function halt(entry: Entry, at: string, decisions: Decision[], note: Note): void {
  const inFlight = entry.clusters.filter((r) => r.admittedAt !== undefined && r.verdict === undefined);
  for (const row of inFlight)
    decisions.push({
      type: 'freeze',
      cluster: row.cluster,
      revision: entry.revision,
      reason: `rollout halted: ${entry.stopReason}`,
    });
  entry.phase = REVISION_PHASE.Halted;
  entry.wave = '';
  note(
    'Warning',
    'RolloutHalted',
    `revision ${entry.revision} stopped at ${at} (${entry.stopReason}); frozen, held everywhere until a retry or a new revision`,
  );
}
