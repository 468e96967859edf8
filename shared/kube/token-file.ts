// A bearer token read from a file that is rotated under us (a projected ServiceAccount token, a secret a
// vault agent rewrites): client-go's cached token source re-reads its file every minute; this one also looks
// at the file's identity (inode, size, mtime) at most once per checkEveryMs and re-reads at once when it
// changed, so a rotation takes effect within a second, without a restart.
//   - an empty file (caught mid-write) or an unreadable one keeps the token read last, if any, as client-go does;
//     it is looked at again on the next check.
//   - concurrent callers share one read.
import { readFile, stat } from 'node:fs/promises';
import type { KubeConfig, User } from '@kubernetes/client-node';

/** client-node's Authenticator (not exported from its index). */
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

export type TokenFileOptions = {
  /** Look at the file's identity at most this often (default 1 s). */
  readonly checkEveryMs?: number;
  /** Re-read the content at least this often even when the file looks unchanged (default 60 s, client-go). */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
};

export class TokenFile {
  private cached: string | undefined;
  private signature = '';
  private readAt = 0;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<string> | undefined;
  private readonly checkEveryMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    o: TokenFileOptions = {},
  ) {
    this.checkEveryMs = o.checkEveryMs ?? 1_000;
    this.maxAgeMs = o.maxAgeMs ?? 60_000;
    this.now = o.now ?? Date.now;
  }

  /** The current token (trimmed). Throws only when no token was ever read. */
  async token(): Promise<string> {
    if (this.cached !== undefined && this.now() - this.checkedAt < this.checkEveryMs) return this.cached;
    this.pending ??= this.refresh().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async refresh(): Promise<string> {
    const now = this.now();
    try {
      const s = await stat(this.path);
      const signature = `${s.ino}:${s.size}:${s.mtimeMs}`;
      if (this.cached !== undefined && signature === this.signature && now - this.readAt < this.maxAgeMs) {
        this.checkedAt = now;
        return this.cached;
      }
      const text = (await readFile(this.path, 'utf8')).trim();
      if (text === '') throw new Error('the file is empty');
      this.cached = text;
      this.signature = signature;
      this.readAt = now;
      this.checkedAt = now;
      return text;
    } catch (err) {
      if (this.cached !== undefined) return this.cached; // keep the last good token; look again next call
      throw new Error(`cannot read token file ${this.path}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }
}

/** The authProvider name a KubeConfig user carries to have its token from a TokenFile. */
export const TOKEN_FILE_AUTH = 'fleetq-token-file';

/** A client-node authenticator that sets `Authorization: Bearer <token>` from a TokenFile on every request. */
export class TokenFileAuthenticator implements Authenticator {
  constructor(private readonly file: TokenFile) {}

  isAuthProvider(user: User): boolean {
    return (user.authProvider as { name?: unknown } | undefined)?.name === TOKEN_FILE_AUTH;
  }

  async applyAuthentication(_user: User, opts: { headers?: Record<string, unknown> }): Promise<void> {
    opts.headers ??= {};
    opts.headers.Authorization = `Bearer ${await this.file.token()}`;
  }
}
