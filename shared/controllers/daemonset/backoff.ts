// The failed-daemon-pod backoff: upstream keeps a flowcontrol.Backoff (1 s doubling to 15 min, no jitter) in the
// controller's memory, keyed `<ds uid>/<status.observedGeneration>/<node>`, and garbage-collects an entry once it
// is 2 × 15 min old. A stateless handler keeps the same entries on the DaemonSet, in the annotation
// `fleetq.dev/failed-pod-backoff` (JSON: `{"<observedGeneration>/<node>": {"delayMs": n, "lastUpdate": ms}}`),
// written by a strategic merge patch in the pass that deletes the failed pod; expired entries are dropped then.
//
// Rules (client-go util/flowcontrol/backoff.go):
//   in backoff      now − lastUpdate < delay: the failed pod stays; look again after `delay` (Get(key))
//   Next(key, now)  no entry, or one older than 2 × max: delay = 1 s; else delay = min(2 × delay, max);
//                   lastUpdate = now
import type { DaemonSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import {
  FAILED_POD_BACKOFF_ANNOTATION,
  FAILED_POD_BACKOFF_INITIAL_MS,
  FAILED_POD_BACKOFF_MAX_MS,
  Reason,
} from './types.js';

export type BackoffEntry = { readonly delayMs: number; readonly lastUpdate: number };
export type BackoffState = Readonly<Record<string, BackoffEntry>>;

export function backoffKey(ds: DaemonSet, nodeName: string): string {
  return `${ds.status?.observedGeneration ?? 0}/${nodeName}`;
}

/** The DaemonSet's recorded entries; a malformed annotation (or entry) counts as none. */
export function readBackoff(ds: DaemonSet): BackoffState {
  const raw = ds.metadata?.annotations?.[FAILED_POD_BACKOFF_ANNOTATION];
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const state: Record<string, BackoffEntry> = {};
    for (const [key, v] of Object.entries(parsed as Record<string, unknown>)) {
      const e = v as { delayMs?: unknown; lastUpdate?: unknown } | null;
      if (e && typeof e.delayMs === 'number' && typeof e.lastUpdate === 'number') {
        state[key] = { delayMs: e.delayMs, lastUpdate: e.lastUpdate };
      }
    }
    return state;
  } catch {
    return {};
  }
}

/** IsInBackOffSinceUpdate: the delay to wait (Get(key)) when still in backoff, else undefined. */
export function inBackoff(state: BackoffState, key: string, now: Date): number | undefined {
  const e = state[key];
  if (e === undefined) return undefined;
  return now.getTime() - e.lastUpdate < e.delayMs ? e.delayMs : undefined;
}

const hasExpired = (e: BackoffEntry, nowMs: number) => nowMs - e.lastUpdate > 2 * FAILED_POD_BACKOFF_MAX_MS;

/** Next(key, now). */
export function nextBackoff(state: BackoffState, key: string, now: Date): BackoffState {
  const e = state[key];
  const nowMs = now.getTime();
  const delayMs =
    e === undefined || hasExpired(e, nowMs)
      ? FAILED_POD_BACKOFF_INITIAL_MS
      : Math.min(e.delayMs * 2, FAILED_POD_BACKOFF_MAX_MS);
  return { ...state, [key]: { delayMs, lastUpdate: nowMs } };
}

/** The patch recording `state` (expired entries dropped, as the backoff's GC does), when it changed. */
export function backoffPatch(ds: DaemonSet, before: BackoffState, after: BackoffState, now: Date): Action | null {
  if (after === before) return null;
  const kept = Object.fromEntries(Object.entries(after).filter(([, e]) => !hasExpired(e, now.getTime())));
  const sortedKeys = Object.keys(kept).sort();
  const value = JSON.stringify(Object.fromEntries(sortedKeys.map((k) => [k, kept[k]])));
  return {
    type: 'patch',
    target: { kind: 'DaemonSet', namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '' },
    patch: { metadata: { annotations: { [FAILED_POD_BACKOFF_ANNOTATION]: value }, uid: ds.metadata?.uid } },
    reason: Reason.RecordBackoff,
    ignore: ['NotFound'],
  };
}
