// The image's tar writer: the same entries give the same bytes whatever their order, and GNU tar reads back the
// names (long ones through PAX), modes, owners and symlinks it was given. The OCI config carries what it is told.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageConfig } from '../../../../infra/image/oci.js';
import { entryName, layerBlob, paxRecord, splitName, tarArchive, type TarEntry } from '../../../../infra/image/tar.js';

const LONG_DIR = `app/node_modules/${'a'.repeat(90)}/${'b'.repeat(90)}`;
const LONGER = `${LONG_DIR}/${'c'.repeat(120)}.js`;

const ENTRIES: TarEntry[] = [
  { type: 'dir', path: '/app', mode: 0o755 },
  { type: 'file', path: '/app/cli.js', mode: 0o755, data: Buffer.from('#!/usr/bin/env node\n') },
  { type: 'symlink', path: '/lib64/ld.so', target: '/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2' },
  { type: 'dir', path: '/lib64', mode: 0o755 },
  { type: 'dir', path: '/var/lib/fleetq', mode: 0o750, uid: 1000, gid: 1000 },
  { type: 'dir', path: '/tmp', mode: 0o1777 },
  { type: 'file', path: `/${LONGER}`, mode: 0o644, data: Buffer.from('x'.repeat(1000)) },
];

describe('tarArchive', () => {
  it('gives the same bytes for the same entries in any order', () => {
    const a = tarArchive(ENTRIES, 0);
    const b = tarArchive([...ENTRIES].reverse(), 0);
    expect(a.equals(b)).toBe(true);
    expect(a.length % 512).toBe(0);
    expect(layerBlob(ENTRIES, 0)).toEqual(layerBlob([...ENTRIES].reverse(), 0));
    expect(tarArchive(ENTRIES, 1).equals(a)).toBe(false);
  });

  it('is read back by GNU tar with the names, modes, owners and links it was given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tar-test-'));
    try {
      const listing = execFileSync('tar', ['--numeric-owner', '-tvf', '-'], { input: tarArchive(ENTRIES, 0) })
        .toString()
        .trim()
        .split('\n');
      expect(listing.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
        'drwxr-xr-x 0/0',
        '-rwxr-xr-x 0/0',
        '-rw-r--r-- 0/0',
        'drwxr-xr-x 0/0',
        'lrwxrwxrwx 0/0',
        'drwxrwxrwt 0/0',
        'drwxr-x--- 1000/1000',
      ]);
      expect(listing.map((l) => l.split(/\s+/)[5])).toEqual([
        'app/',
        'app/cli.js',
        LONGER,
        'lib64/',
        'lib64/ld.so',
        'tmp/',
        'var/lib/fleetq/',
      ]);
      execFileSync('tar', ['--numeric-owner', '-xf', '-', '-C', dir], { input: tarArchive(ENTRIES, 0) });
      expect(readFileSync(join(dir, LONGER), 'utf8')).toBe('x'.repeat(1000));
      expect(readlinkSync(join(dir, 'lib64', 'ld.so'))).toBe('/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2');
      expect(statSync(join(dir, 'var', 'lib', 'fleetq')).uid).toBe(1000);
      expect(statSync(join(dir, 'app', 'cli.js')).mtimeMs).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a path twice, and paths that leave the root', () => {
    expect(() => tarArchive([ENTRIES[1]!, ENTRIES[1]!], 0)).toThrow(/app\/cli.js is in the layer twice/);
    expect(() => entryName({ type: 'dir', path: '/app/../etc', mode: 0o755 })).toThrow(/not a clean relative path/);
  });
});

describe('splitName and paxRecord', () => {
  it.each([
    { name: 'short', path: 'a/b', want: { prefix: '', name: 'a/b' } },
    { name: 'split at a slash', path: `${'p'.repeat(120)}/n.js`, want: { prefix: 'p'.repeat(120), name: 'n.js' } },
    { name: 'too long for ustar', path: `${'p'.repeat(160)}/n.js`, want: null },
  ])('$name', ({ path, want }) => expect(splitName(path)).toEqual(want));

  it('counts the record length including its own digits', () => {
    for (const value of ['x', 'y'.repeat(90), 'z'.repeat(300)]) {
      const record = paxRecord('path', value);
      expect(Number(record.split(' ')[0])).toBe(Buffer.byteLength(record));
    }
  });
});

describe('imageConfig', () => {
  it('is an OCI config for linux/amd64 with what it is given', () => {
    expect(
      imageConfig({
        user: '1000:1000',
        entrypoint: ['/usr/local/bin/node', '/app/cli.js'],
        cmd: ['run'],
        env: { PATH: '/usr/local/bin', NODE_ENV: 'production' },
        workingDir: '/app',
        labels: { 'org.opencontainers.image.version': '1.2.3' },
        created: '1970-01-01T00:00:00Z',
        diffIds: ['sha256:a', 'sha256:b'],
        history: ['base', 'app'],
      }),
    ).toEqual({
      created: '1970-01-01T00:00:00Z',
      architecture: 'amd64',
      os: 'linux',
      config: {
        User: '1000:1000',
        Env: ['PATH=/usr/local/bin', 'NODE_ENV=production'],
        Entrypoint: ['/usr/local/bin/node', '/app/cli.js'],
        Cmd: ['run'],
        WorkingDir: '/app',
        Labels: { 'org.opencontainers.image.version': '1.2.3' },
      },
      rootfs: { type: 'layers', diff_ids: ['sha256:a', 'sha256:b'] },
      history: [
        { created: '1970-01-01T00:00:00Z', created_by: 'base' },
        { created: '1970-01-01T00:00:00Z', created_by: 'app' },
      ],
    });
  });
});
