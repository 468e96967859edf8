// The example controller: a ConfigMap annotated `fleetq.dev/mirror-to: ns-a,ns-b` is copied into
// those namespaces, kept in sync, and its copies are deleted when the source goes. Opt-in per cluster, and only
// into the namespaces its registry entry allows (policy.ts).
import type { ConfigMap, Namespace } from '../../kube/api/objects.js';
import type { TargetRefusal } from './policy.js';

export const MIRROR_TO = 'fleetq.dev/mirror-to';
/** Label on every copy: `<source namespace>.<source name>` (namespaces never contain '.'). */
export const MIRROR_OF = 'fleetq.dev/mirror-of';
export const MIRROR_SOURCE_UID = 'fleetq.dev/mirror-source-uid';
/** Re-check targets whose namespace does not exist yet (namespaces are not watched). */
export const MISSING_NAMESPACE_RECHECK_MS = 30_000;

export type ObservedMirror = {
  readonly namespace: string;
  readonly name: string;
  readonly source: ConfigMap | null;
  /** Every ConfigMap labelled as a copy of this source, in any namespace. */
  readonly copies: readonly ConfigMap[];
  /** The cluster's mirror.allowedNamespaces (empty: none). Copies are written and deleted only there. */
  readonly allowedNamespaces: readonly string[];
  /** Targets the annotation names that the mirror refuses (not a name, system, not allowed): never read or written. */
  readonly refused: readonly TargetRefusal[];
  /** For each allowed namespace the annotation names: the namespace (null if absent) and the ConfigMap of the source's name there. */
  readonly targets: ReadonlyArray<{
    readonly namespace: string;
    readonly ns: Namespace | null;
    readonly existing: ConfigMap | null;
  }>;
};

export function mirrorLabelValue(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/**
 * Target namespaces named by the annotation, trimmed, deduplicated, without the source's own. Unchecked: the
 * observe step screens them (policy.ts) before any of them is read or written.
 */
export function targetNamespaces(source: ConfigMap | null): string[] {
  if (!source || source.metadata?.deletionTimestamp) return [];
  const raw = source.metadata?.annotations?.[MIRROR_TO] ?? '';
  const own = source.metadata?.namespace;
  return [...new Set(raw.split(',').map((s) => s.trim()))].filter((ns) => ns !== '' && ns !== own).sort();
}
