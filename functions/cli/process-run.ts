// `fleetq run`: the checks of `fleetq doctor` (all but its probe) first, failing fast with what failed; then a
// forwarder for every registered cluster and the workers in this process (all-in-one.ts) until SIGINT or SIGTERM.
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FleetqConfig } from '../../shared/runtime/config.js';
import type { ClusterRegistry } from '../../shared/kube/registry.js';
import { configFromFlags } from './common.js';
import { PROCESS_FLAGS, type ProcessFlags } from './process-flags.js';

/**
 * Where `fleetq run` keeps its data unless FLEETQ_DATA_DIR says: `.fleetq` in the checkout it runs from (from the
 * sources or from its dist/), else, installed, the user's state folder ($XDG_STATE_HOME/fleetq, ~/.local/state/fleetq).
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  from: string = dirname(fileURLToPath(import.meta.url)),
): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, '.git')) && existsSync(join(dir, 'package.json'))) return join(dir, '.fleetq');
  }
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'fleetq');
}

export async function run(flags: ProcessFlags & { skipPreflight?: boolean }): Promise<void> {
  const config = await configFromFlags(flags, PROCESS_FLAGS);
  if (!config.FLEETQ_REGISTRY) {
    throw new Error(
      'run needs --registry FILE (or FLEETQ_REGISTRY): the cluster registry. `npm start` runs fleetq on a local sandbox cluster',
    );
  }
  const { registryFrom } = await import('../../shared/runtime/deps.js');
  const registry = registryFrom(config);
  if (flags.skipPreflight === true) console.error('fleetq: start-up checks skipped (--skip-preflight)');
  else await preflight(config, registry);
  const { startAllInOne } = await import('../all-in-one.js');
  const { serveMetrics } = await import('../../shared/runtime/metrics.js');
  const dataDir = resolve(process.env.FLEETQ_DATA_DIR || defaultDataDir());
  mkdirSync(dataDir, { recursive: true });
  const app = await startAllInOne({ config, registry, dataDir });
  const server =
    config.FLEETQ_METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(app.deps.metrics.registry, config.FLEETQ_METRICS_PORT, config.FLEETQ_METRICS_HOST);
  if (server)
    console.log(`fleetq: metrics on http://${config.FLEETQ_METRICS_HOST}:${config.FLEETQ_METRICS_PORT}/metrics`);
  console.log(
    `fleetq: running ${registry.clusters.length} cluster(s) on the ${config.FLEETQ_DRIVER} queue — Ctrl-C to stop`,
  );
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  console.log(`fleetq: ${signal}: finishing in-flight keys`);
  await app.stop();
  server?.close();
}

/** The doctor's checks without the probe: a failure stops the start with every failure said. */
async function preflight(config: FleetqConfig, registry: ClusterRegistry): Promise<void> {
  const { runDoctor, hasFailure, formatChecks, failureSummary, CheckStatus } =
    await import('../../shared/ops/doctor.js');
  const checks = await runDoctor(config, registry);
  if (hasFailure(checks)) {
    console.error(formatChecks(checks));
    throw new Error(
      `start-up checks failed:\n  ${failureSummary(checks)}\n` +
        'fix what is said (`fleetq doctor` checks again), or start anyway with --skip-preflight',
    );
  }
  const warnings = checks.filter((c) => c.status === CheckStatus.warn);
  if (warnings.length > 0) console.error(formatChecks(warnings));
  console.error(`fleetq: start-up checks passed (${checks.length}, ${warnings.length} warning(s))`);
}
