// Server-side apply as one request: a PATCH of the object's own path whose body is the apply configuration, sent as
// application/apply-patch+yaml (JSON is YAML), with the field manager and force as query parameters, as
// controller-runtime's client.Apply sends it. Pure: the writer sends what this returns.
//
// The apiserver refuses, with 400 or 422, an apply whose configuration names another object than the path (name,
// namespace), lacks apiVersion or kind, or carries metadata.managedFields, and one without a field manager or with
// one over 128 characters or not printable. Those are a planner's mistakes, found here before any request: a
// terminal PlanFailed that says which, not a refusal from every cluster the plan goes to.
import type { Action } from './actions.js';
import { TerminalError } from './errors.js';
import { withoutDroppedMarker } from './meta/dropped-annotations.js';
import type { ApiObject } from './meta/object.js';
import { resourceOf, resourcePath } from './resources.js';

export const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

/** The apiserver's limit on a field manager's length (ValidateFieldManager). */
export const MAX_FIELD_MANAGER_LENGTH = 128;

export type ApplyAction = Extract<Action, { readonly type: 'apply' }>;

export type ApplyRequest = {
  readonly method: 'PATCH';
  readonly path: string;
  readonly query: { readonly fieldManager: string; readonly force: boolean };
  readonly contentType: typeof APPLY_PATCH_CONTENT_TYPE;
  readonly body: ApiObject;
};

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/** Why the apiserver would refuse this apply before looking at the object, or undefined. */
export function applyProblem(a: ApplyAction): string | undefined {
  const { target, configuration: c } = a;
  if (a.fieldManager === '') return 'no field manager (an apply must name one)';
  if ([...a.fieldManager].length > MAX_FIELD_MANAGER_LENGTH) {
    return `field manager longer than ${MAX_FIELD_MANAGER_LENGTH} characters`;
  }
  if (!PRINTABLE.test(a.fieldManager)) return 'field manager with characters that are not printable';
  if (c.kind !== target.kind) return `configuration of kind ${c.kind ?? '(none)'} applied to a ${target.kind}`;
  const info = resourceOf(target.kind);
  if (c.apiVersion !== info.apiVersion) {
    return `configuration of apiVersion ${c.apiVersion ?? '(none)'}, not ${info.apiVersion}`;
  }
  const m = c.metadata;
  if (target.name === '' || m?.name !== target.name) {
    return `configuration named ${m?.name ?? '(none)'}, not ${target.name || '(none)'}`;
  }
  if (info.namespaced !== (target.namespace !== '')) {
    return info.namespaced ? `${target.kind} is namespaced: no namespace given` : `${target.kind} has no namespace`;
  }
  if ((m.namespace ?? '') !== target.namespace) {
    return `configuration in namespace ${m.namespace || '(none)'}, not ${target.namespace || '(none)'}`;
  }
  const managed = (m as Readonly<Record<string, unknown>>).managedFields;
  if (managed !== undefined && managed !== null) return 'configuration carries metadata.managedFields';
  return undefined;
}

/** The request that applies `a`; a configuration the apiserver would refuse is a terminal PlanFailed. */
export function applyRequest(a: ApplyAction): ApplyRequest {
  const problem = applyProblem(a);
  if (problem !== undefined) {
    throw new TerminalError(
      'PlanFailed',
      `apply of ${a.target.kind} ${a.target.namespace ? `${a.target.namespace}/` : ''}${a.target.name} (${a.reason}): ${problem}`,
    );
  }
  const { target } = a;
  return {
    method: 'PATCH',
    path: resourcePath(resourceOf(target.kind), target.namespace, target.name),
    query: { fieldManager: a.fieldManager, force: a.force },
    contentType: APPLY_PATCH_CONTENT_TYPE,
    body: withoutDroppedMarker(a.configuration),
  };
}
