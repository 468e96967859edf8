// The flags of the process commands (processes.ts) and the variables they override: configFromFlags
// (common.ts) names the flag the user typed in an error.
import type { OutputFormat } from './common.js';

/** Flags of the process commands and the variables they override (configFromFlags names the flag in an error). */
export const PROCESS_FLAGS = {
  registry: 'FLEETQ_REGISTRY',
  driver: 'FLEETQ_DRIVER',
  concurrency: 'FLEETQ_CONCURRENCY',
  metricsPort: 'FLEETQ_METRICS_PORT',
  reads: 'FLEETQ_READS',
  queue: 'FLEETQ_QUEUE',
} as const;

export type ProcessFlags = {
  readonly registry?: string;
  readonly driver?: string;
  readonly concurrency?: string;
  readonly metricsPort?: string;
  readonly reads?: string;
  readonly queue?: string;
};

export type DoctorFlags = ProcessFlags & {
  readonly output: OutputFormat;
  readonly probe?: boolean;
  readonly probeNamespace: string;
  readonly probeWait: string;
  readonly timeout: string;
};
