// The cluster registry, re-read while a process runs (the forwarder pool; a worker: registry-watch.ts): the file
// is read on each check and compared by its SHA-256 with what was last loaded, so an edit takes effect at the
// next check with no restart and no file watcher (inotify misses edits made by replacing the file, as kubectl
// does for a mounted ConfigMap). A file that no longer parses is logged and the last good registry stays in force.
// The registry's digest (registryDigest: SHA-256 of the parsed, normalized entries sorted by name) is what pool
// members compare (forwarder/forwarder-pool.ts): the same clusters with the same entries give the same digest
// whatever the file's formatting, comments or order.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ClusterRegistry, parseRegistry, type ClusterConfig } from '../kube/registry.js';
import type { Logger } from './logger.js';

export type RegistryChange = {
  readonly registry: ClusterRegistry;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Clusters whose entry changed (owns, connection, …): their forwarder starts again with the new entry. */
  readonly changed: readonly string[];
};

/** SHA-256 (hex) of the normalized registry: its parsed entries sorted by name, as JSON. */
export function registryDigest(clusters: readonly ClusterConfig[]): string {
  const sorted = [...clusters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

export class RegistryReload {
  private currentDigest: string | undefined;

  private hash: string | undefined;
  private current: ClusterRegistry;

  constructor(
    private readonly path: string | undefined,
    initial: ClusterRegistry,
    private readonly logger: Logger,
  ) {
    this.current = initial;
    if (path) this.hash = this.fileHash(path);
  }

  get registry(): ClusterRegistry {
    return this.current;
  }

  /** registryDigest of the registry in force (the last good one). */
  get digest(): string {
    this.currentDigest ??= registryDigest(this.current.clusters);
    return this.currentDigest;
  }

  /** Re-reads the file; the change when it differs from the last loaded registry, else undefined. */
  check(): RegistryChange | undefined {
    if (!this.path) return undefined;
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      this.logger.error('Cluster registry not readable; keeping the last one', { path: this.path, err });
      return undefined;
    }
    const hash = createHash('sha256').update(text).digest('hex');
    if (hash === this.hash) return undefined;
    let clusters: ClusterConfig[];
    try {
      clusters = parseRegistry(text, this.path, dirname(this.path));
    } catch (err) {
      this.hash = hash; // logged once per bad version, not on every check
      this.logger.error('Cluster registry invalid; keeping the last one', { path: this.path, err });
      return undefined;
    }
    this.hash = hash;
    const before = new Map(this.current.clusters.map((c) => [c.name, JSON.stringify(c)]));
    const after = new Map(clusters.map((c) => [c.name, JSON.stringify(c)]));
    const added = [...after.keys()].filter((n) => !before.has(n));
    const removed = [...before.keys()].filter((n) => !after.has(n));
    const changed = [...after.keys()].filter((n) => before.has(n) && before.get(n) !== after.get(n));
    this.current = new ClusterRegistry(clusters);
    this.currentDigest = undefined;
    this.logger.info('Cluster registry reloaded', {
      path: this.path,
      sha256: hash.slice(0, 12),
      digest: this.digest.slice(0, 12),
      added,
      removed,
      changed,
    });
    return { registry: this.current, added, removed, changed };
  }

  private fileHash(path: string): string | undefined {
    try {
      return createHash('sha256').update(readFileSync(path, 'utf8')).digest('hex');
    } catch {
      return undefined;
    }
  }
}
