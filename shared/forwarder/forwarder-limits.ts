// The forwarder's memory bounds, from the environment (every one has a default; a bad value is refused with
// the variable's name). One tenant's objects may be huge: what a forwarder holds of a cluster is bounded in
// bytes, not only in objects or events.
//   FLEETQ_FORWARDER_MAX_ANNOTATION_BYTES   one annotation value (not one the controllers read)   16 KiB
//   FLEETQ_FORWARDER_MAX_ANNOTATIONS_BYTES  an object's annotations in total                      64 KiB
//   FLEETQ_FORWARDER_MAX_OBJECT_BYTES       one watched object after trimming (else metadata only)  2 MiB
//   FLEETQ_FORWARDER_MAX_PENDING_BYTES      a watch's buffer of unhandled events                   32 MiB
//   FLEETQ_FORWARDER_MAX_PAGE_BYTES         a list page (the page limit adapts to object sizes)     8 MiB
//   FLEETQ_MAX_CONCURRENT_RELISTS           lists running at once in the process (relist-slots.ts)  2
import { DEFAULT_TRIM_LIMITS, type TrimLimits } from './object-trim.js';
import { DEFAULT_MAX_OBJECT_BYTES, DEFAULT_MAX_PENDING_BYTES } from './resource-watcher.js';
import { DEFAULT_MAX_PAGE_BYTES } from './resources.js';

export type ForwarderLimits = {
  readonly trim: TrimLimits;
  readonly maxObjectBytes: number;
  readonly maxPendingBytes: number;
  readonly maxPageBytes: number;
};

function bytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive number of bytes (got ${raw})`);
  return n;
}

export function forwarderLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ForwarderLimits {
  return {
    trim: {
      maxAnnotationBytes: bytes(env, 'FLEETQ_FORWARDER_MAX_ANNOTATION_BYTES', DEFAULT_TRIM_LIMITS.maxAnnotationBytes),
      maxAnnotationsBytes: bytes(
        env,
        'FLEETQ_FORWARDER_MAX_ANNOTATIONS_BYTES',
        DEFAULT_TRIM_LIMITS.maxAnnotationsBytes,
      ),
    },
    maxObjectBytes: bytes(env, 'FLEETQ_FORWARDER_MAX_OBJECT_BYTES', DEFAULT_MAX_OBJECT_BYTES),
    maxPendingBytes: bytes(env, 'FLEETQ_FORWARDER_MAX_PENDING_BYTES', DEFAULT_MAX_PENDING_BYTES),
    maxPageBytes: bytes(env, 'FLEETQ_FORWARDER_MAX_PAGE_BYTES', DEFAULT_MAX_PAGE_BYTES),
  };
}
