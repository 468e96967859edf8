// The shadow progress line: a bar with counts, rate, RSS and ETA on a terminal, a plain line otherwise; drawn
// at most once per interval.
import { describe, expect, it } from '@jest/globals';
import { Progress } from '../../../shared/replay/progress.js';

describe('replay progress', () => {
  it('draws a bar with the fraction, count, rate and an ETA from the elapsed time', () => {
    let t = 1_000_000;
    const p = new Progress({ tty: true, write: () => undefined, now: () => t });
    t += 60_000; // a quarter done after one minute: three more to go
    expect(p.line(250_000, 0.25, 300e6)).toBe(
      '[######..................] 25.0% 250000 events 4167/s RSS 300 MB ETA 3m00s',
    );
    expect(p.line(10, undefined, 1e6)).toContain('ETA ?');
  });

  it('writes plain lines off a terminal, at most once per interval, and nothing to end', () => {
    let t = 0;
    const out: string[] = [];
    const p = new Progress({ tty: false, write: (s) => out.push(s), now: () => t, everyMs: 1000 });
    for (let n = 1; n <= 5000; n++) {
      t += 1; // 5 s in all
      p.tick(n, () => n / 10_000);
    }
    expect(out.length).toBe(5);
    expect(out[0]).toMatch(/^fleetq: shadow 1000 events, 10\.0% \d+\/s, RSS \d+ MB, ETA 9s\n$/);
    p.done();
    expect(out.length).toBe(5);
  });

  it('redraws in place on a terminal and ends the line once', () => {
    let t = 0;
    const out: string[] = [];
    const p = new Progress({ tty: true, write: (s) => out.push(s), now: () => t, everyMs: 100 });
    t = 100;
    p.tick(1, () => 0.5);
    p.done();
    expect(out[0]?.startsWith('\r[############............] 50.0% 1 events ')).toBe(true);
    expect(out[0]?.endsWith('\u001b[K')).toBe(true);
    expect(out[1]).toBe('\n');
  });
});
