// What upstream's LeaderWorkerSet mutating webhook changes besides its defaults, in values that are not empty:
// when Default() changed anything, controller-runtime answers with the patch from the request's JSON to Go's
// re-encoding of the whole object (when it changed nothing, with no patch), so
// every resource.Quantity in the pod templates and volume claim templates is stored in Go's canonical form
// ("1000m" → "1", "0.5Gi" → "512Mi", 2 → "2"), and a resourceFieldRef without a divisor gets divisor "0" (a
// struct-typed field, which omitempty never omits). Empty fields Go also writes (`resources: {}`, `status: {}`)
// are not repeated: they change no value. The LWS controller hashes templates as Go encodes them, so a stored
// template equal to upstream's keeps revision keys equal.
//
// Quantities are canonicalized as apimachinery's Quantity.MarshalJSON does (v0.36: CanonicalizeBytes), from the
// internal form parseGoQuantity reproduces (controllers/common/go-quantity-text.ts, which the LWS controller's
// typed encoding uses too). A quantity written as a JSON number is read from JavaScript's number
// (1e3 arrives as 1000, so it is written "1k" where Go, reading the text, writes "1e3").
import { GO_ROOT, GO_TYPES } from '../controllers/common/go-types.js';
import { parseGoQuantity } from '../controllers/common/go-quantity.js';
import { quantityJsonText } from '../controllers/common/go-quantity-text.js';
import type { JsonPatchOp } from './jobset-defaults.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const QUANTITY = 'k8s.io/apimachinery/pkg/api/resource.Quantity';
const PVC_SPEC = 'k8s.io/api/core/v1.PersistentVolumeClaimSpec';

const pointer = (segments: (string | number)[]) =>
  segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

type Found = { patch: JsonPatchOp[]; errors: string[] };
/** resource.ErrFormatWrong: what Go's decoding of the object answers for a quantity it cannot parse. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** One quantity as written: its canonical text, or an error where Go could not decode it. */
function quantity(value: unknown, segments: (string | number)[], found: Found): void {
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;
  const q = text === undefined ? null : parseGoQuantity(text);
  if (q === null) {
    found.errors.push(QUANTITY_FORMAT_ERROR);
    return;
  }
  const canonical = quantityJsonText(q);
  if (canonical !== value) found.patch.push({ op: 'replace', path: pointer(segments), value: canonical });
}

/** Walks `value` of Go type `id` (go-types.ts), collecting the quantities' patches. */
function walk(value: unknown, id: string, segments: (string | number)[], found: Found): void {
  if (value === undefined || value === null) return;
  if (id === QUANTITY) return quantity(value, segments, found);
  const t = GO_TYPES[id];
  if (t === undefined) return;
  switch (t.kind) {
    case 'ptr':
      return walk(value, t.elem ?? '', segments, found);
    case 'slice':
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, t.elem ?? '', [...segments, i], found));
      return;
    case 'map':
      if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, t.elem ?? '', [...segments, k], found);
      return;
    case 'struct':
      if (!isObject(value)) return;
      for (const [, jsonName, fieldType] of t.fields ?? []) {
        if (jsonName === ',inline') {
          walk(value, fieldType, segments, found);
        } else if (fieldType === QUANTITY && (value[jsonName] === undefined || value[jsonName] === null)) {
          // A struct-typed Quantity field: Go writes its zero value.
          found.patch.push({
            op: value[jsonName] === undefined ? 'add' : 'replace',
            path: pointer([...segments, jsonName]),
            value: '0',
          });
        } else {
          walk(value[jsonName], fieldType, [...segments, jsonName], found);
        }
      }
      return;
    default:
      return;
  }
}

/**
 * The replace/add ops that give a LeaderWorkerSet's templates Go's quantity encoding, and the quantities Go could
 * not decode (then upstream answers 400).
 */
export function goQuantityEncoding(lws: unknown): Found {
  const found: Found = { patch: [], errors: [] };
  const spec = isObject(lws) && isObject(lws.spec) ? lws.spec : {};
  const template = isObject(spec.leaderWorkerTemplate) ? spec.leaderWorkerTemplate : {};
  const base = ['spec', 'leaderWorkerTemplate'];
  walk(template.leaderTemplate, GO_ROOT, [...base, 'leaderTemplate'], found);
  walk(template.workerTemplate, GO_ROOT, [...base, 'workerTemplate'], found);
  const claims = Array.isArray(template.volumeClaimTemplates) ? template.volumeClaimTemplates : [];
  claims.forEach((claim, i) => {
    if (!isObject(claim)) return;
    const claimAt = [...base, 'volumeClaimTemplates', i];
    walk(claim.spec, PVC_SPEC, [...claimAt, 'spec'], found);
    // PersistentVolumeClaimStatus (not in the pod template's type table): its two quantity maps.
    const status = isObject(claim.status) ? claim.status : {};
    for (const field of ['capacity', 'allocatedResources']) {
      const m = status[field];
      if (isObject(m))
        for (const [k, v] of Object.entries(m)) if (v !== null) quantity(v, [...claimAt, 'status', field, k], found);
    }
  });
  return found;
}

/** Go's decoding error for a pod (or pod template) whose quantities it cannot parse, or undefined. */
export function podQuantityError(pod: unknown): string | undefined {
  const found: Found = { patch: [], errors: [] };
  walk(pod, GO_ROOT, [], found);
  return found.errors[0];
}
