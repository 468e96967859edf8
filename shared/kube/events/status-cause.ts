// What upstream's event code reads from a failed request: the Status message (what a Go StatusError prints,
// so what `Error creating: %v` shows) and the Status causes (apierrors.HasStatusCause).
import { ApiError } from '../errors.js';

/** v1.NamespaceTerminatingCause: the write was refused because its namespace is being deleted. */
export const NAMESPACE_TERMINATING = 'NamespaceTerminating';

/** metav1.Status as JSON; a StatusCause's Go field Type is named `reason` on the wire. */
type Status = { message?: unknown; details?: { causes?: Array<{ reason?: unknown }> } };

function statusOf(err: ApiError): Status | undefined {
  try {
    const s = JSON.parse(err.body) as unknown;
    return s !== null && typeof s === 'object' ? (s as Status) : undefined;
  } catch {
    return undefined;
  }
}

export function hasStatusCause(err: unknown, cause: string): boolean {
  if (!(err instanceof ApiError)) return false;
  return (statusOf(err)?.details?.causes ?? []).some((c) => c.reason === cause);
}

/**
 * A 403 that is not a namespace being deleted (also a 403): the caller's role lacks a rule (RBAC), or an
 * admission plugin refused the caller. Not transient: retrying will not help until the role is fixed.
 */
export function isAccessDenied(err: unknown): boolean {
  return err instanceof ApiError && err.code === 403 && !hasStatusCause(err, NAMESPACE_TERMINATING);
}

/** The error as upstream's `%v` prints it: the apiserver's Status message, else the error's own message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const m = statusOf(err)?.message;
    if (typeof m === 'string' && m !== '') return m;
  }
  return err instanceof Error ? err.message : String(err);
}
