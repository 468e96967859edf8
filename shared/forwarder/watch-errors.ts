// How a list or watch ended, classified once: 410 Gone / "too old resource version" mean relist, and so does
// "too large resource version" (a 504 Timeout Status whose cause is ResourceVersionTooLarge: the checkpoint is
// ahead of the cluster, e.g. etcd was restored or replaced; client-go's reflector relists on it too, and waiting
// would never end); an inactivity timeout or a closed stream means watch again from the last resourceVersion;
// a full event buffer means watch again from the last handled one; anything else is an error to back off from.
import { ApiException } from '@kubernetes/client-node';
import { ApiError } from '../kube/errors.js';

export type WatchOutcome =
  | { readonly kind: 'stopped' }
  | {
      readonly kind: 'ended';
      readonly reason: 'ended' | 'timeout';
      readonly events: number;
      readonly durationMs: number;
    }
  | { readonly kind: 'expired'; readonly message: string }
  /** The event buffer was full: the stream was ended after what was buffered; watch again from there. */
  | { readonly kind: 'overflow' }
  | { readonly kind: 'failed'; readonly error: unknown };

type Status = { code?: unknown; reason?: unknown; message?: unknown; details?: unknown };

/** An ERROR event's Status that is not an expiry. */
export class WatchStatusError extends Error {
  override name = 'WatchStatusError';
  constructor(
    readonly code: number | undefined,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

export function isExpiredStatus(status: unknown): boolean {
  if (typeof status !== 'object' || status === null) return false;
  const s = status as Status;
  const message = typeof s.message === 'string' ? s.message.toLowerCase() : '';
  return (
    s.code === 410 ||
    s.reason === 'Expired' ||
    s.reason === 'Gone' ||
    message.includes('too old resource version') ||
    isTooLargeStatus(s, message)
  );
}

/** apimachinery's NewTooLargeResourceVersionError: 504 Timeout, cause ResourceVersionTooLarge. */
function isTooLargeStatus(s: Status, message: string): boolean {
  if (message.includes('too large resource version')) return true;
  const causes = (s.details as { causes?: unknown } | undefined)?.causes;
  return (
    Array.isArray(causes) &&
    causes.some((c) => (c as { reason?: unknown } | null)?.reason === 'ResourceVersionTooLarge')
  );
}

/** The outcome of an ERROR watch event. */
export function outcomeOfStatus(status: unknown): WatchOutcome {
  if (isExpiredStatus(status)) return { kind: 'expired', message: String((status as Status).message ?? 'expired') };
  const s = (typeof status === 'object' && status !== null ? status : {}) as Status;
  const code = typeof s.code === 'number' ? s.code : undefined;
  const reason = typeof s.reason === 'string' ? s.reason : undefined;
  return { kind: 'failed', error: new WatchStatusError(code, reason, String(s.message ?? 'watch ERROR event')) };
}

/** A list or watch request answered 410 Gone (or an expired continue token): from fleetq's REST client or client-node. */
export function isExpiredError(err: unknown): boolean {
  if (err instanceof ApiError || err instanceof ApiException) {
    if (err.code === 410) return true;
    return isExpiredStatus(parseBody(err.body));
  }
  return typeof err === 'object' && err !== null && (err as { statusCode?: unknown }).statusCode === 410;
}

/** client-node's watch aborts after requestTimeoutMs without data: the connection is presumed dead. */
export function isTimeoutError(err: unknown): boolean {
  // A DOMException, which is not always `instanceof Error` (another realm): go by its name.
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
}

/** The outcome of the watch's done callback (err null: the server closed the stream). */
export function outcomeOfDone(err: unknown, events: number, durationMs: number): WatchOutcome {
  if (err === null || err === undefined) return { kind: 'ended', reason: 'ended', events, durationMs };
  if (isTimeoutError(err)) return { kind: 'ended', reason: 'timeout', events, durationMs };
  if (isExpiredError(err)) return { kind: 'expired', message: err instanceof Error ? err.message : String(err) };
  return { kind: 'failed', error: err };
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
