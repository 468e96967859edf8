// Trims an object from a cluster to what the controllers read, BEFORE the forwarder holds it anywhere (watch
// buffer, workload index, previous state, cache, event log): one tenant's large annotations must not cost every
// cluster of a forwarder its memory. Dropped: metadata.managedFields (an update that omits them keeps them), the
// known-large annotations nothing reads (kubectl's last-applied-configuration), and any other annotation whose
// value is over the per-value cap or that pushes the object's annotations past the per-object total (largest
// first). Annotations under the prefixes the controllers read are always kept whole (they are small, and the
// planners parse them). Pure: the input is not changed; an object with nothing to trim is returned as is.
import { withDroppedAnnotations } from '../kube/meta/dropped-annotations.js';
import type { KubeObject } from '../kube/meta/object.js';

export type TrimLimits = {
  /** One annotation value (not a kept one) larger than this is dropped; default 16 KiB. */
  readonly maxAnnotationBytes: number;
  /** The annotations of one object, in total, at most; the largest droppable ones go first; default 64 KiB. */
  readonly maxAnnotationsBytes: number;
};

export const DEFAULT_TRIM_LIMITS: TrimLimits = { maxAnnotationBytes: 16 * 1024, maxAnnotationsBytes: 64 * 1024 };

/** Annotation key prefixes the controllers read or write: never dropped. */
export const KEPT_ANNOTATION_PREFIXES = [
  'deployment.kubernetes.io/',
  'fleetq.dev/',
  'batch.kubernetes.io/',
  'apps.kubernetes.io/',
  'controller.kubernetes.io/',
  'statefulset.kubernetes.io/',
  'deprecated.daemonset.template.generation',
] as const;

/** Annotations known to be large and read by no controller: always dropped. */
export const DROPPED_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration'] as const;

export type Trimmed = {
  readonly object: KubeObject;
  /** Whether anything was dropped. */
  readonly trimmed: boolean;
  /** Approximate bytes dropped. */
  readonly droppedBytes: number;
};

export function isKeptAnnotation(key: string): boolean {
  return KEPT_ANNOTATION_PREFIXES.some((p) => key.startsWith(p));
}

export function trimForForwarder(object: KubeObject, limits: TrimLimits = DEFAULT_TRIM_LIMITS): Trimmed {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const hasManaged = 'managedFields' in metadata;
  const annotations = metadata.annotations;
  const kept = typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations);
  let droppedBytes = hasManaged ? approxBytes(metadata.managedFields) : 0;
  let nextAnnotations: Record<string, unknown> | undefined;
  const dropped = new Set<string>();
  if (kept) {
    const entries = Object.entries(annotations as Record<string, unknown>);
    const size = (k: string, v: unknown): number => k.length + (typeof v === 'string' ? v.length : approxBytes(v));
    const drop = dropped;
    for (const [k, v] of entries) {
      if (isKeptAnnotation(k)) continue;
      if ((DROPPED_ANNOTATIONS as readonly string[]).includes(k) || size(k, v) > limits.maxAnnotationBytes) drop.add(k);
    }
    let total = entries.reduce((n, [k, v]) => n + (drop.has(k) ? 0 : size(k, v)), 0);
    if (total > limits.maxAnnotationsBytes) {
      const droppable = entries
        .filter(([k]) => !drop.has(k) && !isKeptAnnotation(k))
        .sort((a, b) => size(b[0], b[1]) - size(a[0], a[1]));
      for (const [k, v] of droppable) {
        if (total <= limits.maxAnnotationsBytes) break;
        drop.add(k);
        total -= size(k, v);
      }
    }
    if (drop.size > 0) {
      nextAnnotations = {};
      for (const [k, v] of entries) {
        if (drop.has(k)) droppedBytes += size(k, v);
        else nextAnnotations[k] = v;
      }
    }
  }
  if (!hasManaged && nextAnnotations === undefined) return { object, trimmed: false, droppedBytes: 0 };
  const { managedFields: _managed, ...rest } = metadata;
  // The dropped keys go with the object, so that a write of it puts them back (kube/meta/dropped-annotations.ts).
  const nextMetadata =
    nextAnnotations === undefined
      ? rest
      : withDroppedAnnotations({ ...rest, annotations: nextAnnotations }, [...dropped]);
  return { object: { ...object, metadata: nextMetadata } as KubeObject, trimmed: true, droppedBytes };
}

/**
 * About how many bytes a parsed JSON value takes as JSON (strings by length, numbers 8, structure 2 per member):
 * cheap (a 1 MiB string costs one read of its length), for bounds, not accounting. Stops counting past `cap`.
 */
export function approxBytes(value: unknown, cap = Number.MAX_SAFE_INTEGER): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= cap) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean') total += 8;
    else if (v === null || v === undefined) total += 4;
    else if (Array.isArray(v)) {
      total += 2;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        total += k.length + 4;
        stack.push(item);
      }
    }
  }
  return total;
}
