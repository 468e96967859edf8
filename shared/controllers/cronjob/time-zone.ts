// IANA time zones through the runtime's Intl (ICU's tz database): whether a name is known, and a zone's UTC
// offset at an instant. Go's time.LoadLocation reads the system's tz database instead; the two agree on every
// current zone, and a name one knows and the other does not is the UnknownTimeZone case (plan.ts).
//
// Pure in the DESIGN.md sense: no I/O, no clock; formatters are cached per zone (they are immutable).

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone every schedule without a time zone runs in: kube-controller-manager's time.Local, UTC in a container. */
export const DEFAULT_ZONE = 'UTC';

/**
 * Go's time.LoadLocation succeeds for this name (as far as the runtime's tz database tells): "" and "UTC" are UTC,
 * other names must be IANA names. An offset ("+05:00") is not a location in Go, though newer Intl accepts it.
 */
export function isKnownTimeZone(name: string): boolean {
  if (name === '' || name === 'UTC') return true;
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `ms` (ms since the epoch), in ms: local wall-clock time = ms + offset. */
export function offsetMs(zone: string, ms: number): number {
  if (zone === '' || zone === 'UTC') return 0;
  const parts = formatterOf(zone).formatToParts(new Date(ms));
  const field = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value ?? NaN);
  const wall = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
  );
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return wall - whole;
}

/** Local wall-clock time of an instant, as ms of a UTC date with the same reading. */
export function wallMs(zone: string, ms: number): number {
  return ms + offsetMs(zone, ms);
}

/**
 * The instants whose wall-clock reading in `zone` is `wall` (ms of a UTC date with that reading), earliest first:
 * none in a spring-forward gap, two in a fall-back overlap, else one. Offsets are sampled a day either side, so a
 * zone's transitions must be more than a day apart (true of every zone's rules, not of some historical jumps).
 */
export function instantsOf(zone: string, wall: number): number[] {
  if (zone === '' || zone === 'UTC') return [wall];
  const day = 86_400_000;
  const offsets = new Set([offsetMs(zone, wall - day), offsetMs(zone, wall), offsetMs(zone, wall + day)]);
  const out: number[] = [];
  for (const o of offsets) {
    const instant = wall - o;
    if (offsetMs(zone, instant) === o && !out.includes(instant)) out.push(instant);
  }
  return out.sort((a, b) => a - b);
}

/** The largest change of the zone's offset within a day of `ms` (0 where no transition is near). */
export function offsetSpreadMs(zone: string, ms: number): number {
  if (zone === '' || zone === 'UTC') return 0;
  const day = 86_400_000;
  const offsets = [offsetMs(zone, ms - day), offsetMs(zone, ms), offsetMs(zone, ms + day)];
  return Math.max(...offsets) - Math.min(...offsets);
}

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}
