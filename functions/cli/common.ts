// What every `fleetq` command shares: exit codes, the error that means bad usage, `-o` output formats, the nearest
// valid value for a typo, and configuration from flags whose errors name the flag the user typed.
// Light on purpose: every command module imports this at start-up (`fleetq --help` loads no client library).
import { Option } from 'commander';
import { closest, distance } from 'fastest-levenshtein';
import type { FleetqConfig } from '../../shared/runtime/config.js';
import { inertYaml, terminalSafeJson } from '../../shared/ops/terminal-text.js';
import { parseDuration, TimeArgumentError } from '../../shared/replay/time-window.js';

/** Exit codes (docs/operations.md "Exit codes"): 0 done, 1 failed, 2 bad usage (a flag, a value, an argument). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Bad usage: a flag, value or argument the user can fix. Exits 2; the message says what to type instead. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The nearest of `valid` to `value` (case-insensitive edit distance), if it is near enough to be a typo. */
export function nearest(value: string, valid: readonly string[]): string | undefined {
  if (valid.length === 0) return undefined;
  const lower = value.toLowerCase();
  const byLower = new Map(valid.map((v) => [v.toLowerCase(), v]));
  const exact = byLower.get(lower);
  if (exact !== undefined) return exact;
  const best = closest(lower, [...byLower.keys()]);
  // A typo: at most a third of the word changed (Deploymnet, Replicaset, stauts), never a different word.
  return distance(lower, best) <= Math.max(1, Math.floor(best.length / 3)) ? byLower.get(best) : undefined;
}

/**
 * `value` if it is one of `valid`; otherwise a UsageError that names the flag, says the nearest valid value and
 * lists them all: `--kind Deploymnet: not a valid kind; did you mean Deployment? (valid: Deployment, ...)`.
 */
export function oneOf<T extends string>(flag: string, value: string, valid: readonly T[], what = 'value'): T {
  if ((valid as readonly string[]).includes(value)) return value as T;
  const near = nearest(value, valid);
  const hint = near === undefined ? '' : `; did you mean ${near}?`;
  throw new UsageError(`${flag} ${JSON.stringify(value)}: not a valid ${what}${hint} (valid: ${valid.join(', ')})`);
}

/** A comma-separated list where every item must be one of `valid` (`--owns Deployment,ReplicaSet`). */
export function listOf<T extends string>(flag: string, value: string, valid: readonly T[], what = 'value'): T[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${flag}: empty; give one or more of ${valid.join(', ')}`);
  return items.map((item) => oneOf(flag, item, valid, what));
}

/** A duration flag (`--older-than 2h`, `--refresh 5s`); one that does not parse is bad usage (exit 2). */
export function durationFlag(text: string, flag: string): number {
  try {
    return parseDuration(text, flag);
  } catch (err) {
    if (err instanceof TimeArgumentError) throw new UsageError(err.message);
    throw err;
  }
}

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `-o, --output FORMAT` for a command that prints a table: table (default), wide (more columns), json or yaml. */
export function outputOption(): Option {
  return new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table');
}

/**
 * Prints a result in the chosen format: `table` and `wide` are the command's own renderings (wide defaults to
 * table), json is one JSON document, yaml the same data as YAML (the yaml library loads only when asked for).
 * Data from a cluster or Redis may hold escape sequences a terminal acts on: json and yaml print them escaped.
 */
export async function printResult(
  format: OutputFormat,
  result: { readonly data: unknown; readonly table: () => string; readonly wide?: () => string },
): Promise<void> {
  switch (format) {
    case 'json':
      console.log(terminalSafeJson(result.data, 2));
      return;
    case 'yaml':
      process.stdout.write(await inertYaml(result.data));
      return;
    case 'wide':
      console.log((result.wide ?? result.table)());
      return;
    case 'table':
      console.log(result.table());
  }
}

/** A configuration error (shared/runtime/config.ts) names `FLEETQ_X="v"`; said as the flag when a flag gave it. */
export function nameFlags(message: string, flagOf: Readonly<Record<string, string>>): string {
  let out = message;
  for (const [envVar, flag] of Object.entries(flagOf)) out = out.split(`${envVar}=`).join(`${flag} `);
  return out;
}

/**
 * The configuration (shared/runtime/config.ts) from the environment, with the flags in `flags` overriding the
 * variables `flagOf` maps them to (`{ concurrency: 'FLEETQ_CONCURRENCY' }`). An invalid value is a UsageError that
 * names the flag the user typed (`--concurrency "abc": ...`), or the variable when the environment gave it.
 */
export async function configFromFlags(
  flags: Readonly<Record<string, unknown>>,
  flagOf: Readonly<Record<string, string>>,
): Promise<FleetqConfig> {
  const { loadConfig, ConfigError } = await import('../../shared/runtime/config.js');
  const overrides: Record<string, string> = {};
  const given: Record<string, string> = {};
  for (const [flag, envVar] of Object.entries(flagOf)) {
    const v = flags[flag];
    if (v === undefined || v === false) continue;
    overrides[envVar] = String(v);
    given[envVar] = `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  }
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(nameFlags(err.message, given));
    throw err;
  }
}
