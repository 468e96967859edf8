// The cron schedule, as kube-controller-manager 1.37 reads spec.schedule: robfig/cron v3.0.1's ParseStandard (five
// fields, the @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly descriptors, `@every <Go duration>`, and
// a `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix) and its Schedule.Next. The one place fleetq uses its cron library,
// cron-parser (5.10.6): it finds the wall-clock times that match the fields; this file gives them robfig's meaning.
//
// Where cron-parser and robfig differ, and what this file does about it (each case is in the unit table,
// test/unit/controllers/cronjob/schedule.test.ts, whose expected times came from robfig itself):
//  - Syntax. robfig accepts less (no seconds field, no L, W, #, H, no 7 for Sunday) and a little more (`?` in
//    any field, `*-5`, `+5`). Each field is checked here by robfig's rules (its error messages included, for
//    UnparseableSchedule) and handed to cron-parser rewritten as plain `start-end/step` ranges.
//  - Day of month or day of week. Both cron libraries take "either day field matches" when both are
//    restricted, "both match" when one is a wildcard; robfig counts `*/1`, `?` and a list with `*` in it as
//    wildcards, cron-parser only a bare `*`. A field robfig counts as a wildcard is handed over as `*`.
//  - A date that never comes (`0 0 30 2 *`): robfig parses it and its Next returns the zero time (upstream then
//    records InvalidSchedule); cron-parser refuses it at parse. Here it parses, and next() returns null.
//  - Five years. robfig gives up (zero time) when nothing matches before the end of the fifth year after the
//    start; cron-parser looks further (`0 0 29 2 *` from 2097 finds 2104). next() returns null there, as robfig.
//  - Daylight saving time. cron-parser, given a zone, runs a time that a spring-forward gap skips just after the
//    gap, and a time that a fall-back repeats once. robfig matches instants whose wall-clock reading fits the
//    fields: a skipped time does not run that day, a repeated time runs twice (`30 1 * * *` in New York runs at
//    01:30 EDT and again at 01:30 EST on the first Sunday of November). So cron-parser is asked for wall-clock
//    matches in UTC (no transitions), and each is mapped to the zone's instants (time-zone.ts): none, one or two.
// A schedule without a zone runs in kube-controller-manager's local zone (time.Local); fleetq's is UTC, as is a
// controller-manager's in a container.
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { DEFAULT_ZONE, instantsOf, isKnownTimeZone, offsetMs, offsetSpreadMs, wallMs } from './time-zone.js';

export interface Schedule {
  /**
   * robfig Schedule.Next: the first activation after `afterMs` (ms since the epoch; robfig starts at the next
   * whole second), or null where robfig returns Go's zero time (nothing within five years).
   */
  next(afterMs: number): number | null;
}

export type ParsedSchedule = { readonly schedule: Schedule } | { readonly error: string };

type Bounds = { readonly min: number; readonly max: number; readonly names?: Readonly<Record<string, number>> };

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
/** minute, hour, day of month, month, day of week. */
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const DAY_MS = 86_400_000;

/** cron.ParseStandard, with upstream's panic recovery (ParseCronScheduleWithPanicRecovery). */
export function parseStandard(spec: string): ParsedSchedule {
  if (spec.length === 0) return { error: 'empty spec string' };
  let zone = DEFAULT_ZONE;
  let rest = spec;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    if (space < 0) return { error: 'invalid schedule format: runtime error: slice bounds out of range [:-1]' };
    const name = spec.slice(spec.indexOf('=') + 1, space);
    if (!isKnownTimeZone(name)) return { error: `provided bad location ${name}: unknown time zone ${name}` };
    zone = name === '' ? DEFAULT_ZONE : name;
    rest = spec.slice(space).trim();
  }
  if (rest.startsWith('@')) {
    const fields = DESCRIPTORS[rest];
    if (fields !== undefined) return parseFields(fields, zone);
    if (rest.startsWith('@every ')) return parseEvery(rest);
    return { error: `unrecognized descriptor: ${rest}` };
  }
  return parseFields(rest, zone);
}

function parseFields(text: string, zone: string): ParsedSchedule {
  const fields = text.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return { error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]` };
  const normalized: string[] = [];
  for (const [i, f] of fields.entries()) {
    const out = normalizeField(f, FIELDS[i]!);
    if ('error' in out) return out;
    normalized.push(out.field);
  }
  let expression: CronExpression;
  try {
    expression = CronExpressionParser.parse(`0 ${normalized.join(' ')}`, { tz: 'UTC', currentDate: 0 });
  } catch (err) {
    // A day that no month has (30 February): robfig parses it, and its Next finds nothing.
    if (String(err).includes('Invalid explicit day of month')) return { schedule: { next: () => null } };
    return { error: `invalid schedule: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { schedule: new WallClockSchedule(expression, zone) };
}

/**
 * robfig's getField over one field: every comma-separated part checked as getRange does (its messages), and the
 * field rewritten as cron-parser should read it: `*` when robfig sets its star bit (a part starting with `*` or
 * `?`, step 1), else the values it sets, as a plain list (cron-parser refuses a value listed twice).
 */
function normalizeField(field: string, b: Bounds): { field: string } | { error: string } {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',').filter((p) => p !== '')) {
    const rangeAndStep = expr.split('/');
    const lowAndHigh = rangeAndStep[0]!.split('-');
    let start: number;
    let end: number;
    let step = 1;
    let wildcard = false;
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      [start, end, wildcard] = [b.min, b.max, true];
    } else {
      const low = intOrName(lowAndHigh[0]!, b);
      if (typeof low !== 'number') return low;
      start = low;
      if (lowAndHigh.length === 1) end = start;
      else if (lowAndHigh.length === 2) {
        const high = intOrName(lowAndHigh[1]!, b);
        if (typeof high !== 'number') return high;
        end = high;
      } else return { error: `too many hyphens: ${expr}` };
    }
    if (rangeAndStep.length === 2) {
      const s = parseInt(rangeAndStep[1]!);
      if (typeof s !== 'number') return s;
      step = s;
      if (lowAndHigh.length === 1) end = b.max;
      if (step > 1) wildcard = false;
    } else if (rangeAndStep.length > 2) return { error: `too many slashes: ${expr}` };
    if (start < b.min) return { error: `beginning of range (${start}) below minimum (${b.min}): ${expr}` };
    if (end > b.max) return { error: `end of range (${end}) above maximum (${b.max}): ${expr}` };
    if (start > end) return { error: `beginning of range (${start}) beyond end of range (${end}): ${expr}` };
    if (step === 0) return { error: `step of range should be a positive number: ${expr}` };
    star ||= wildcard;
    for (let v = start; v <= end; v += step) values.add(v);
  }
  if (star) return { field: '*' };
  // An empty field (",") sets no bit in robfig: it never matches. cron-parser has no such field.
  if (values.size === 0) return { error: `empty field: ${field}` };
  return { field: [...values].sort((a, b) => a - b).join(',') };
}

function intOrName(expr: string, b: Bounds): number | { error: string } {
  const named = b.names?.[expr.toLowerCase()];
  return named ?? parseInt(expr);
}

/** robfig's mustParseInt (strconv.Atoi, then no negatives). */
function parseInt(expr: string): number | { error: string } {
  if (!/^[+-]?\d+$/.test(expr)) {
    return { error: `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax` };
  }
  const n = Number(expr);
  if (n < 0) return { error: `negative number (${n}) not allowed: ${expr}` };
  return n;
}

/** A SpecSchedule: cron-parser's wall-clock matches, mapped to the instants of the zone that read so. */
class WallClockSchedule implements Schedule {
  constructor(
    private readonly expression: CronExpression,
    private readonly zone: string,
  ) {}

  next(afterMs: number): number | null {
    const start = Math.floor(afterMs / 1000) * 1000 + 1000;
    const startWall = wallMs(this.zone, start);
    const lastYear = new Date(startWall).getUTCFullYear() + 5;
    // An instant at or after `start` reads at least this early on the wall clock (an offset that falls back).
    this.expression.reset(new Date(startWall - offsetSpreadMs(this.zone, start) - 1));
    let best: number | null = null;
    let cutoff = Infinity;
    for (;;) {
      const wall = this.nextWall();
      if (wall === null || new Date(wall).getUTCFullYear() > lastYear || wall > cutoff) return best;
      for (const instant of instantsOf(this.zone, wall)) {
        if (instant >= start && (best === null || instant < best)) {
          best = instant;
          // A later wall time maps to an instant no earlier than wall − the largest offset near it.
          cutoff = best + Math.max(...[-DAY_MS, 0, DAY_MS].map((d) => offsetMs(this.zone, instant + d)));
        }
      }
    }
  }

  private nextWall(): number | null {
    try {
      return this.expression.next().getTime();
    } catch {
      return null; // past the library's range or loop limit: nothing more comes
    }
  }
}

/** `@every <duration>`: robfig's ConstantDelaySchedule (at least 1 s, whole seconds, from the start's second). */
function parseEvery(descriptor: string): ParsedSchedule {
  const text = descriptor.slice('@every '.length);
  const d = parseGoDuration(text);
  if (typeof d === 'string') return { error: `failed to parse duration ${descriptor}: ${d}` };
  const delay = d < 1000 ? 1000 : d - (d % 1000);
  return { schedule: { next: (after) => after - (((after % 1000) + 1000) % 1000) + delay } };
}

const UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in ms (fractions of a ms kept), or its error message. */
export function parseGoDuration(text: string): number | string {
  const quoted = JSON.stringify(text);
  if (text === '0' || text === '+0' || text === '-0') return 0;
  const body = text.replace(/^[+-]/, '');
  if (body === '') return `time: invalid duration ${quoted}`;
  let total = 0;
  const part = /^(\d*(?:\.\d*)?)([^\d.]*)/;
  for (let s = body; s !== '';) {
    const m = part.exec(s);
    const [whole, number, unit] = m ?? ['', '', ''];
    if (number === '' || number === '.' || whole === '') return `time: invalid duration ${quoted}`;
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    const scale = UNITS_MS[unit!];
    if (scale === undefined) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    total += Number(number) * scale;
    s = s.slice(whole!.length);
  }
  return text.startsWith('-') ? -total : total;
}
