// Label selectors as apimachinery evaluates them (metav1.LabelSelectorAsSelector, labels.Requirement.Matches),
// for every caller: the planners, their observe steps, the forwarder's adoption mapping.
//
// A selector is compiled once, and compiling is where it is checked, as upstream's NewRequirement does: an
// unknown operator, In/NotIn without values, Exists/DoesNotExist with values, a key that is not a qualified
// name, a value that is not a label value, or anything of the wrong shape (selectors read from a cluster are
// untrusted data) makes it invalid. What an invalid selector means is the caller's to decide, each as upstream
// does at that place: the ReplicaSet and Deployment syncs fail (selectorOf throws), the listers that find a
// pod's or ReplicaSet's controllers skip it (selectorOrNothing).
import { TerminalError } from '../errors.js';

export type Labels = Readonly<Record<string, string>>;

export type LabelSelectorRequirement = {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
};

export type LabelSelector = {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
};

export interface Selector {
  /** labels.Selector.Empty(): it has no requirement and selects everything. */
  readonly isEmpty: boolean;
  matches(labels: Labels | undefined): boolean;
  /** labels.Selector.String(): the form a list call's labelSelector takes (requirements sorted by key). */
  toString(): string;
}

export class InvalidSelectorError extends TerminalError {
  constructor(why: string) {
    super('Invalid', `invalid label selector: ${why}`);
  }
}

type Requirement = { readonly key: string; readonly operator: Operator; readonly values: readonly string[] };
type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** labels.Nothing(): a missing selector. Not empty: Empty() is false for it upstream too. */
export const NOTHING: Selector = { isEmpty: false, matches: () => false, toString: () => '' };

/**
 * metav1.LabelSelectorAsSelector: undefined or null selects nothing, a selector without requirements selects
 * everything, matchLabels and matchExpressions are ANDed. Throws InvalidSelectorError for an invalid one.
 */
export function selectorOf(selector: unknown): Selector {
  if (selector === undefined || selector === null) return NOTHING;
  return compile(requirementsOf(selector));
}

/**
 * The same, but an invalid selector selects nothing: what upstream's listers do when they look for the
 * controllers of an object ("This object has an invalid selector, it does not match any pods").
 */
export function selectorOrNothing(selector: unknown): Selector {
  try {
    return selectorOf(selector);
  } catch (err) {
    if (err instanceof InvalidSelectorError) return NOTHING;
    throw err;
  }
}

/** Has no requirement at all (the deployment controller's SelectingAll guard); false for a missing one. */
export function isSelectingAll(selector: LabelSelector | undefined): boolean {
  return (
    selector !== undefined &&
    Object.keys(selector.matchLabels ?? {}).length === 0 &&
    (selector.matchExpressions ?? []).length === 0
  );
}

/** labels.SelectorFromSet(subset).Matches(labels): every label of `subset` is on `labels` with its value. */
export function hasLabels(labels: Labels | undefined, subset: Labels | undefined): boolean {
  return Object.entries(subset ?? {}).every(([k, v]) => labels?.[k] === v);
}

/** An object's labels, or none when metadata.labels is missing or not a map (untrusted data). */
export function labelsOf(object: { readonly metadata?: { readonly labels?: unknown } } | undefined): Labels {
  const labels = object?.metadata?.labels;
  return isRecord(labels) ? (labels as Labels) : {};
}

function compile(requirements: readonly Requirement[]): Selector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text = sorted.map(requirementString).join(',');
  return {
    isEmpty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => isMet(r, labels ?? {})),
    toString: () => text,
  };
}

function requirementsOf(selector: unknown): Requirement[] {
  if (!isRecord(selector)) throw new InvalidSelectorError('not an object');
  const { matchLabels, matchExpressions } = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  const out: Requirement[] = [];
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) throw new InvalidSelectorError('matchLabels is not a map');
    for (const [key, value] of Object.entries(matchLabels)) {
      if (typeof value !== 'string') throw new InvalidSelectorError(`matchLabels ${quote(key)} is not a string`);
      out.push(checked({ key, operator: 'In', values: [value] }));
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw new InvalidSelectorError('matchExpressions is not a list');
    for (const e of matchExpressions as unknown[]) out.push(expression(e));
  }
  return out;
}

function expression(e: unknown): Requirement {
  if (!isRecord(e)) throw new InvalidSelectorError('a matchExpressions entry is not an object');
  const { key, operator, values } = e as { key?: unknown; operator?: unknown; values?: unknown };
  if (typeof key !== 'string') throw new InvalidSelectorError('a matchExpressions key is not a string');
  const list = values === undefined || values === null ? [] : values;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
    throw new InvalidSelectorError(`values of ${quote(key)} are not a list of strings`);
  }
  if (operator !== 'In' && operator !== 'NotIn' && operator !== 'Exists' && operator !== 'DoesNotExist') {
    throw new InvalidSelectorError(`${quote(String(operator))} is not a valid label selector operator`);
  }
  return checked({ key, operator, values: list as string[] });
}

/** labels.NewRequirement's checks. */
function checked(r: Requirement): Requirement {
  if (!isQualifiedName(r.key)) throw new InvalidSelectorError(`key ${quote(r.key)} is not a qualified name`);
  const needsValues = r.operator === 'In' || r.operator === 'NotIn';
  if (needsValues && r.values.length === 0) {
    throw new InvalidSelectorError(`${r.operator} on ${quote(r.key)} needs values`);
  }
  if (!needsValues && r.values.length > 0) {
    throw new InvalidSelectorError(`${r.operator} on ${quote(r.key)} takes no values`);
  }
  for (const v of r.values) {
    if (!isLabelValue(v)) throw new InvalidSelectorError(`value ${quote(v)} of ${quote(r.key)} is not a label value`);
  }
  return r;
}

function isMet(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && r.values.includes(labels[r.key] ?? '');
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key] ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

function requirementString(r: Requirement): string {
  const values = [...r.values].sort().join(',');
  switch (r.operator) {
    case 'In':
      return r.values.length === 1 ? `${r.key}=${values}` : `${r.key} in (${values})`;
    case 'NotIn':
      return `${r.key} notin (${values})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
  }
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName: [prefix/]name, the prefix a DNS-1123 subdomain, the name at most 63 characters. */
function isQualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) return false;
  return name.length <= 63 && NAME.test(name);
}

/** validation.IsValidLabelValue: empty, or a name of at most 63 characters. */
function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function quote(s: string): string {
  return JSON.stringify(s.slice(0, 100));
}
