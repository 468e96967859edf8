// Typed reconcile errors, and the one place where API status codes are classified.
export type ReconcileErrorCode =
  | 'ApiError'
  | 'Conflict'
  | 'Unreachable'
  /** Refused without a request: the cluster's circuit is open and its probe is in flight (kube/circuit.ts). */
  | 'ClusterUnavailable'
  | 'UnknownCluster'
  | 'UnknownKind'
  | 'NotOwned'
  | 'MalformedKey'
  | 'Invalid'
  | 'LeaseLost'
  | 'PlanFailed'
  /** A controller's preflight guard refused a plan that would break a safety bound (retryable). */
  | 'GuardRefused';

export class ReconcileError extends Error {
  constructor(
    readonly code: ReconcileErrorCode,
    message: string,
    readonly retryable = true,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class TerminalError extends ReconcileError {
  constructor(code: ReconcileErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, false, options);
  }
}

/**
 * A preflight guard refused the plan: retryable (the next pass reads again), logged at error with `fields`
 * (the counts that broke the bound), since it means a read path undercounted.
 */
export class GuardRefusedError extends ReconcileError {
  constructor(
    message: string,
    readonly fields: Readonly<Record<string, string | number>>,
  ) {
    super('GuardRefused', message, true);
  }
}

/** An HTTP error answer of the kube-apiserver. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly method: string,
    readonly path: string,
    readonly reason: string,
    readonly body: string,
  ) {
    super(`${method} ${path}: ${code} ${reason}`);
    this.name = 'ApiError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.code === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409;
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists';
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/**
 * Connection-level failures: the cluster did not answer at all (refused, reset, DNS, routing, any of
 * undici's connect errors). Reconciles classify by it; the forwarder logs it with a failed watch or identity read.
 */
export function isUnreachable(err: unknown): boolean {
  // Duck-typed, not instanceof: errors raised by Node internals may come from another realm (e.g. under Jest).
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 10; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_CONNECT'))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Classifies a failed reconcile once: 409 → re-read and requeue (retryable Conflict), 400/422 → terminal,
 * except a status write's 422 (retryable), no answer → retryable Unreachable, anything else from the API →
 * retryable.
 *
 * A status is computed from what the pass observed, and the apiserver's validation can refuse a transient one
 * that the next observation computes differently (StatefulSet's currentReplicas, briefly -1 while a surge is
 * scaled back, upstream's computation too): upstream's manager requeues it with backoff, and so does fleetq,
 * instead of dead-lettering a key that nothing may wake again.
 */
export function classify(err: unknown, context: string): ReconcileError {
  if (err instanceof ReconcileError) return err;
  if (err instanceof ApiError) {
    if (err.code === 409) return new ReconcileError('Conflict', `${context}: ${err.message}`, true, { cause: err });
    if (err.code === 422 && isStatusWrite(err))
      return new ReconcileError('Invalid', `${context}: ${err.message}`, true, { cause: err });
    if (err.code === 400 || err.code === 422)
      return new TerminalError('Invalid', `${context}: ${err.message}`, { cause: err });
    return new ReconcileError('ApiError', `${context}: ${err.message}`, true, { cause: err });
  }
  if (isUnreachable(err)) {
    return new ReconcileError('Unreachable', `${context}: cluster unreachable: ${rootMessage(err)}`, true, {
      cause: err,
    });
  }
  return new ReconcileError('ApiError', `${context}: ${rootMessage(err)}`, true, { cause: err });
}

/** A PUT or PATCH of a status subresource. */
function isStatusWrite(err: ApiError): boolean {
  return (err.method === 'PUT' || err.method === 'PATCH') && (err.path.split('?')[0] ?? '').endsWith('/status');
}

function rootMessage(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; isErrorLike(e) && depth < 10; e = e.cause, depth++) parts.push(e.message);
  return parts.length > 0 ? parts.join(': ') : String(err);
}

type ErrorLike = { message: string; code?: unknown; cause?: unknown };

function isErrorLike(e: unknown): e is ErrorLike {
  return typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string';
}
