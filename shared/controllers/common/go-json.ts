// encoding/json's rendering of a value decoded into map[string]interface{} and marshalled again, as daemon's
// getPatch does: object keys sorted at every level, no spaces, and Go's string escaping (HTML-safe: <, > and &
// as \u003c, \u003e, \u0026; U+2028 and U+2029 escaped), so a ControllerRevision's data is byte for byte what
// kube-controller-manager 1.37 writes for the same template.
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((v) => goJson(v)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => compareBytes(a, b));
    return `{${entries.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(',')}}`;
  }
  return 'null';
}

/** Go sorts map keys by their UTF-8 bytes. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** float64 as Go prints it: integers plainly; others in the shortest form (exponent when < 1e-6 or ≥ 1e21). */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    // Go: 1e-07 (two-digit exponent at least), JavaScript: 1e-7.
    return n
      .toExponential()
      .replace(/e([+-])(\d)$/, 'e$10$2')
      .replace('e+', 'e+');
  }
  return String(n);
}
