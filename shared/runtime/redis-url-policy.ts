// Redis holds the queue, the cache, checkpoints and budgets (DESIGN.md "Trust boundary"): a deployment reaches
// it with AUTH and TLS. A URL to a Redis off this machine must be `rediss://` (TLS) and carry a password; a
// loopback one (127.0.0.0/8, ::1, localhost: dev and tests) may be plain. FLEETQ_ALLOW_INSECURE_REDIS=1 is the
// explicit opt-out, for a test bed whose Redis has neither (it is said at start-up, not found out later).
// The problem text names the host, never the password.

/** The environment variable that accepts a plain or password-less Redis off this machine. */
export const ALLOW_INSECURE_REDIS = 'FLEETQ_ALLOW_INSECURE_REDIS';

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  // A dotted IPv4 address in 127.0.0.0/8, and nothing else (127.0.0.1.nip.io is a name, not loopback).
  const octets = host.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/**
 * Why `url` may not be used as it is (a sentence saying what to do), or undefined when it may: a
 * `rediss://` URL with a password, a loopback one, or any redis:// or rediss:// URL under
 * FLEETQ_ALLOW_INSECURE_REDIS=1. A Redis Cluster URL naming several seeds (`redis://:pw@h1:7000,h2:7001`) is
 * checked seed by seed, each with the URL's scheme and password: every one must pass.
 */
export function insecureRedisUrl(url: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const seedUrl of urlPerSeed(url)) {
    const problem = insecureSeedUrl(seedUrl, env);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** One URL per seed of a URL whose host part names several, comma-separated; else the URL itself. */
function urlPerSeed(url: string): string[] {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/]*@)?)([^/?#]*)(.*)$/s.exec(url);
  if (!m || !(m[2] as string).includes(',')) return [url];
  return (m[2] as string).split(',').map((seed) => `${m[1]}${seed.trim()}${m[3]}`);
}

function insecureSeedUrl(url: string, env: NodeJS.ProcessEnv): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid:');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    return 'not a redis:// or rediss:// URL (e.g. rediss://:<password>@redis.example:6380)';
  }
  const optOut = env[ALLOW_INSECURE_REDIS];
  if (optOut === '1') return undefined;
  if (isLoopback(parsed.hostname)) return undefined;
  const missing = [
    ...(parsed.password === '' ? ['no password'] : []),
    ...(parsed.protocol === 'redis:' ? ['no TLS'] : []),
  ];
  if (missing.length === 0) return undefined;
  const bad =
    optOut === undefined || optOut === ''
      ? ''
      : ` (${ALLOW_INSECURE_REDIS} must be 1 to opt out; it is ${JSON.stringify(optOut)})`;
  return (
    `a Redis at ${parsed.hostname} (not loopback) with ${missing.join(' and ')}: use ` +
    `rediss://:<password>@${parsed.host} (Redis AUTH and TLS; FLEETQ_REDIS_TLS_CA for a private CA), or set ` +
    `${ALLOW_INSECURE_REDIS}=1 to accept it on a test bed${bad}`
  );
}
