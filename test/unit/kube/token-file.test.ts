// TokenFile: a rotated token file is re-read on change (checked at most once per checkEveryMs), and at least
// every maxAgeMs; a failed or empty read keeps the last good token. Real files, a fake clock.
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TOKEN_FILE_AUTH, TokenFile, TokenFileAuthenticator } from '../../../shared/kube/token-file.js';

const dir = mkdtempSync(join(tmpdir(), 'fleetq-token-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function setUp(content: string) {
  const path = join(dir, `token-${n++}`);
  writeFileSync(path, content);
  let now = 1_000_000;
  const file = new TokenFile(path, { checkEveryMs: 1_000, maxAgeMs: 60_000, now: () => now });
  return { path, file, advance: (ms: number) => (now += ms) };
}

/** Rewrites the file with a distinct mtime (file systems with coarse timestamps would otherwise hide it). */
function rewrite(path: string, content: string, mtimeSeconds: number): void {
  writeFileSync(path, content);
  utimesSync(path, mtimeSeconds, mtimeSeconds);
}

describe('TokenFile', () => {
  it('reads and trims the token', async () => {
    const { file } = setUp('abc\n');
    expect(await file.token()).toBe('abc');
  });

  it('a rotated file is used after the next check, without a restart', async () => {
    const { path, file, advance } = setUp('first');
    expect(await file.token()).toBe('first');
    rewrite(path, 'second', 2_000_000);
    expect(await file.token()).toBe('first'); // within checkEveryMs: not looked at
    advance(1_000);
    expect(await file.token()).toBe('second');
  });

  it('a file replaced by rename (how kubelet and vault agents rotate) is seen', async () => {
    const { path, file, advance } = setUp('old');
    expect(await file.token()).toBe('old');
    const next = `${path}.new`;
    writeFileSync(next, 'new');
    renameSync(next, path);
    advance(1_000);
    expect(await file.token()).toBe('new');
  });

  it('re-reads at least every maxAgeMs even when the file looks unchanged', async () => {
    const { path, file, advance } = setUp('aaaa');
    utimesSync(path, 3_000_000, 3_000_000);
    advance(1_000);
    expect(await file.token()).toBe('aaaa');
    rewrite(path, 'bbbb', 3_000_000); // same size, same mtime
    advance(1_000);
    expect(await file.token()).toBe('aaaa');
    advance(60_000);
    expect(await file.token()).toBe('bbbb');
  });

  it('keeps the last good token when the file is empty or gone, and picks up the next good one', async () => {
    const { path, file, advance } = setUp('good');
    expect(await file.token()).toBe('good');
    rewrite(path, '', 4_000_000);
    advance(1_000);
    expect(await file.token()).toBe('good');
    rmSync(path);
    advance(1_000);
    expect(await file.token()).toBe('good');
    rewrite(path, 'better', 4_000_100);
    advance(1_000);
    expect(await file.token()).toBe('better');
  });

  it('throws, naming the file, when no token was ever read', async () => {
    const file = new TokenFile(join(dir, 'missing'));
    await expect(file.token()).rejects.toThrow(/cannot read token file .*missing/);
    const { file: empty } = setUp('  \n');
    await expect(empty.token()).rejects.toThrow(/is empty/);
  });

  it('concurrent callers share one read', async () => {
    const { file } = setUp('shared');
    expect(await Promise.all([file.token(), file.token(), file.token()])).toEqual(['shared', 'shared', 'shared']);
  });

  it('the authenticator sets the bearer header for users that name it', async () => {
    const { file } = setUp('tok');
    const auth = new TokenFileAuthenticator(file);
    const user = { name: 'u', authProvider: { name: TOKEN_FILE_AUTH, config: {} } };
    expect(auth.isAuthProvider(user)).toBe(true);
    expect(auth.isAuthProvider({ name: 'u', token: 'x' })).toBe(false);
    const opts: { headers?: Record<string, unknown> } = {};
    await auth.applyAuthentication(user, opts);
    expect(opts.headers).toEqual({ Authorization: 'Bearer tok' });
  });
});
