// `fleetq doctor` and the preflight of `fleetq run`: checks that say, before anything starts, what would keep
// fleetq from working, each as one line (ok, warn or FAIL) with what to do. Per cluster of the registry: reachable
// (doctor-cluster.ts), credentials allowed what its owned kinds need (doctor-access.ts), no other controller
// writing a kind it owns (doctor-conflicts.ts; doctor-probe.ts for the opt-in probe); and the queue, Redis and
// signing secret (doctor-store.ts). A failed check fails the whole run (exit 1); a warning does not.
import type { ClusterRegistry } from '../kube/registry.js';
import type { FleetqConfig } from '../runtime/config.js';
import { checkAccess } from './doctor-access.js';
import { connectCluster } from './doctor-cluster.js';
import { checkConflicts } from './doctor-conflicts.js';
import { probeConflicts, type ProbeOptions } from './doctor-probe.js';
import { checkSigningSecret, checkStores } from './doctor-store.js';
import { CheckStatus, type Check } from './doctor-check.js';

export { CheckStatus, type Check } from './doctor-check.js';

export type DoctorOptions = {
  /** Creates a throwaway object per owned kind and watches who writes its status (doctor-probe.ts). */
  readonly probe?: ProbeOptions;
  /** How long a cluster may take to answer one request. */
  readonly timeoutMs?: number;
};

export const DEFAULT_TIMEOUT_MS = 5_000;

/** Every check, clusters in parallel; the order is the registry's, then the stores'. */
export async function runDoctor(
  config: FleetqConfig,
  registry: ClusterRegistry | undefined,
  o: DoctorOptions = {},
): Promise<Check[]> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clusters = registry
    ? await Promise.all(registry.clusters.map((c) => clusterChecks(registry, c.name, timeoutMs, o.probe)))
    : [[noRegistry()]];
  const stores = await checkStores(config, timeoutMs);
  return [...clusters.flat(), ...stores, checkSigningSecret(config)];
}

async function clusterChecks(
  registry: ClusterRegistry,
  name: string,
  timeoutMs: number,
  probe: ProbeOptions | undefined,
): Promise<Check[]> {
  const connected = await connectCluster(registry, name, timeoutMs);
  if (connected.rest === undefined) return [connected.check];
  const access = await checkAccess(connected.rest, registry.get(name)!, timeoutMs);
  // Credentials refused outright (401): the reads of the conflict check would fail the same way.
  if (access.some((c) => c.status === CheckStatus.fail && c.name.endsWith(': credentials')))
    return [connected.check, ...access];
  const conflicts = await checkConflicts(connected.rest, registry.get(name)!, timeoutMs);
  const probed = probe ? await probeConflicts(connected.rest, registry.get(name)!, probe) : [];
  return [connected.check, ...access, ...conflicts, ...probed];
}

function noRegistry(): Check {
  return {
    name: 'registry',
    status: CheckStatus.fail,
    message: 'no cluster registry given',
    fix: 'pass --registry FILE or set FLEETQ_REGISTRY (docs/operations.md "The cluster registry")',
  };
}

export function hasFailure(checks: readonly Check[]): boolean {
  return checks.some((c) => c.status === CheckStatus.fail);
}

/** One line per check: `ok    cluster fleetq-1: reachable: v1.33.1`, a failure's fix on the next line. */
export function formatChecks(checks: readonly Check[]): string {
  const width = Math.max(...Object.values(CheckStatus).map((s) => s.length));
  const lines = checks.flatMap((c) => [
    `${c.status.padEnd(width)}  ${c.name}: ${c.message}`,
    ...(c.fix !== undefined && c.status !== CheckStatus.ok ? [`${' '.repeat(width)}  -> ${c.fix}`] : []),
  ]);
  const failed = checks.filter((c) => c.status === CheckStatus.fail).length;
  const warned = checks.filter((c) => c.status === CheckStatus.warn).length;
  lines.push(`${checks.length} check(s): ${failed} failed, ${warned} warning(s)`);
  return lines.join('\n');
}

/** The failures, for an error message: `cluster eu-1: reachable: ... (fix)`. */
export function failureSummary(checks: readonly Check[]): string {
  return checks
    .filter((c) => c.status === CheckStatus.fail)
    .map((c) => `${c.name}: ${c.message}${c.fix === undefined ? '' : `; ${c.fix}`}`)
    .join('\n  ');
}
