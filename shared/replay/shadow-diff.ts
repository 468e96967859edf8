// How two decisions of `replay shadow` differ, field by field: each decision flattened to `path: value` leaves
// (`actions[0].object.spec.replicas: 3`), then the leaves that differ, in the order of the first decision's
// fields (fields only the second has follow). What a reader of a difference wants to see is which field of which
// action changed, not two whole objects. Pure: no I/O.
import { terminalSafeJson } from '../ops/terminal-text.js';

/** One field that differs: its value in each build (absent: the build has no such field). */
export type FieldChange = { readonly path: string; readonly a?: unknown; readonly b?: unknown };

/** Changed fields kept per difference; beyond it they are counted (a changed Pod template can be hundreds). */
export const MAX_CHANGES = 200;

/** The leaves of `value` by path; an empty object or array is a leaf of its own ({} or []). */
export function flatten(value: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(path, []);
    value.forEach((v, i) => flatten(v, `${path}[${i}]`, out));
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) out.set(path, {});
    for (const [k, v] of entries) {
      const segment = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k);
      flatten(v, path === '' ? segment : /^"/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`, out);
    }
    return out;
  }
  out.set(path, value);
  return out;
}

const same = (x: unknown, y: unknown): boolean =>
  x === y || (typeof x === 'object' && typeof y === 'object' && JSON.stringify(x) === JSON.stringify(y));

/** The fields that differ between `a` and `b` (at most MAX_CHANGES), and how many in all. */
export function fieldChanges(a: unknown, b: unknown): { changes: FieldChange[]; total: number } {
  const fa = flatten(a);
  const fb = flatten(b);
  const changes: FieldChange[] = [];
  let total = 0;
  const add = (c: FieldChange): void => {
    if (total++ < MAX_CHANGES) changes.push(c);
  };
  for (const [path, va] of fa) {
    if (!fb.has(path)) add({ path, a: va });
    else if (!same(va, fb.get(path))) add({ path, a: va, b: fb.get(path) });
  }
  for (const [path, vb] of fb) if (!fa.has(path)) add({ path, b: vb });
  return { changes, total };
}

/**
 * What a change is about, for the summary by kind and action: the type of the action it is in
 * (`actions[2].…` → that action's type in either decision, e.g. `scale`), else the decision's own field
 * (`requeueAfter`, `error`).
 */
export function changeTopic(change: FieldChange, a: { actions?: unknown }, b: { actions?: unknown }): string {
  const m = /^actions\[(\d+)\]/.exec(change.path);
  if (!m) return change.path.split(/[.[]/)[0] || '(decision)';
  const i = Number(m[1]);
  const typeOf = (d: { actions?: unknown }): unknown =>
    Array.isArray(d.actions) ? (d.actions[i] as { type?: unknown } | undefined)?.type : undefined;
  const type = typeOf(a) ?? typeOf(b);
  return typeof type === 'string' ? type : 'action';
}

/** A value as one line of a diff: strings as they are when plain, everything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string' && /^[\x20-\x7e]*$/.test(value) && value.trim() === value && value !== '') return value;
  return value === undefined ? 'undefined' : terminalSafeJson(value);
}

/** `- path: a` / `+ path: b` lines of a change (a field only one side has gives one line). */
export function changeLines(change: FieldChange): string[] {
  const lines: string[] = [];
  if ('a' in change) lines.push(`- ${change.path}: ${valueText(change.a)}`);
  if ('b' in change) lines.push(`+ ${change.path}: ${valueText(change.b)}`);
  return lines;
}
