// Every log line of a chaos pipeline's processes, written to a temp folder so a failed run can be read in full
// (a test prints only the last lines of each process).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pipeline } from './chaos-harness.js';

/** Writes one <process>.log per process of `p` (and any extra named line sets); returns the folder. */
export function dumpLogs(p: Pipeline, label: string, extra: Record<string, readonly string[]> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `fleetq-chaos-${label}-`));
  for (const [name, proc] of p.procs) writeFileSync(join(dir, `${name}.log`), proc.lines.join('\n') + '\n');
  for (const [name, lines] of Object.entries(extra)) writeFileSync(join(dir, `${name}.log`), lines.join('\n') + '\n');
  return dir;
}
