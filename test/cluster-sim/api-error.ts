// An apiserver refusal as the simulated cluster answers it: a metav1.Status with code, reason and message.
export type StatusCause = { readonly reason?: string; readonly message?: string; readonly field?: string };

export class SimApiError extends Error {
  override name = 'SimApiError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] },
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.code,
    };
  }
}

/** `deployments.apps "web"`: how the apiserver names an object in its messages. */
export function qualified(group: string, plural: string, name: string): string {
  return `${group === '' ? plural : `${plural}.${group}`} "${name}"`;
}

export const notFound = (group: string, plural: string, kind: string, name: string): SimApiError =>
  new SimApiError(404, 'NotFound', `${qualified(group, plural, name)} not found`, { name, group, kind: plural });

export const conflict = (group: string, plural: string, name: string, why: string): SimApiError =>
  new SimApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(group, plural, name)}: ${why}`, {
    name,
    group,
    kind: plural,
  });

export const invalid = (group: string, kind: string, name: string, field: string, why: string): SimApiError =>
  new SimApiError(422, 'Invalid', `${kind}.${group === '' ? '' : group} "${name}" is invalid: ${field}: ${why}`, {
    name,
    group,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message: why, field }],
  });

export const badRequest = (message: string): SimApiError => new SimApiError(400, 'BadRequest', message);

export const expired = (message: string): SimApiError => new SimApiError(410, 'Expired', message);
