// The cluster registry, re-read while the forwarder runs: the file is read on each check and compared by its
// SHA-256 with what was last loaded, so an edit takes effect at the next check with no restart and no file
// watcher (inotify misses edits made by replacing the file, as kubectl does for a mounted ConfigMap). A file
// that no longer parses is logged and the last good registry stays in force.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ClusterRegistry, parseRegistry, type ClusterConfig } from '../kube/registry.js';
import type { Logger } from '../runtime/logger.js';

export type RegistryChange = {
  readonly registry: ClusterRegistry;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Clusters whose entry changed (owns, connection, …): their forwarder starts again with the new entry. */
  readonly changed: readonly string[];
};

export class RegistryReload {
  private hash: string | undefined;
  private current: ClusterRegistry;

  constructor(
    private readonly path: string | undefined,
    initial: ClusterRegistry,
    private readonly logger: Logger,
  ) {
    this.current = initial;
    if (path) this.hash = this.digest(path);
  }

  get registry(): ClusterRegistry {
    return this.current;
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
    this.logger.info('Cluster registry reloaded', {
      path: this.path,
      sha256: hash.slice(0, 12),
      added,
      removed,
      changed,
    });
    return { registry: this.current, added, removed, changed };
  }

  private digest(path: string): string | undefined {
    try {
      return createHash('sha256').update(readFileSync(path, 'utf8')).digest('hex');
    } catch {
      return undefined;
    }
  }
}
