// Label and field selectors of list and watch requests, in the string form the apiserver parses:
// `a=b,c!=d,e in (x,y),f notin (z),g,!h` for labels; `metadata.name=x,spec.nodeName!=` for fields (any dotted
// path into the object, compared as a string; the real apiserver allows a fixed set of fields per kind).
export type Matcher = (o: Record<string, unknown>) => boolean;

export class SelectorError extends Error {
  override name = 'SelectorError';
}

/** Splits on commas that are not inside parentheses. */
function clauses(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((c) => c.trim()).filter((c) => c !== '');
}

function labelsOf(o: Record<string, unknown>): Record<string, string> {
  const meta = o.metadata as { labels?: Record<string, string> } | undefined;
  return meta?.labels ?? {};
}

export function labelMatcher(selector: string | null | undefined): Matcher {
  if (!selector) return () => true;
  const tests = clauses(selector).map((c): ((l: Record<string, string>) => boolean) => {
    let m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(c);
    if (m) {
      const [, key, op, list] = m as unknown as [string, string, string, string];
      const values = list.split(',').map((v) => v.trim());
      return op === 'in'
        ? (l) => key in l && values.includes(l[key] as string)
        : (l) => !(key in l) || !values.includes(l[key] as string);
    }
    m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(c);
    if (m) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
    }
    m = /^(!?)([^\s!=(),]+)$/.exec(c);
    if (m) {
      const [, not, key] = m as unknown as [string, string, string];
      return not ? (l) => !(key in l) : (l) => key in l;
    }
    throw new SelectorError(`unable to parse requirement: ${JSON.stringify(c)}`);
  });
  return (o) => {
    const l = labelsOf(o);
    return tests.every((t) => t(l));
  };
}

function fieldValue(o: Record<string, unknown>, path: string): string {
  let at: unknown = o;
  for (const seg of path.split('.')) {
    if (typeof at !== 'object' || at === null) return '';
    at = (at as Record<string, unknown>)[seg];
  }
  return at === undefined || at === null ? '' : String(at);
}

export function fieldMatcher(selector: string | null | undefined): Matcher {
  if (!selector) return () => true;
  const tests = clauses(selector).map((c): Matcher => {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(c);
    if (!m) throw new SelectorError(`invalid field selector: ${JSON.stringify(c)}`);
    const [, path, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (o) => fieldValue(o, path) !== value : (o) => fieldValue(o, path) === value;
  });
  return (o) => tests.every((t) => t(o));
}
