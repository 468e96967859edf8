// fleetq's opt-in group-restart backoff for LeaderWorkerSet (beyond upstream). Upstream's pod reconciler deletes a
// group's leader as soon as a pod of the group restarted or was deleted (restart-policy.ts), every time: a group
// whose init container always fails is recreated without pause and without end, and since each recreation makes
// new pods, the kubelet's CrashLoopBackOff never grows. A LeaderWorkerSet annotated
//   fleetq.dev/group-restart-backoff: "true"     (or a limit: an integer 1–1000; "false" turns it off)
// has its groups recreated after an exponential backoff, and not at all past the limit:
//   - recreation k of a group's streak waits min(BASE × 2^(k−2), CAP) after recreation k−1 (the first one of a
//     streak goes at once, as upstream: a one-off restart costs nothing). BASE 10 s, factor 2, CAP 5 min are the
//     kubelet's container restart backoff: a group recreation is a restart of many containers, and client-go's
//     workqueue defaults (5 ms doubling to 1000 s) are sized for API retries, not for rescheduling a group.
//   - a streak ends when a group was not recreated for RESET (10 min = 2 × CAP, the kubelet's and client-go
//     flowcontrol.Backoff's garbage collection of a quiet entry), or when its leader runs another revision.
//   - past the limit (default 10: about 25 min of back-off in all) the group is left as it is, for diagnosis: the
//     LeaderWorkerSet gets the condition GroupRestartLimitReached (True, naming the groups) and a Warning Event
//     GroupRestartLimitReached, once per group. A held group starts over once its leader pod is replaced by
//     someone else (an operator deletes it, a rolling update replaces it); the condition then turns False.
//   - a bad value (not "true", "false" or an integer 1–1000) is untrusted input: the backoff applies with the
//     default limit (the owner asked for a bound; a typo must not lift it) and every recreation records a
//     Warning Event InvalidGroupRestartBackoff that says what is accepted.
// Without the annotation nothing here runs: upstream's behaviour, every golden case unchanged.
//
// Where the state lives. A handler keeps nothing between passes, so each group's streak (count, time of the last
// recreation, the leader uid it recreated or holds, the revision) is kept in the annotation
// `fleetq.dev/group-restart-backoff-state` of the group set's leader StatefulSet (`<lws>`), as JSON keyed by
// group index, written by a strategic merge patch (uid precondition) from the pod key's pass:
//   - it outlives the group's recreation: a recreation deletes the leader pod (and its worker StatefulSet), never
//     the leader StatefulSet, which goes only with the LeaderWorkerSet (and the state with it, as it should);
//   - the LWS pass cannot clobber it: it server-side applies the leader StatefulSet as field manager lws, which
//     removes only fields lws applied before, never a key another manager set, and the key is none of lws's;
//   - on the LeaderWorkerSet itself, the status write (PUT …/status) would leave metadata alone, but a CRD takes
//     no strategic merge patch, and a whole-object update from the pod key would race every spec edit;
//   - pod annotations die with the pods, which is the whole problem.
// The count is written before the delete, in a pass of its own (the writer sends patches and deletes together):
// the state records the uid of the leader it is about to recreate, and the next pass (requeueAfter 0) deletes
// that leader. Every write holds absolute values computed from what was read, so two pods of a group deciding at
// once, or a pass replayed from a stale cache, write the same count; the delete's uid precondition keeps to one
// deletion per leader.
//
// Known difference under backoff: a deleted pod (not a restarted one) that is gone before its delay ends leaves
// no pod key to recreate the group, and its StatefulSet replaces it alone.
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import type { Condition } from '../common/custom-resource.js';
import { wireTime } from '../common/wire-time.js';
import { lwsEventSpec, type LwsEvent } from './events.js';
import { revisionKeyOf } from './revision.js';
import { EventAction, GROUP_INDEX_LABEL, type LeaderWorkerSet } from './types.js';

export const GROUP_RESTART_BACKOFF_ANNOTATION = 'fleetq.dev/group-restart-backoff';
export const GROUP_RESTART_STATE_ANNOTATION = 'fleetq.dev/group-restart-backoff-state';
/** The LeaderWorkerSet condition type (and Event reason) of groups held at the limit. */
export const GROUP_RESTART_LIMIT_CONDITION = 'GroupRestartLimitReached';
export const BackoffReason = {
  LimitReached: 'GroupRestartLimitReached',
  NoGroupHeld: 'NoGroupHeld',
  InvalidValue: 'InvalidGroupRestartBackoff',
  RecordRecreation: 'RecordGroupRecreation',
  RecordStatus: 'GroupRestartLimitStatus',
} as const;

export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_CAP_MS = 300_000;
export const BACKOFF_RESET_MS = 2 * BACKOFF_CAP_MS;
export const DEFAULT_RECREATION_LIMIT = 10;
export const MAX_RECREATION_LIMIT = 1000;

export type BackoffPolicy = {
  readonly limit: number;
  /** The annotation's value when it was not a valid one (the default limit applies). */
  readonly invalid?: string;
};

/** The policy the LeaderWorkerSet opted into, or null (upstream's behaviour). Never throws on bad data. */
export function backoffPolicyOf(lws: Pick<LeaderWorkerSet, 'metadata'>): BackoffPolicy | null {
  const raw = lws.metadata.annotations?.[GROUP_RESTART_BACKOFF_ANNOTATION];
  if (raw === undefined) return null;
  const value = raw.trim();
  if (value === 'false') return null;
  if (value === 'true') return { limit: DEFAULT_RECREATION_LIMIT };
  if (/^[0-9]{1,4}$/.test(value)) {
    const limit = Number(value);
    if (limit >= 1 && limit <= MAX_RECREATION_LIMIT) return { limit };
  }
  return { limit: DEFAULT_RECREATION_LIMIT, invalid: raw };
}

/** The Warning event of a bad annotation value (the value is quoted, cut to 64 characters). */
export function invalidValueEvent(value: string): LwsEvent {
  const shown = JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  return {
    type: 'Warning',
    reason: BackoffReason.InvalidValue,
    action: EventAction.Delete,
    note:
      `annotation ${GROUP_RESTART_BACKOFF_ANNOTATION}: ${shown} is not "true", "false" or a recreation limit ` +
      `(an integer from 1 to ${MAX_RECREATION_LIMIT}); using the default limit ${DEFAULT_RECREATION_LIMIT}`,
  };
}

/** One group's streak. */
export type GroupEntry = {
  /** Recreations fleetq made in this streak. */
  readonly count: number;
  /** When the last of them was decided (ms since the epoch). */
  readonly lastMs: number;
  /** The leader pod recreated last (count includes it), or held at the limit. */
  readonly leaderUid: string;
  /** The revision key of that leader. */
  readonly revision: string;
  /** Held at the limit; the Event went out. */
  readonly held?: boolean;
};
export type BackoffState = Readonly<Record<string, GroupEntry>>;

/** The leader StatefulSet's recorded entries; a malformed annotation (or entry) counts as none. */
export function readBackoffState(sts: StatefulSet | null | undefined): BackoffState {
  const raw = sts?.metadata?.annotations?.[GROUP_RESTART_STATE_ANNOTATION];
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const state: Record<string, GroupEntry> = {};
  for (const [group, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (v === null || typeof v !== 'object') continue;
    const e = v as Record<string, unknown>;
    if (
      Number.isSafeInteger(e.count) &&
      (e.count as number) >= 0 &&
      typeof e.lastMs === 'number' &&
      Number.isFinite(e.lastMs) &&
      typeof e.leaderUid === 'string' &&
      typeof e.revision === 'string'
    ) {
      state[group] = {
        count: e.count as number,
        lastMs: e.lastMs,
        leaderUid: e.leaderUid,
        revision: e.revision,
        ...(e.held === true && { held: true }),
      };
    }
  }
  return state;
}

/** The delay before the next recreation of a group that fleetq recreated `count` times in this streak. */
export function backoffDelayMs(count: number): number {
  if (count <= 0) return 0;
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.min(count - 1, 30), BACKOFF_CAP_MS);
}

/**
 * Whether `entry` still counts for this leader: the same revision; held only while the leader it holds is still
 * there (someone else replaced it: start over); else while within RESET of the last recreation (or recorded for
 * this very leader).
 */
export function isLiveEntry(entry: GroupEntry | undefined, leader: Pod, nowMs: number): boolean {
  if (entry === undefined) return false;
  if (entry.revision !== revisionKeyOf(leader)) return false;
  const sameLeader = entry.leaderUid === (leader.metadata?.uid ?? '');
  if (entry.held === true) return sameLeader;
  return sameLeader || nowMs - entry.lastMs <= BACKOFF_RESET_MS;
}

export type BackoffDecision =
  /** Recreate now: this leader's recreation is recorded (the upstream delete goes out). */
  | { readonly kind: 'recreate' }
  /** Record the recreation of this leader first; look again at once to delete it. */
  | { readonly kind: 'record'; readonly entry: GroupEntry }
  /** In backoff: look again after `waitMs`. */
  | { readonly kind: 'wait'; readonly waitMs: number; readonly count: number }
  /** At the limit: no recreation. `entry` is set when the group is held for the first time (patch + Event). */
  | { readonly kind: 'held'; readonly count: number; readonly entry?: GroupEntry };

/** What to do about upstream's decision to recreate the group of `leader`. Pure. */
export function decideRecreation(policy: BackoffPolicy, state: BackoffState, leader: Pod, now: Date): BackoffDecision {
  const nowMs = now.getTime();
  const uid = leader.metadata?.uid ?? '';
  const recorded = state[groupOf(leader)];
  const entry = isLiveEntry(recorded, leader, nowMs) ? recorded : undefined;
  const count = entry?.count ?? 0;
  if (entry !== undefined && entry.held !== true && entry.leaderUid === uid) {
    return { kind: 'recreate' };
  }
  if (entry?.held === true) return { kind: 'held', count };
  if (count >= policy.limit) {
    return {
      kind: 'held',
      count,
      entry: { count, lastMs: entry?.lastMs ?? nowMs, leaderUid: uid, revision: revisionKeyOf(leader), held: true },
    };
  }
  const waitMs = entry === undefined ? 0 : entry.lastMs + backoffDelayMs(count) - nowMs;
  if (waitMs > 0) return { kind: 'wait', waitMs, count };
  return {
    kind: 'record',
    entry: { count: count + 1, lastMs: nowMs, leaderUid: uid, revision: revisionKeyOf(leader) },
  };
}

/** The group index of a leader pod. */
export function groupOf(leader: Pod): string {
  return leader.metadata?.labels?.[GROUP_INDEX_LABEL] ?? '';
}

/** The groups held at the limit, in index order. */
export function heldGroups(state: BackoffState): string[] {
  return Object.keys(state)
    .filter((g) => state[g]!.held === true)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}

/**
 * The patch writing `state` (entries past RESET dropped unless held) to the leader StatefulSet, uid precondition;
 * a StatefulSet gone means its LeaderWorkerSet is going: nothing to record.
 */
export function statePatch(
  sts: StatefulSet,
  state: BackoffState,
  now: Date,
  events: LwsEvent[],
  lws: LeaderWorkerSet,
): Action {
  const kept = Object.keys(state)
    .filter((g) => state[g]!.held === true || now.getTime() - state[g]!.lastMs <= BACKOFF_RESET_MS)
    .sort();
  const value = JSON.stringify(Object.fromEntries(kept.map((g) => [g, state[g]])));
  return {
    type: 'patch',
    target: { kind: 'StatefulSet', namespace: sts.metadata?.namespace ?? '', name: sts.metadata?.name ?? '' },
    patch: { metadata: { annotations: { [GROUP_RESTART_STATE_ANNOTATION]: value }, uid: sts.metadata?.uid } },
    reason: BackoffReason.RecordRecreation,
    ignore: ['NotFound'],
    ...(events.length > 0 && { events: { onSuccess: events.map((e) => lwsEventSpec(lws, e)) } }),
  };
}

/** The Warning event of a group held at the limit. */
export function limitReachedEvent(group: string, count: number, leaderName: string, stsName: string): LwsEvent {
  return {
    type: 'Warning',
    reason: BackoffReason.LimitReached,
    action: EventAction.Delete,
    note:
      `group ${group} was recreated ${count} times in a row and failed again; leader pod ${leaderName} is kept for ` +
      `diagnosis and the group is not recreated again until its leader pod is replaced (delete it to retry) or ` +
      `its template changes; state in annotation ${GROUP_RESTART_STATE_ANNOTATION} of StatefulSet ${stsName}`,
    related: { kind: 'Pod', name: leaderName },
  };
}

/**
 * The condition as it should be for these held groups, or null when it should stay as it is (absent and no group
 * held, or already saying the same). A True condition with no group held any more turns False.
 */
export function limitCondition(lws: LeaderWorkerSet, held: readonly string[], now: Date): Condition | null {
  const current = (lws.status?.conditions ?? []).find((c) => c.type === GROUP_RESTART_LIMIT_CONDITION);
  const generation = lws.metadata.generation ?? 0;
  const next: Omit<Condition, 'lastTransitionTime'> =
    held.length > 0
      ? {
          type: GROUP_RESTART_LIMIT_CONDITION,
          status: 'True',
          reason: BackoffReason.LimitReached,
          message: `groups held at the recreation limit (not recreated again): ${held.join(', ')}`,
          observedGeneration: generation,
        }
      : {
          type: GROUP_RESTART_LIMIT_CONDITION,
          status: 'False',
          reason: BackoffReason.NoGroupHeld,
          message: 'no group is held at the recreation limit',
          observedGeneration: generation,
        };
  if (current === undefined && held.length === 0) return null;
  if (
    current !== undefined &&
    current.status === next.status &&
    current.reason === next.reason &&
    current.message === next.message
  ) {
    return null;
  }
  const transition = current === undefined || current.status !== next.status;
  return { ...next, lastTransitionTime: transition ? wireTime(now) : current.lastTransitionTime };
}

/** The status write putting `condition` in place of the LeaderWorkerSet's condition of its type. */
export function conditionWrite(lws: LeaderWorkerSet, condition: Condition): Action {
  const others = (lws.status?.conditions ?? []).filter((c) => c.type !== condition.type);
  const object: LeaderWorkerSet = { ...lws, status: { ...lws.status, conditions: [...others, condition] } };
  return { type: 'updateStatus', object };
}
