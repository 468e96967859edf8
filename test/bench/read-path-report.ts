// The tables test/bench/read-path.ts prints: per phase, upstream and fleetq side by side (convergence, the
// controller side's API requests by verb + resource as the apiserver's audit log counted them, the clients not
// counted), and one summary line per phase with the fleetq/upstream ratios.
import { controllerSide, isControllerSide, type Tally } from '../helpers/sandbox/audit-log.js';
import { median } from '../helpers/stats.js';

export type CacheFigures = {
  /** Objects the phase added to fleetq's cache, and the process heap they added (after a forced GC). */
  readonly objects: number;
  readonly heapDelta: number;
  /** Mean JSON size of one cached (trimmed) object, over every object in the cache. */
  readonly jsonBytesPerObject: number;
  readonly lag: {
    samples: number;
    p50: number | undefined;
    p99: number | undefined;
    max: number | undefined;
    onlyWatched: number;
    onlyCached: number;
  };
};

export type Step = {
  readonly ms: number | null;
  readonly tally: Tally;
  /** fleetq's own count of its API requests in the step (fleetq_kube_requests_total), as a cross-check. */
  readonly selfCount?: number;
  readonly cache?: CacheFigures;
  readonly note?: string;
  /** 1-minute load average of the machine when the step ended. */
  readonly load: number;
};

export type Comparison = { readonly title: string; readonly upstream: Step[]; readonly fleetq: Step[] };

const W = [44, 22, 22, 10];
const row = (cells: readonly string[]): string =>
  cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(W[i] ?? 12))).join(' ');

const seconds = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : (ms / 1000).toFixed(1);
const ratio = (f: number | null | undefined, u: number | null | undefined): string =>
  f === null || f === undefined || !u ? '—' : (f / u).toFixed(2);

/** Median convergence (ms) of the steps, null if any did not converge. */
export function medianMs(steps: readonly Step[]): number | null {
  if (steps.some((s) => s.ms === null)) return null;
  return median(steps.map((s) => s.ms ?? 0)) ?? null;
}

export const controllerRequests = (s: Step): number => controllerSide(s.tally).total;

function sumBy(steps: readonly Step[], pick: (s: Step) => Map<string | number, number>): Map<string | number, number> {
  const sum = new Map<string | number, number>();
  for (const s of steps) for (const [k, n] of pick(s)) sum.set(k, (sum.get(k) ?? 0) + n);
  return sum;
}

function notCounted(steps: readonly Step[]): string {
  const sum = new Map<string, number>();
  for (const s of steps)
    for (const [client, c] of s.tally) if (!isControllerSide(client)) sum.set(client, (sum.get(client) ?? 0) + c.total);
  return (
    [...sum]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ') || '—'
  );
}

function clients(steps: readonly Step[]): string {
  const sum = new Map<string, number>();
  for (const s of steps)
    for (const [client, c] of s.tally) if (isControllerSide(client)) sum.set(client, (sum.get(client) ?? 0) + c.total);
  return [...sum].map(([c, n]) => `${c} ${n}`).join(', ') || '—';
}

export function printComparison(c: Comparison): void {
  const { upstream: u, fleetq: f } = c;
  const runs = Math.max(u.length, f.length);
  const each = runs > 1;
  const of = (steps: readonly Step[], pick: (s: Step) => string): string => steps.map(pick).join(' ');
  console.log(`\n== ${c.title} ==`);
  console.log(row(['', 'upstream', 'fleetq', 'fleetq/upstream']));
  if (each) console.log(row([`convergence, each run (s)`, of(u, (s) => seconds(s.ms)), of(f, (s) => seconds(s.ms))]));
  const mu = medianMs(u);
  const mf = medianMs(f);
  console.log(row([`convergence${each ? ', median' : ''} (s)`, seconds(mu), seconds(mf), ratio(mf, mu)]));
  const ru = u.map(controllerRequests);
  const rf = f.map(controllerRequests);
  if (each) console.log(row(['controller API requests, each run', ru.join(' '), rf.join(' ')]));
  const qu = median(ru);
  const qf = median(rf);
  console.log(
    row([`controller API requests${each ? ', median' : ''}`, String(qu ?? '—'), String(qf ?? '—'), ratio(qf, qu)]),
  );
  const bu = sumBy(u, (s) => controllerSide(s.tally).byRequest);
  const bf = sumBy(f, (s) => controllerSide(s.tally).byRequest);
  const keys = [...new Set([...bu.keys(), ...bf.keys()])].sort(
    (a, b) => (bu.get(b) ?? 0) + (bf.get(b) ?? 0) - (bu.get(a) ?? 0) - (bf.get(a) ?? 0),
  );
  console.log(`  by verb + resource${each ? ` (sum of ${runs} runs)` : ''}:`);
  for (const k of keys) console.log(row([`    ${k}`, String(bu.get(k) ?? 0), String(bf.get(k) ?? 0)]));
  const codes = (steps: readonly Step[]): string =>
    [...sumBy(steps, (s) => controllerSide(s.tally).byCode)]
      .filter(([code]) => Number(code) >= 400 || Number(code) === 0)
      .map(([code, n]) => `${code}×${n}`)
      .join(' ') || 'none';
  console.log(row(['  answers ≥ 400 (or none)', codes(u), codes(f)]));
  console.log(`  counted clients: upstream ${clients(u)}; fleetq ${clients(f)}`);
  const self = f.map((s) => s.selfCount).filter((n): n is number => n !== undefined);
  if (self.length > 0) console.log(`  fleetq's own count (fleetq_kube_requests_total): ${self.join(' ')}`);
  console.log(`  not counted, upstream: ${notCounted(u)}`);
  console.log(`  not counted, fleetq:   ${notCounted(f)}`);
  console.log(
    `  load average at the end of each step: upstream ${of(u, (s) => s.load.toFixed(1))}; fleetq ${of(f, (s) => s.load.toFixed(1))}`,
  );
  for (const s of [...u, ...f]) if (s.note) console.log(`  note: ${s.note}`);
  for (const s of f) if (s.cache) printCache(s.cache);
}

function printCache(c: CacheFigures): void {
  const ms = (v: number | undefined): string => (v === undefined ? '—' : `${v} ms`);
  console.log(`  fleetq cache (in-process MemoryCacheStore of \`fleetq run\`):`);
  console.log(
    `    memory per object: ${c.objects > 0 ? (c.heapDelta / c.objects / 1024).toFixed(1) : '—'} KiB ` +
      `(process heap after forced GC: +${(c.heapDelta / 2 ** 20).toFixed(1)} MiB for ${c.objects} objects added); ` +
      `JSON of a cached object: ${(c.jsonBytesPerObject / 1024).toFixed(1)} KiB on average`,
  );
  console.log(
    `    event → visible-in-cache lag: p50 ${ms(c.lag.p50)}, p99 ${ms(c.lag.p99)}, max ${ms(c.lag.max)} ` +
      `(${c.lag.samples} object versions; unmatched: ${c.lag.onlyWatched} seen only by the bench's watch, ` +
      `${c.lag.onlyCached} only by the cache)`,
  );
}

export function printSummary(all: readonly Comparison[]): void {
  console.log('\n== summary (fleetq/upstream; target: requests ≤ 1.00, convergence ≤ 1.00) ==');
  console.log(
    ['phase'.padEnd(44), 'upstream s', 'fleetq s', 'ratio', 'upstream req', 'fleetq req', 'ratio'].join('\t'),
  );
  for (const c of all) {
    const mu = medianMs(c.upstream);
    const mf = medianMs(c.fleetq);
    const qu = median(c.upstream.map(controllerRequests));
    const qf = median(c.fleetq.map(controllerRequests));
    console.log(
      [c.title.padEnd(44), seconds(mu), seconds(mf), ratio(mf, mu), qu ?? '—', qf ?? '—', ratio(qf, qu)].join('\t'),
    );
  }
}
