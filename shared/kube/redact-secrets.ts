// The one place that takes credentials out of text before it is printed or logged: config errors, log lines,
// CLI errors and any message that names a URL use it.
// - URLs: `scheme://user:pass@host` keeps the user and hides the password (`scheme://user:***@host`); a URL
//   with only one credential (`scheme://token@host`) hides it whole; `password=`, `token=`, `secret=` query
//   parameters (and `access_token`, `auth`, …) are hidden the same way. Any scheme: redis://, rediss://,
//   http(s)://.
// - `Authorization: Bearer <token>` / `Basic <credentials>` headers, bare `Bearer <token>` text, and JSON Web
//   Tokens anywhere (a ServiceAccount token in a kubeconfig's `token` field).
// - PEM private keys (a client key pasted into an error).
// - Fields whose name says they hold a secret (password, secret, authorization, bearer or access tokens,
//   client or private keys, kubeconfig key/token data): their value is replaced whole, at any depth.
export const REDACTED = '***';

// userinfo of an authority: `scheme://user:pass@` or `scheme://cred@`. Greedy to the last `@` before white space
// or a quote, as a URL parser takes it: a password with an unescaped `@` or `/` is hidden whole (a URL without
// credentials but with an `@` in its path loses a little more than it needs to, never less).
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s"'<>`]{0,1024})@/gi;
const SECRET_QUERY =
  /(\b(?:password|passwd|pass|pwd|secret|token|access_token|id_token|auth|authorization|api_?key|sig|signature)=)[^&#\s"'<>`]*/gi;
const AUTH_HEADER = /\b(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+/gi;
const BEARER = /\b(bearer\s{1,8})[A-Za-z0-9._~+/=-]{8,}/gi;
// A JSON Web Token (a ServiceAccount token, an OIDC id token): header.payload.signature, the header base64url JSON.
const JWT = /\beyJ[A-Za-z0-9_-]{4,1024}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{0,1024}/g;
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

/** Longest text redactText looks at; the rest is cut. */
export const MAX_TEXT = 64 * 1024;

/** A field name that holds a secret. Not `token` alone: a lease's fencing token is not a credential. */
const SECRET_FIELD = new RegExp(
  [
    // anywhere in the name: FLEETQ_SIGNING_SECRET_PREVIOUS, dbPasswordFile
    '(?:password|passwd|secret|credential|private[-_]?key)',
    // at the end: clientKey, client-key-data, Authorization
    '(?:authorization|client[-_]?key|api[-_]?key|key[-_]?data|token[-_]?data)$',
    '^(?:bearer|access|refresh|session|id|auth|service[-_]?account)[-_]?token$',
    '^(?:set[-_]?)?cookie$',
  ].join('|'),
  'i',
);

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** The URL with its credentials hidden (user kept, password and secret query parameters replaced). */
export function redactUrl(url: string): string {
  return redactText(url);
}

/** Free text (an error message, a log line) with every credential it carries hidden. */
export function redactText(text: string): string {
  if (text === '') return text;
  // Bounded work on hostile input: every pattern's repetition is capped, and so is the text (a log field this
  // long is cut anyway).
  if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}…(+${text.length - MAX_TEXT} chars)`;
  return text
    .replace(PEM_PRIVATE_KEY, `-----BEGIN $1PRIVATE KEY----- ${REDACTED}`)
    .replace(URL_USERINFO, (_m, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon < 0 ? `${scheme}${REDACTED}@` : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
    })
    .replace(SECRET_QUERY, `$1${REDACTED}`)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(JWT, REDACTED);
}

/** How deep redactValue walks into nested objects; deeper values are replaced by a marker (hostile depth). */
const MAX_DEPTH = 12;

/**
 * A value fit for a log line: strings with credentials hidden (redactText), fields named like secrets replaced,
 * nested objects and arrays walked (to MAX_DEPTH), Errors turned into their fields. Returns a new value.
 */
export function redactValue(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  try {
    if (value instanceof Error) return redactValue(errorShape(value), depth, seen);
    if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1, seen));
    if (value instanceof Map) return redactValue(Object.fromEntries(value), depth, seen);
    if (value instanceof Set) return redactValue([...value], depth, seen);
    if (value instanceof Date) return value;
    if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        isSecretField(k) && v !== undefined && v !== null && v !== '' ? REDACTED : redactValue(v, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** An Error's loggable fields (name, message, code, cause), before redaction. */
export function errorShape(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const code = (err as { code?: unknown }).code;
  return {
    name: err.name,
    message: err.message,
    ...(code !== undefined && { code }),
    ...(err.cause !== undefined && { cause: errorShape(err.cause) }),
  };
}
