// The shadow progress bar (cli-progress): drawn on a terminal with the fraction, events, rate and RSS; nothing at
// all on a pipe, so a redirected stderr stays clean.
import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { startProgress, type ProgressStream } from '../../../shared/replay/progress.js';

/** A stream that collects what is written and says whether it is a terminal. */
function stream(isTTY: boolean): { out: ProgressStream; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { out: Object.assign(w, { isTTY, columns: 200 }), text: () => chunks.join('') };
}

describe('replay progress', () => {
  it('draws a bar on a terminal with the fraction, the events and the rate, and ends it', () => {
    let t = 1_000_000;
    const s = stream(true);
    const p = startProgress(s.out, 'shadow', () => t);
    t += 60_000;
    p.tick(250_000, () => 0.25);
    p.done();
    const text = s.text();
    expect(text).toContain('shadow [');
    expect(text).toContain('25%');
    expect(text).toContain('250000 events');
    expect(text).toContain('4167/s');
    expect(text).toMatch(/RSS \d+ MB/);
  });

  it('writes nothing off a terminal (a pipe or a file)', () => {
    const s = stream(false);
    const p = startProgress(s.out, 'shadow');
    for (let n = 1; n <= 1000; n++) p.tick(n, () => n / 1000);
    p.done();
    expect(s.text()).toBe('');
  });

  it('draws an unknown fraction as 0 and may end twice', () => {
    let t = 0;
    const s = stream(true);
    const p = startProgress(s.out, 'shadow', () => t);
    t = 500;
    p.tick(7, () => undefined);
    p.done();
    p.done();
    expect(s.text()).toContain('0%');
    expect(s.text()).toContain('7 events');
  });
});
