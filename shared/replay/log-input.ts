// Whether a file given as a log (`log import --file`, `log stats --file`, `replay shadow --log`) can be one, said
// before it is read: a file that is missing, a directory, empty or binary is refused with what is wrong, so a
// wrong path never reads as "0 records". Whether its lines are records is the reader's to say (a file with none
// is refused by each command after its read: noRecordsMessage).
import { open, stat } from 'node:fs/promises';

export class LogInputError extends Error {
  override name = 'LogInputError';
}

/** Bytes looked at for a NUL: a JSON-lines log has none, a gzip, tarball or binary has one early. */
const SNIFF_BYTES = 8192;

/** Throws LogInputError, naming `path`, when it is not a readable, non-empty text file. */
export async function checkLogInput(path: string): Promise<void> {
  let size: number;
  try {
    const s = await stat(path);
    if (s.isDirectory())
      throw new LogInputError(`${path}: a directory, not a log file (a JSON-lines store is --store jsonl:${path})`);
    if (!s.isFile()) throw new LogInputError(`${path}: not a regular file`);
    size = s.size;
  } catch (err) {
    if (err instanceof LogInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new LogInputError(
      code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot be read (${code ?? String(err)})`,
    );
  }
  if (size === 0) throw new LogInputError(`${path}: empty file, no log records (an export of an empty window?)`);
  const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new LogInputError(`${path}: cannot be read (${err.code ?? err.message})`);
  });
  try {
    const buffer = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const nul = buffer.subarray(0, bytesRead).indexOf(0);
    if (nul >= 0) {
      const gzip = buffer[0] === 0x1f && buffer[1] === 0x8b;
      throw new LogInputError(
        `${path}: a binary file (a NUL byte at offset ${nul}${gzip ? '; gzip: gunzip it first' : ''}), not JSON lines of log records`,
      );
    }
  } finally {
    await handle.close();
  }
}

/** The refusal of an input that held no log record: how many lines were not records, and the first reason. */
export function noRecordsMessage(where: string, malformed: number, firstProblem: string | undefined): string {
  if (malformed === 0) return `${where}: no log records`;
  return (
    `${where}: no readable log records (${malformed} line(s) are not log records${firstProblem ? `; first: ${firstProblem}` : ''}). ` +
    'Give a file `fleetq log export` wrote'
  );
}
