// metav1.LabelSelector semantics (apimachinery LabelSelectorAsSelector): matchLabels and matchExpressions are
// ANDed; an empty selector matches everything; an unknown operator matches nothing.
export type SelectorRequirement = {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
};

export type LabelSelector = {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly SelectorRequirement[];
};

export type Labels = Readonly<Record<string, string>>;

export function isSelectorEmpty(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

export function isSelectorMatch(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  // A selector read from a cluster is untrusted: anything but a list of requirements matches nothing.
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) return false;
  return expressions.every(
    (req: unknown) => typeof req === 'object' && req !== null && isRequirementMet(req as SelectorRequirement, labels),
  );
}

function isRequirementMet(req: SelectorRequirement, labels: Labels): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const values: readonly string[] = Array.isArray(req.values) ? req.values : [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(labels[req.key] ?? '');
    case 'NotIn':
      return !has || !values.includes(labels[req.key] ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/** The selector in an object's spec, or undefined when it has none (or it is not a selector). */
export function specSelector(spec: unknown): LabelSelector | undefined {
  if (typeof spec !== 'object' || spec === null) return undefined;
  const selector = (spec as { selector?: unknown }).selector;
  if (typeof selector !== 'object' || selector === null) return undefined;
  return selector as LabelSelector;
}
