// What the wave planner (plan.ts) returns besides the status: its decisions and Events, as plain data; and the
// working shapes of the ledger the planner's parts share.
import type { ClusterRecord, RevisionLedger } from './types.js';

/** Why a cluster's revision is not admitted (yet). */
export const HOLD_REASON = {
  /** An earlier wave has not finished (every cluster succeeded and soaked, or failed within the budget). */
  WaitingForWave: 'WaitingForWave',
  /** Its wave already has maxConcurrency clusters admitted and not done. */
  WaitingForConcurrency: 'WaitingForConcurrency',
  WaitingForApproval: 'WaitingForApproval',
  /** spec.paused. */
  Paused: 'Paused',
  /** The revision was stopped (rolled back or halted): held until the target changes or a retry. */
  RevisionHeld: 'RevisionHeld',
  /** The target is not there, or asks for another revision: nothing to admit, and its wave does not wait for it. */
  NotOnRevision: 'NotOnRevision',
} as const;
export type HoldReason = (typeof HOLD_REASON)[keyof typeof HOLD_REASON];

export type Decision =
  | { readonly type: 'admit'; readonly cluster: string; readonly revision: string; readonly wave: string }
  | { readonly type: 'freeze'; readonly cluster: string; readonly revision: string; readonly reason: string }
  | {
      readonly type: 'rollback';
      readonly cluster: string;
      readonly fromRevision: string;
      readonly toRevision: string;
      readonly wave: string;
    }
  | { readonly type: 'hold'; readonly cluster: string; readonly revision: string; readonly reason: HoldReason };

/** A Kubernetes Event on the FleetRollout. */
export type RolloutEvent = { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };

/** The planner's working copies of the ledger (internal to shared/rollouts/). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type Row = Mutable<ClusterRecord>;
export type Entry = Omit<Mutable<RevisionLedger>, 'clusters' | 'departed'> & {
  clusters: Row[];
  departed: { cluster: string; wave: string; at: string }[];
};

/** Epoch ms of an RFC 3339 time (NaN when absent). */
export const ms = (iso: string | undefined): number => (iso === undefined ? NaN : Date.parse(iso));

export type Note = (type: RolloutEvent['type'], reason: string, message: string) => void;
