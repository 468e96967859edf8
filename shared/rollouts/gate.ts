// The pin each cluster's target should carry, read off a FleetRollout's ledger (decisions/fleet-rollout-gate.md):
// the revision it may run and whether its rollout is frozen. Pure; the FleetRollout controller writes what this
// says after the ledger write that decided it, so a pass that dies in between is repaired by the next.
//
// For each cluster, the newest ledger entry that moved it decides:
// - rolled back there: the revision it returned to;
// - admitted there (or already available when the entry started): that entry's revision, frozen when it failed
//   and was not rolled back, or when the rollout halted (onFailure Pause) with it in flight;
// - not admitted in any entry: the revision it ran before the template changed (the health reading's previous
//   revision), or '' when it ran none (a new workload: nothing is created until its wave admits it).
import type { ClusterObservation } from './observation.js';
import { PIN_ADMITTED_ANNOTATION, PIN_FROZEN_ANNOTATION, PIN_ROLLOUT_ANNOTATION } from './pin.js';
import { REVISION_PHASE, VERDICT, type FleetRolloutStatus } from './types.js';

export type DesiredPin = {
  /** The revision the cluster may run ('' : none admitted yet). */
  readonly admitted: string;
  /** The cluster's rollout of `admitted` is frozen where it stands. */
  readonly frozen: boolean;
};

/** The pin of `cluster` by the ledger in `status`; `o` is what was read of its target this pass. */
export function desiredPin(status: FleetRolloutStatus, cluster: string, o: ClusterObservation | undefined): DesiredPin {
  const ledger = status.revisions ?? [];
  for (let i = ledger.length - 1; i >= 0; i--) {
    const entry = ledger[i];
    const row = entry?.clusters.find((r) => r.cluster === cluster);
    if (entry === undefined || row === undefined) continue;
    if (row.verdict === VERDICT.RolledBack && row.previousRevision !== undefined && row.previousRevision !== '')
      return { admitted: row.previousRevision, frozen: false };
    const moved = row.admittedAt !== undefined || row.verdict === VERDICT.Succeeded;
    if (!moved) continue;
    const failed = row.verdict === VERDICT.Failed;
    const halted = entry.phase === REVISION_PHASE.Halted && row.verdict === undefined;
    return { admitted: entry.revision, frozen: failed || halted };
  }
  if (o === undefined || !o.present || o.unreachable === true) return { admitted: '', frozen: false };
  // Never admitted: held at the revision it ran before its template changed ('' when it ran none).
  return { admitted: o.previousRevision, frozen: false };
}

/** The annotations a pin is written as (null removes one), from `current` to `desired`; undefined: no change. */
export function pinPatch(
  rollout: string,
  current: Readonly<Record<string, unknown>>,
  desired: DesiredPin | undefined,
): Record<string, string | null> | undefined {
  const want: Record<string, string | null> =
    desired === undefined
      ? { [PIN_ROLLOUT_ANNOTATION]: null, [PIN_ADMITTED_ANNOTATION]: null, [PIN_FROZEN_ANNOTATION]: null }
      : {
          [PIN_ROLLOUT_ANNOTATION]: rollout,
          [PIN_ADMITTED_ANNOTATION]: desired.admitted,
          [PIN_FROZEN_ANNOTATION]: desired.frozen ? desired.admitted : null,
        };
  const changed = Object.entries(want).some(([k, v]) => (current[k] ?? null) !== v);
  return changed ? want : undefined;
}
