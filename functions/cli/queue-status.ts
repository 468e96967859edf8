// `fleetq status`: shared/ops/status.ts reads the shared stores; --watch prints again every --interval until
// Ctrl-C (a terminal's screen is cleared first). -o json is one JSON object per line, so a watch is JSON lines.
import { collectStatus, formatStatus, type FleetStatus } from '../../shared/ops/status.js';
import { terminalSafeJson } from '../../shared/ops/terminal-text.js';
import { textStyleFor } from '../../shared/ops/text-table.js';
import type { OutputFormat } from './common.js';
import { durationFlag } from './common.js';
import { inertYaml, queueCommandConfig, type QueueFlags } from './queue-open.js';

export type StatusFlags = QueueFlags & {
  readonly output: OutputFormat;
  readonly json?: boolean;
  readonly watch?: boolean;
  readonly interval: string;
  readonly window: string;
};

async function render(s: FleetStatus, format: OutputFormat, watch: boolean): Promise<string> {
  switch (format) {
    case 'json':
      return terminalSafeJson(s);
    case 'yaml':
      return `${watch ? '---\n' : ''}${await inertYaml(s)}`.trimEnd();
    case 'wide':
    case 'table':
      return formatStatus(s, { wide: format === 'wide', style: textStyleFor(process.stdout) });
  }
}

export async function status(flags: StatusFlags): Promise<void> {
  const format: OutputFormat = flags.json ? 'json' : flags.output;
  const config = await queueCommandConfig(flags);
  if (config.FLEETQ_DRIVER === 'memory')
    throw new Error(
      'status needs a shared store: the memory driver keeps its queue inside the process that runs it (fleetq run); ' +
        'set FLEETQ_DRIVER=redis or sqs',
    );
  const intervalMs = durationFlag(flags.interval, '--interval');
  const rateWindowMs = durationFlag(flags.window, '--window');
  const clusters: string[] = [];
  let registryDigest: string | undefined;
  if (config.FLEETQ_REGISTRY) {
    const [{ registryFrom }, { registryDigest: digestOf }] = await Promise.all([
      import('../../shared/runtime/deps.js'),
      import('../../shared/runtime/registry-reload.js'),
    ]);
    const registry = registryFrom(config);
    clusters.push(...registry.clusters.map((c) => c.name));
    // Pool members on another registry than this one are marked old.
    registryDigest = digestOf(registry.clusters);
  }
  const clearScreen =
    flags.watch === true && process.stdout.isTTY === true && (format === 'table' || format === 'wide');
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', () => stop?.());
  process.once('SIGTERM', () => stop?.());
  for (;;) {
    const s = await collectStatus(config, { clusters, rateWindowMs, ...(registryDigest && { registryDigest }) });
    const text = await render(s, format, flags.watch === true);
    if (clearScreen) process.stdout.write('\x1b[2J\x1b[H');
    console.log(text);
    if (!flags.watch) return;
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      stopped.then(() => 'stop'),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('next'), intervalMs))),
    ]);
    clearTimeout(timer);
    if (next === 'stop') return;
  }
}
