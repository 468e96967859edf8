// Shadow replay throughput: events per second and peak RSS of `replay shadow` (current build against itself)
// over (1) the largest recorded log in events/logs/ and (2) a synthetic log of --events records (default
// 1,000,000) generated into a temporary file (not committed) from a recorded template.
//
// The synthetic log: copies of the template (default events/logs/rollout-scale.jsonl), each in its own namespace
// with its own uids, --concurrent copies (default 20) running at once, staggered in time, merged by observedAt;
// resourceVersions are renumbered to one increasing sequence, and each copy ends by deleting what it left (as a
// namespace deletion would), so the live state stays bounded while the log grows.
//
//   npx tsx test/bench/replay-shadow.ts [--events 1000000] [--concurrent 20] [--template FILE] [--keep FILE]
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LogRecord } from '../../shared/queue/history/log-record.js';
import { readLogFile, writeLogFile } from '../../shared/replay/log-file.js';
import { loadControllers, shadow } from '../../shared/replay/shadow.js';

type Meta = { name?: string; namespace?: string; uid?: string; resourceVersion?: string };

async function collect(path: string): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of readLogFile(path)) out.push(r);
  return out;
}

/** The template's records as text with its namespace and uids as placeholders, and each one's time offset. */
function templateOf(records: readonly LogRecord[]): { text: string[]; offsets: number[]; span: number } {
  const uids = new Set<string>();
  const namespaces = new Set<string>();
  for (const r of records) {
    const m = (r.object as { metadata?: Meta }).metadata;
    if (m?.uid) uids.add(m.uid);
    if (m?.namespace) namespaces.add(m.namespace);
  }
  const t0 = records[0]?.observedAt ?? 0;
  const text = records.map((r) => {
    let s = JSON.stringify(r);
    for (const ns of namespaces) s = s.replaceAll(`"namespace":"${ns}"`, '"namespace":"@NS@"');
    for (const uid of uids) s = s.replaceAll(uid, `@UID@${uid.slice(0, 8)}`);
    return s;
  });
  const offsets = records.map((r) => r.observedAt - t0);
  return { text, offsets, span: (offsets.at(-1) ?? 0) + 1 };
}

/** `events` records: copies of the template, `concurrent` at a time, each cleaned up by DELETED records. */
export async function* syntheticLog(template: readonly LogRecord[], events: number, concurrent: number) {
  const t = templateOf(template);
  const gap = Math.max(1, Math.floor(t.span / concurrent));
  const start = template[0]?.observedAt ?? 0;
  let rv = 1_000;
  let emitted = 0;
  type Copy = { n: number; at: number; next: number; live: Map<string, LogRecord> };
  const active: Copy[] = [];
  let copies = 0;
  const open = (): void => {
    active.push({ n: copies, at: start + copies * gap, next: 0, live: new Map() });
    copies++;
  };
  for (let i = 0; i < concurrent; i++) open();
  while (emitted < events) {
    // The copy whose next record is earliest; a finished copy emits its clean-up and is replaced.
    let best = 0;
    const timeOf = (c: Copy): number => c.at + (t.offsets[c.next] ?? t.span);
    for (let i = 1; i < active.length; i++) if (timeOf(active[i]!) < timeOf(active[best]!)) best = i;
    const c = active[best]!;
    if (c.next >= t.text.length) {
      const at = c.at + t.span;
      for (const r of c.live.values()) {
        if (emitted >= events) return;
        const object = r.object as { metadata: Meta };
        const resourceVersion = String(++rv);
        yield {
          ...r,
          type: 'DELETED',
          resourceVersion,
          observedAt: at,
          object: { ...object, metadata: { ...object.metadata, resourceVersion } },
        } as LogRecord;
        emitted++;
      }
      active.splice(best, 1);
      open();
      continue;
    }
    const hex = c.n.toString(16).padStart(8, '0');
    const text = t.text[c.next]!.replaceAll('@NS@', `bench-${c.n}`).replace(
      /@UID@(.{8})/g,
      `$1-0000-4000-8000-00${hex}00`,
    );
    const r = JSON.parse(text) as LogRecord & { object: { metadata: Meta } };
    const resourceVersion = String(++rv);
    r.object.metadata.resourceVersion = resourceVersion;
    const record: LogRecord = { ...r, resourceVersion, observedAt: c.at + t.offsets[c.next]! };
    const id = `${r.resource}/${r.object.metadata.name}`;
    if (r.type === 'DELETED') c.live.delete(id);
    else c.live.set(id, record);
    c.next++;
    yield record;
    emitted++;
  }
}

async function measure(label: string, path: string): Promise<void> {
  const current = await loadControllers('current');
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  const started = performance.now();
  const report = await shadow(readLogFile(path), {
    owns: new Set(current.keys()),
    a: current,
    b: current,
    onProgress: (n) => {
      if (n % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    },
  });
  clearInterval(timer);
  const s = (performance.now() - started) / 1000;
  peak = Math.max(peak, process.memoryUsage().rss);
  const mb = (statSync(path).size / 1e6).toFixed(1);
  console.log(
    `${label}: ${report.events} events (${mb} MB) in ${s.toFixed(1)} s = ${Math.round(report.events / s)} events/s, ` +
      `${report.decisions} decisions (${report.failed} failed), ${report.differences.length} differences, ` +
      `peak RSS ${Math.round(peak / 1e6)} MB; load ${(await import('node:os'))
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      concurrent: { type: 'string', default: '20' },
      template: { type: 'string', default: 'events/logs/rollout-scale.jsonl' },
      keep: { type: 'string' },
      'skip-recorded': { type: 'boolean', default: false },
    },
  });
  if (!values['skip-recorded']) {
    const logs = readdirSync('events/logs')
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join('events/logs', f));
    const largest = logs.sort((a, b) => statSync(b).size - statSync(a).size)[0];
    if (largest) await measure(`recorded ${largest}`, largest);
  }
  const dir = mkdtempSync(join(tmpdir(), 'fleetq-replay-bench-'));
  const path = values.keep ?? join(dir, 'synthetic.jsonl');
  try {
    const events = Number(values.events);
    const generated = performance.now();
    const n = await writeLogFile(path, syntheticLog(await collect(values.template), events, Number(values.concurrent)));
    console.log(`generated ${n} records in ${((performance.now() - generated) / 1000).toFixed(1)} s`);
    await measure(`synthetic ${n}`, path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('replay-shadow.ts')) await main();
