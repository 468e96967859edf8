// What the debug log says of a plan: per action its type, the object it touches (`Kind namespace/name`), its
// reason and its precondition (uid, resourceVersion); for a patch the fields it sets, for an apply the fields its
// configuration sets, its field manager and force. Never an object's body: the ConfigMap mirror's creates and
// updates carry ConfigMap data, pod templates carry env values, and a log line is no place for either. Pure.
import type { PlanResult } from '../controllers/controller.js';
import type { Action, ObjectRef } from '../kube/actions.js';
import type { ApiObject } from '../kube/meta/object.js';

export type ActionSummary = {
  readonly type: Action['type'];
  readonly ref: string;
  readonly reason?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  /** A patch's or an apply's fields, as dotted paths two levels deep (`metadata.labels`); never their values. */
  readonly fields?: readonly string[];
  readonly propagationPolicy?: string;
  /** An apply's field manager, and whether it takes over other managers' fields. */
  readonly fieldManager?: string;
  readonly force?: boolean;
};

export type PlanSummary = {
  readonly actions: readonly ActionSummary[];
  /** Actions beyond MAX_LISTED, counted only. */
  readonly more?: number;
  readonly requeueAfter?: number;
};

/** Actions listed one by one in a summary; a larger plan's rest is counted. */
export const MAX_LISTED = 50;

const refString = (r: ObjectRef): string => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

function objectRef(o: ApiObject): string {
  const m = o.metadata;
  const name = m?.name || (m?.generateName ? `${m.generateName}*` : '');
  return refString({ kind: o.kind ?? '', namespace: m?.namespace ?? '', name });
}

function fieldPaths(patch: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(patch).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v).map((k2) => `${k}.${k2}`) : [k],
  );
}

export function summarizeAction(a: Action): ActionSummary {
  switch (a.type) {
    case 'create':
      return { type: a.type, ref: objectRef(a.object), reason: a.reason };
    case 'update':
      return {
        type: a.type,
        ref: objectRef(a.object),
        reason: a.reason,
        ...(a.object.metadata?.resourceVersion !== undefined && { resourceVersion: a.object.metadata.resourceVersion }),
      };
    case 'updateStatus':
      return {
        type: a.type,
        ref: objectRef(a.object),
        ...(a.object.metadata?.resourceVersion !== undefined && { resourceVersion: a.object.metadata.resourceVersion }),
      };
    case 'delete':
      return {
        type: a.type,
        ref: refString(a.target),
        reason: a.reason,
        uid: a.uid,
        ...(a.propagationPolicy !== undefined && { propagationPolicy: a.propagationPolicy }),
      };
    case 'patch':
      return { type: a.type, ref: refString(a.target), reason: a.reason, fields: fieldPaths(a.patch) };
    case 'apply':
      return {
        type: a.type,
        ref: refString(a.target),
        reason: a.reason,
        fields: fieldPaths(a.configuration),
        fieldManager: a.fieldManager,
        force: a.force,
      };
    case 'event':
      return { type: a.type, ref: refString(a.event.regarding), reason: a.event.reason };
  }
}

export function summarizePlan(result: PlanResult): PlanSummary {
  const listed = result.actions.slice(0, MAX_LISTED).map(summarizeAction);
  const more = result.actions.length - listed.length;
  return {
    actions: listed,
    ...(more > 0 && { more }),
    ...(result.requeueAfter !== undefined && { requeueAfter: result.requeueAfter }),
  };
}
