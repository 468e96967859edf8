// Progress of a long replay on stderr: on a terminal, one bar redrawn in place (counts, rate, RSS, ETA);
// otherwise a plain line now and then, for logs. How far along is given as a fraction by the caller: bytes read
// of a file, or the last record's time within the window of a store.
export type ProgressOptions = {
  readonly tty: boolean;
  readonly write: (text: string) => void;
  /** Epoch ms; injected for tests. */
  readonly now?: () => number;
  /** Minimum ms between two redraws (terminal) or two lines (otherwise). */
  readonly everyMs?: number;
};

const BAR = 24;

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export class Progress {
  private readonly now: () => number;
  private readonly started: number;
  private last = 0;
  private drawn = false;

  constructor(private readonly o: ProgressOptions) {
    this.now = o.now ?? Date.now;
    this.started = this.now();
  }

  /** The line for `events` read and `fraction` (0..1, or undefined when unknown) of the input done. */
  line(events: number, fraction: number | undefined, rssBytes: number): string {
    const elapsed = this.now() - this.started;
    const rate = Math.round(events / Math.max(0.001, elapsed / 1000));
    const f = fraction === undefined ? undefined : Math.min(1, Math.max(0, fraction));
    const eta = f === undefined || f <= 0 ? '?' : duration((elapsed * (1 - f)) / f);
    const rss = `RSS ${Math.round(rssBytes / 1e6)} MB`;
    const pct = f === undefined ? '' : `${(f * 100).toFixed(1)}% `;
    if (!this.o.tty) return `fleetq: shadow ${events} events, ${pct}${rate}/s, ${rss}, ETA ${eta}`;
    const filled = f === undefined ? 0 : Math.round(f * BAR);
    return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${pct}${events} events ${rate}/s ${rss} ETA ${eta}`;
  }

  /** Draws when enough time has passed since the last draw. */
  tick(events: number, fraction: () => number | undefined): void {
    const t = this.now();
    if (t - this.last < (this.o.everyMs ?? (this.o.tty ? 250 : 10_000))) return;
    this.last = t;
    const text = this.line(events, fraction(), process.memoryUsage().rss);
    if (this.o.tty) this.o.write(`\r${text}\x1b[K`);
    else this.o.write(`${text}\n`);
    this.drawn = true;
  }

  /** Ends the bar's line on a terminal. */
  done(): void {
    if (this.o.tty && this.drawn) this.o.write('\n');
  }
}
