// Whether the admission function serves LeaderWorkerSet's webhooks (server.ts `serveLeaderWorkerSet`), from its
// environment: FLEETQ_ADMISSION_LEADERWORKERSET=true on a cluster that owns LeaderWorkerSet, whose webhook
// configurations send it LeaderWorkerSets and the set's pods (infra/k8s/components/leaderworkerset-admission).
// Unset or empty: off, as for every cluster that does not own the kind. Any other value is refused rather than
// read as off: a typo would leave the cluster's LeaderWorkerSets and their pods refused (failurePolicy Fail).

/** `true` → on; unset, '' or `false` → off; anything else throws, naming the variable. */
export function parseServeLeaderWorkerSet(value: string | undefined): boolean {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw new Error(`FLEETQ_ADMISSION_LEADERWORKERSET must be "true" or "false", got ${JSON.stringify(value)}`);
}

/**
 * The admission function's switch from its flag (`--leader-worker-set`) and its environment: the flag turns it on,
 * and the variable is checked either way, so a bad value is refused even when the flag makes it moot.
 */
export function resolveServeLeaderWorkerSet(flag: boolean | undefined, value: string | undefined): boolean {
  const fromEnvironment = parseServeLeaderWorkerSet(value);
  return flag === true || fromEnvironment;
}
