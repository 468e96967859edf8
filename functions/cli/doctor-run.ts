// `fleetq doctor`: every check of shared/ops/doctor.ts, one line each (or -o json|yaml); exit 1 if one failed.
import { configFromFlags, printResult, UsageError } from './common.js';
import { PROCESS_FLAGS, type DoctorFlags } from './process-flags.js';

export async function doctor(flags: DoctorFlags): Promise<void> {
  const config = await configFromFlags(flags, PROCESS_FLAGS);
  const seconds = (flag: string, value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new UsageError(`${flag} ${JSON.stringify(value)}: a number of seconds above 0`);
    return n * 1000;
  };
  const timeoutMs = seconds('--timeout', flags.timeout);
  const waitMs = seconds('--probe-wait', flags.probeWait);
  const { registryFrom } = await import('../../shared/runtime/deps.js');
  const { runDoctor, formatChecks, hasFailure } = await import('../../shared/ops/doctor.js');
  const registry = config.FLEETQ_REGISTRY ? registryFrom(config) : undefined;
  const checks = await runDoctor(config, registry, {
    timeoutMs,
    ...(flags.probe === true && { probe: { namespace: flags.probeNamespace, waitMs } }),
  });
  await printResult(flags.output, { data: checks, table: () => formatChecks(checks) });
  if (hasFailure(checks)) throw new Error('some checks failed (FAIL above): fix what each says and run doctor again');
}
