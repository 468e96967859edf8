// A deterministic tar writer for image layers: entries sorted by path, one fixed mtime, owner and mode as given
// (never read from the disk that built it), no user or group names. A path longer than ustar's name/prefix split
// allows gets a PAX header (`path=`), as GNU tar's --format=pax does. Two builds from the same entries give the
// same bytes, so the same layer digest.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

export type TarEntry =
  | {
      readonly type: 'file';
      readonly path: string;
      readonly mode: number;
      readonly uid?: number;
      readonly gid?: number;
      readonly data: Buffer;
    }
  | { readonly type: 'dir'; readonly path: string; readonly mode: number; readonly uid?: number; readonly gid?: number }
  | {
      readonly type: 'symlink';
      readonly path: string;
      readonly target: string;
      readonly uid?: number;
      readonly gid?: number;
    };

const BLOCK = 512;
const TYPE_FLAG = { file: '0', symlink: '2', dir: '5', pax: 'x' } as const;

/** `usr/lib/x` and `/usr/lib/x/` both become `usr/lib/x`; a directory's tar name ends with `/`. */
export function entryName(entry: TarEntry): string {
  const path = entry.path.replace(/^\/+/, '').replace(/\/+$/, '');
  if (path === '' || path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`tar: not a clean relative path: ${JSON.stringify(entry.path)}`);
  }
  return entry.type === 'dir' ? `${path}/` : path;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(fields: {
  name: string;
  prefix: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  type: string;
  linkname: string;
}): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (text: string, offset: number, width: number): void => {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > width) throw new Error(`tar: ${JSON.stringify(text)} is longer than ${width} bytes`);
    bytes.copy(block, offset);
  };
  put(fields.name, 0, 100);
  put(octal(fields.mode, 8), 100, 8);
  put(octal(fields.uid, 8), 108, 8);
  put(octal(fields.gid, 8), 116, 8);
  put(octal(fields.size, 12), 124, 12);
  put(octal(fields.mtime, 12), 136, 12);
  put('        ', 148, 8); // the checksum is computed with its own field as spaces
  put(fields.type, 156, 1);
  put(fields.linkname, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(fields.prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

/** ustar's split of a long name at a `/`: prefix (≤155 bytes) and name (≤100); null when none fits. */
export function splitName(name: string): { prefix: string; name: string } | null {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name };
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest !== '')
      return { prefix, name: rest };
  }
  return null;
}

/** One PAX record: `<length> <key>=<value>\n`, the length counting itself. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The tar archive of the entries (sorted by name, duplicates refused), ending with its two zero blocks. */
export function tarArchive(entries: readonly TarEntry[], mtime: number): Buffer {
  const named = entries.map((entry) => ({ entry, name: entryName(entry) }));
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const chunks: Buffer[] = [];
  let previous = '';
  for (const { entry, name } of named) {
    if (name === previous) throw new Error(`tar: ${name} is in the layer twice`);
    previous = name;
    const data = entry.type === 'file' ? entry.data : Buffer.alloc(0);
    const linkname = entry.type === 'symlink' ? entry.target : '';
    const records: string[] = [];
    let split = splitName(name);
    if (split === null) {
      records.push(paxRecord('path', name));
      split = { prefix: '', name: name.slice(-100).replace(/^[^/]*\//, '') || 'pax-path' };
    }
    if (Buffer.byteLength(linkname) > 100) records.push(paxRecord('linkpath', linkname));
    if (records.length > 0) {
      const pax = Buffer.from(records.join(''), 'utf8');
      chunks.push(
        header({
          name: `PaxHeaders/${split.name}`.slice(0, 100),
          prefix: '',
          mode: 0o644,
          uid: 0,
          gid: 0,
          size: pax.length,
          mtime,
          type: TYPE_FLAG.pax,
          linkname: '',
        }),
        pax,
        padding(pax.length),
      );
    }
    chunks.push(
      header({
        name: split.name,
        prefix: split.prefix,
        mode: entry.type === 'symlink' ? 0o777 : entry.mode,
        uid: entry.uid ?? 0,
        gid: entry.gid ?? 0,
        size: data.length,
        mtime,
        type: TYPE_FLAG[entry.type],
        linkname: Buffer.byteLength(linkname) > 100 ? linkname.slice(0, 100) : linkname,
      }),
      data,
      padding(data.length),
    );
  }
  chunks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(chunks);
}

export type LayerBlob = {
  /** sha256 of the uncompressed tar: the config's rootfs.diff_ids entry. */
  readonly diffId: string;
  /** sha256 of the gzip: the blob's name and the manifest's layer digest. */
  readonly digest: string;
  readonly gzip: Buffer;
  /** Bytes of the uncompressed tar. */
  readonly tarSize: number;
};

export const sha256 = (bytes: Buffer | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The layer as an OCI blob: a gzip with no name and no time in its header, so the same tar gives the same digest. */
export function layerBlob(entries: readonly TarEntry[], mtime: number): LayerBlob {
  const tar = tarArchive(entries, mtime);
  const gzip = gzipSync(tar, { level: 6 });
  return { diffId: sha256(tar), digest: sha256(gzip), gzip, tarSize: tar.length };
}
