// What trimming took out of an object's annotations, kept on the trimmed copy so that a write of that copy
// does not take them out of the cluster too.
//
// The forwarder and the cache drop annotations no controller reads (kubectl's last-applied-configuration, and a
// tenant's oversized ones) before they hold an object. A planner's update or status write sends the whole object
// it observed back with PUT, and a PUT replaces metadata.annotations (a status PUT too: the apiserver resets only
// spec and labels there), so without this the first write fleetq made would delete them in the cluster. The
// dropped keys ride in `metadata.fleetqDroppedAnnotations` (a field the apiserver never sees: the writer takes
// it out of every body), and the writer puts their values back from a live read before such a PUT
// (writer.ts `restoreDroppedAnnotations`).
export const DROPPED_ANNOTATIONS_FIELD = 'fleetqDroppedAnnotations';

type Meta = Record<string, unknown>;

/** The annotation keys trimming dropped from this object (none for an untrimmed or live-read object). */
export function droppedAnnotationsOf(object: { readonly metadata?: unknown }): string[] {
  const metadata = object.metadata as Meta | undefined;
  const keys = metadata?.[DROPPED_ANNOTATIONS_FIELD];
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
}

/** metadata with `dropped` added to the keys it already records as dropped (a new object; the input is kept). */
export function withDroppedAnnotations(metadata: Meta, dropped: readonly string[]): Meta {
  if (dropped.length === 0) return metadata;
  const before = droppedAnnotationsOf({ metadata });
  const keys = [...new Set([...before, ...dropped])].sort();
  return { ...metadata, [DROPPED_ANNOTATIONS_FIELD]: keys };
}

/** The object as the apiserver may see it: without the marker (the same object when it has none). */
export function withoutDroppedMarker<T extends { readonly metadata?: unknown }>(object: T): T {
  const metadata = object.metadata as Meta | undefined;
  if (metadata === undefined || !(DROPPED_ANNOTATIONS_FIELD in metadata)) return object;
  const { [DROPPED_ANNOTATIONS_FIELD]: _marker, ...rest } = metadata;
  return { ...object, metadata: rest };
}

/**
 * `object` with the dropped annotations put back from `live`, when `live` is the same version of it (same
 * resourceVersion): a key the planner set itself is kept as the planner set it. A different version is left
 * alone: the PUT's resourceVersion precondition refuses it (409) and the key is read again.
 */
export function restoredFrom<T extends { readonly metadata?: unknown }>(
  object: T,
  live: { readonly metadata?: unknown },
): T {
  const dropped = droppedAnnotationsOf(object);
  const clean = withoutDroppedMarker(object);
  const meta = (clean.metadata ?? {}) as Meta;
  const liveMeta = (live.metadata ?? {}) as Meta;
  if (dropped.length === 0 || liveMeta.resourceVersion !== meta.resourceVersion) return clean;
  const liveAnnotations = (liveMeta.annotations ?? {}) as Record<string, unknown>;
  const annotations = { ...((meta.annotations ?? {}) as Record<string, unknown>) };
  let restored = 0;
  for (const key of dropped) {
    if (key in annotations || typeof liveAnnotations[key] !== 'string') continue;
    annotations[key] = liveAnnotations[key];
    restored++;
  }
  return restored === 0 ? clean : { ...clean, metadata: { ...meta, annotations } };
}
