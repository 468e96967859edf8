// A log as one JSON-lines file of log format v1 records (shared/queue/history/log-record.ts): what
// `fleetq log export` writes and `fleetq log import` / `replay shadow --log` read. Read as a stream, line by line,
// so a log of any length is never held in memory. A record of an unknown format version stops the read with
// a LogFormatError naming the file and line.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { decodeOrSkip, type LogRecord, type OnMalformed } from '../queue/history/log-record.js';

/** Bytes of the file read so far (for a progress bar's fraction), updated as records are yielded. */
export type ReadPosition = { bytes: number };

export async function* readLogFile(
  path: string,
  position?: ReadPosition,
  onMalformed?: OnMalformed,
): AsyncIterable<LogRecord> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (position) position.bytes += Buffer.byteLength(line, 'utf8') + 1;
    if (line.trim() === '') continue;
    const record = decodeOrSkip(line, `${path}:${lineNo}`, onMalformed);
    if (record) yield record;
  }
}

/** Writes records as JSON lines to `path` ('-' = stdout); returns how many. */
export async function writeLogFile(path: string, records: AsyncIterable<LogRecord>): Promise<number> {
  const out = path === '-' ? process.stdout : createWriteStream(path);
  let n = 0;
  for await (const record of records) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
    n++;
  }
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
  }
  return n;
}
