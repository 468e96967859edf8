// When a cluster's TLS material changed: the CA its kubeconfig trusts and the client certificate and key it
// presents, as files (caFile, certFile, keyFile: rotated by cert-manager, a vault agent or a Secret volume's
// symlink swap) or as inline data of a kubeconfig that was loaded again (a new KubeConfig object). KubeRest keeps
// one connection pool per client (a TLS handshake per request cost most of a worker's CPU) and builds a new one
// only when this says the material changed, so a rotation takes effect within checkEveryMs, without a restart.
// Cheap on the request path, as TokenFile is for tokens: at most once per checkEveryMs, one stat per file (its
// identity: inode, size, mtime, ctime), never a read; client-node reads the files when it builds the pool.
import { statSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';

export type TlsMaterialOptions = {
  /** Look at the files at most this often (default 1 s). */
  readonly checkEveryMs?: number;
  readonly now?: () => number;
};

export class TlsMaterial {
  private kc: KubeConfig | undefined;
  private signature = '';
  private checkedAt = Number.NEGATIVE_INFINITY;
  private readonly checkEveryMs: number;
  private readonly now: () => number;

  constructor(o: TlsMaterialOptions = {}) {
    this.checkEveryMs = o.checkEveryMs ?? 1_000;
    this.now = o.now ?? Date.now;
  }

  /**
   * Whether the TLS material `kc` names may differ from what it named when this last answered true (true the
   * first time). A file that cannot be looked at counts as changed when it can be again.
   */
  changed(kc: KubeConfig): boolean {
    const now = this.now();
    if (kc === this.kc && now - this.checkedAt < this.checkEveryMs) return false;
    this.checkedAt = now;
    const signature = tlsSignature(kc);
    if (kc === this.kc && signature === this.signature) return false;
    this.kc = kc;
    this.signature = signature;
    return true;
  }

  /** Forgets what was seen: the next changed() says true (the material it announced was not taken up). */
  forget(): void {
    this.kc = undefined;
  }
}

/** What identifies the TLS material of kc's current context, without reading a file. */
export function tlsSignature(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  return [cluster?.caFile, user?.certFile, user?.keyFile].map(fileIdentity).join('|');
}

function fileIdentity(path: string | undefined): string {
  if (!path) return '-';
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
