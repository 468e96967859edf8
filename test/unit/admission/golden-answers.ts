// What the admission golden tests share: reading upstream's recorded answers (a JSON list of answers by case name,
// next to the test; upstream-golden/README.md says how each is produced) and comparing objects as Go encoded them.
import { readFileSync } from 'node:fs';

/** The recorded answers in `file` (a URL of a JSON list): all of them, and one by case name (missing: throws). */
export function upstreamAnswers<Golden extends { name: string }>(
  file: URL,
): { golden: Golden[]; upstream: (name: string) => Golden } {
  const golden: Golden[] = JSON.parse(readFileSync(file, 'utf8'));
  const fileName = file.pathname.split('/').pop();
  const upstream = (name: string): Golden => {
    const g = golden.find((x) => x.name === name);
    if (g === undefined) throw new Error(`no upstream answer for "${name}": regenerate ${fileName}`);
    return g;
  };
  return { golden, upstream };
}

/** Go's encoding of a typed object adds empty fields (`resources: {}`, `creationTimestamp: null`): drop empties. */
export function withoutEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmpty(x);
    const empty =
      y === null ||
      y === '' ||
      (Array.isArray(y) && y.length === 0) ||
      (typeof y === 'object' && y !== null && Object.keys(y).length === 0);
    if (!empty) out[k] = y;
  }
  return out;
}
