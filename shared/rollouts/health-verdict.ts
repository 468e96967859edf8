// What every kind's health reading shares: its options, the observation of an absent or unreadable target, the
// guard that turns any throw on a malformed object into a not-available verdict, and the pods of a revision.
import { controllerUidOf, type WithOwners } from '../kube/meta/controller-ref.js';
import type { ClusterObservation, RolloutTargetKind } from './observation.js';
import { revisionFailure } from './health-signatures.js';
import { count, errorText, isRecord, labelOf, recordOf, recordsOf, type Json } from './health-untrusted.js';

export type HealthOptions = {
  /** The time the objects were read at (availability for minReadySeconds, readiness threshold). */
  readonly now: Date;
  /** The FleetRollout's progressDeadline: the default of readinessThresholdMs. */
  readonly progressDeadlineMs: number;
  /** How long a running pod of the new revision may stay not Ready before it is ReadinessNeverPassed. */
  readonly readinessThresholdMs?: number;
};

/** What one kind's reading decided, before the common fields are added. */
export type KindVerdict = {
  readonly revision: string;
  readonly previousRevision: string;
  /** '' when available. */
  readonly notAvailable: string;
  /** The pods of `revision` (by controller and revision label): where failure signatures are looked for. */
  readonly revisionPods: readonly unknown[];
};

export function absent(cluster: string, reason: string): ClusterObservation {
  return {
    cluster,
    present: false,
    revision: '',
    previousRevision: '',
    generation: 0,
    observedGeneration: 0,
    available: false,
    reason,
  };
}

/**
 * The observation of a present target: its generations, then the kind's verdict; a throw anywhere in it (a
 * malformed object deep inside a template or a status) is a not-available observation naming the error.
 */
export function observe(
  cluster: string,
  kind: RolloutTargetKind,
  target: unknown,
  options: HealthOptions,
  verdictOf: (target: Json) => KindVerdict,
): ClusterObservation {
  if (target === null || target === undefined) return absent(cluster, `${kind} not found`);
  if (!isRecord(target)) return absent(cluster, `malformed ${kind}: not an object`);
  const generation = count(recordOf(target.metadata).generation);
  const observedGeneration = count(recordOf(target.status).observedGeneration);
  const common = { cluster, present: true, generation, observedGeneration };
  let verdict: KindVerdict;
  try {
    verdict = verdictOf(target);
  } catch (err) {
    return {
      ...common,
      revision: '',
      previousRevision: '',
      available: false,
      reason: `malformed ${kind}: ${errorText(err)}`,
    };
  }
  const failure =
    verdict.revision === ''
      ? undefined
      : revisionFailure(verdict.revisionPods, verdict.revision, {
          now: options.now,
          readinessThresholdMs: options.readinessThresholdMs ?? options.progressDeadlineMs,
        });
  return {
    ...common,
    revision: verdict.revision,
    previousRevision: verdict.previousRevision,
    available: verdict.notAvailable === '',
    ...(verdict.notAvailable !== '' && { reason: verdict.notAvailable }),
    ...(failure && { failure }),
  };
}

/** The first reason of a list of checks, '' when every check passed. */
export function firstReason(...checks: readonly (() => string)[]): string {
  for (const check of checks) {
    const reason = check();
    if (reason !== '') return reason;
  }
  return '';
}

/** The pods controlled by `ownerUid` whose `label` is `revision`. */
export function podsOfRevision(pods: unknown, ownerUid: string, label: string, revision: string): Json[] {
  if (ownerUid === '' || revision === '') return [];
  return recordsOf(pods).filter((p) => controllerUidOf(p as WithOwners) === ownerUid && labelOf(p, label) === revision);
}

/** The objects of a list controlled by `ownerUid` (none without one). */
export function controlledBy(objects: unknown, ownerUid: string): Json[] {
  if (ownerUid === '') return [];
  return recordsOf(objects).filter((o) => controllerUidOf(o as WithOwners) === ownerUid);
}

export function isBeingDeleted(target: Json): boolean {
  const t = recordOf(target.metadata).deletionTimestamp;
  return t !== undefined && t !== null;
}

export function generationReason(target: Json): string {
  const generation = count(recordOf(target.metadata).generation);
  const observed = count(recordOf(target.status).observedGeneration);
  if (observed === 0) return 'status not observed yet (observedGeneration 0)';
  return observed >= generation ? '' : `observedGeneration ${observed} is behind generation ${generation}`;
}
