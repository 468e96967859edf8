// Progress of a long replay on stderr: a cli-progress bar redrawn in place (fraction, events, rate, RSS, ETA),
// only when the stream is a terminal; on a pipe or a file nothing is written (a log stays clean). How far along
// is a fraction the caller gives: bytes read of a file, or the last record's time within the window of a store.
import cliProgress from 'cli-progress';

/** The stream the bar draws on: process.stderr, or in a test a stream that says it is a terminal. */
export type ProgressStream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };

export interface Progress {
  /** `events` read so far and the fraction (0..1) of the input done, or undefined when it is not known yet. */
  tick(events: number, fraction: () => number | undefined): void;
  /** Draws the last state and ends the bar's line. */
  done(): void;
}

/** The bar's resolution: a fraction is shown in thousandths. */
const TOTAL = 1000;

const SILENT: Progress = { tick: () => undefined, done: () => undefined };

/** A bar on `stream` when it is a terminal; otherwise one that writes nothing. `now` is injected for tests. */
export function startProgress(stream: ProgressStream, label: string, now: () => number = Date.now): Progress {
  if (stream.isTTY !== true) return SILENT;
  const started = now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {percentage}% | {events} events | {rate}/s | RSS {rss} MB | ETA {eta_formatted}`,
      barsize: 24,
      hideCursor: false,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.legacy,
  );
  const payload = (events: number) => ({
    events,
    rate: Math.round(events / Math.max(0.001, (now() - started) / 1000)),
    rss: Math.round(process.memoryUsage().rss / 1e6),
  });
  bar.start(TOTAL, 0, payload(0));
  let last = 0;
  let stopped = false;
  return {
    tick(events, fraction) {
      // The bar redraws on its own timer; the fraction and RSS are read at most every 100 ms.
      const t = now();
      if (stopped || t - last < 100) return;
      last = t;
      const f = fraction(); // not known yet: drawn as 0, the ETA as unknown
      bar.update(f === undefined ? 0 : Math.round(Math.min(1, Math.max(0, f)) * TOTAL), payload(events));
    },
    done() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
