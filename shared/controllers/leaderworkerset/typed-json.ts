// The LeaderWorkerSet's leaderWorkerTemplate and networkConfig as the lws controller re-encodes them: it decodes the
// apiserver's JSON into Go types (api/leaderworkerset/v1, k8s.io/api v0.36) and encoding/json marshals them back
// (revision.getPatch hashes that). Decoding drops unknown fields; marshalling omits empty omitempty fields (zero
// scalars, nil or empty slices and maps, nil pointers) and always writes struct-valued fields, so a container
// without resources gets `"resources":{}` and a template without metadata `"metadata":{}`. The pod template is
// walked with the k8s.io/api type table of common/go-types.ts; the LWS types are spelled out below.
//
// Fields without omitempty (go-not-omitted.ts) are written even when zero or nil, and quantities in Go's canonical
// form ("0.5" → "500m"). Known gap (the bytes then differ from upstream's, so the revision key does; revision
// equality does not depend on it, see revision.ts): a quantity written as a JSON number is read from JavaScript's
// number (1e3 arrives as 1000).
import type { GoType } from '../common/go-type.js';
import { GO_ROOT, GO_TYPES } from '../common/go-types.js';
import { NOT_OMITTED } from './go-not-omitted.js';
import { goQuantityText } from '../common/go-quantity-text.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

const OBJECT_META = 'k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta';
const PVC_SPEC = 'k8s.io/api/core/v1.PersistentVolumeClaimSpec';
const QUANTITY = 'k8s.io/apimachinery/pkg/api/resource.Quantity';
const INT_OR_STRING = 'k8s.io/apimachinery/pkg/util/intstr.IntOrString';

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's encoding of a value of Go type `id`, or undefined when omitempty leaves it out. */
function encode(value: Json, id: string): Json {
  const t: GoType | undefined = GO_TYPES[id];
  if (t === undefined) return value === null ? undefined : value;
  switch (t.kind) {
    case 'struct':
      return encodeStruct(isObject(value) ? value : {}, id, t);
    case 'ptr':
      if (value === null || value === undefined) return undefined;
      return encodePresent(value, t.elem ?? '');
    case 'slice': {
      if (!Array.isArray(value) || value.length === 0) return undefined;
      return value.map((v) => encodePresent(v, t.elem ?? ''));
    }
    case 'map': {
      if (!isObject(value) || Object.keys(value).length === 0) return undefined;
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) out[k] = encodePresent(v, t.elem ?? '');
      return out;
    }
    case 'string':
      return typeof value === 'string' && value !== '' ? value : undefined;
    case 'int':
    case 'uint':
      return typeof value === 'number' && value !== 0 ? value : undefined;
    case 'bool':
      return value === true ? true : undefined;
    case 'custom':
      if (id === QUANTITY && (typeof value === 'string' || typeof value === 'number')) return quantityText(value);
      if (value !== null && value !== undefined) return value;
      // A zero Quantity is written "0" and a zero IntOrString 0 (structs: omitempty does not drop them); a zero
      // metav1.Time is null and omitzero drops it.
      if (id === QUANTITY) return '0';
      if (id === INT_OR_STRING) return 0;
      return undefined;
  }
}

/** A value that is there (a pointer's target, a slice or map element): written even when zero. */
function encodePresent(value: Json, id: string): Json {
  const t = GO_TYPES[id];
  if (t === undefined) return value;
  switch (t.kind) {
    case 'struct':
    case 'ptr':
    case 'slice':
    case 'map':
      return encode(value, id) ?? zeroOf(t);
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'int':
    case 'uint':
      return typeof value === 'number' ? value : 0;
    case 'bool':
      return value === true;
    case 'custom':
      return id === QUANTITY && (typeof value === 'string' || typeof value === 'number') ? quantityText(value) : value;
  }
}

/** A quantity as Quantity.MarshalJSON writes it after decoding (common/go-quantity-text.ts). */
const quantityText = goQuantityText;

/** A field without omitempty: written even when zero ("", 0, false), nil (null) or empty ([] or {}). */
function encodeNotOmitted(value: Json, id: string): Json {
  const t = GO_TYPES[id];
  if (t === undefined) return value ?? null;
  switch (t.kind) {
    case 'slice':
      return Array.isArray(value) ? value.map((v) => encodePresent(v, t.elem ?? '')) : null;
    case 'map':
      return isObject(value) ? encodePresent(value, id) : null;
    case 'ptr':
      return value === null || value === undefined ? null : encodePresent(value, t.elem ?? '');
    default:
      return encodePresent(value, id);
  }
}

/** A nil slice, map or pointer element is written as null; an empty one as [] or {}. */
function zeroOf(t: GoType): Json {
  return t.kind === 'struct' ? {} : null;
}

function encodeStruct(value: JsonObject, id: string, t: GoType): JsonObject {
  const out: JsonObject = {};
  for (const [, jsonName, fieldType] of t.fields ?? []) {
    if (jsonName === ',inline') {
      Object.assign(out, encode(value, fieldType));
      continue;
    }
    const v = value[jsonName];
    const encoded =
      NOT_OMITTED[id]?.includes(jsonName) === true ? encodeNotOmitted(v, fieldType) : encode(v, fieldType);
    if (encoded !== undefined) out[jsonName] = encoded;
  }
  return out;
}

/** A corev1.PodTemplateSpec as Go writes it. */
export function typedPodTemplate(template: Json): JsonObject {
  return encode(template ?? {}, GO_ROOT) as JsonObject;
}

/** A corev1.PersistentVolumeClaim (a volumeClaimTemplate): metadata, spec and status are always written. */
function typedClaim(claim: Json): JsonObject {
  const c = isObject(claim) ? claim : {};
  const out: JsonObject = {};
  for (const key of ['apiVersion', 'kind'] as const) {
    if (typeof c[key] === 'string' && c[key] !== '') out[key] = c[key];
  }
  out.metadata = encode(c.metadata, OBJECT_META);
  out.spec = encode(c.spec, PVC_SPEC);
  // PersistentVolumeClaimStatus is not in the pod template's type table: a template's status is kept as written.
  out.status = isObject(c.status) ? c.status : {};
  return out;
}

const nonEmptyString = (v: Json): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const pointer = (v: Json): Json => (v === null ? undefined : v);

function withoutUndefined(o: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** leaderworkerset.LeaderWorkerTemplate as Go writes it. */
export function typedLeaderWorkerTemplate(template: Json): JsonObject {
  const t = isObject(template) ? template : {};
  const subGroup = isObject(t.subGroupPolicy) ? t.subGroupPolicy : undefined;
  const retention = isObject(t.persistentVolumeClaimRetentionPolicy)
    ? t.persistentVolumeClaimRetentionPolicy
    : undefined;
  const claims = Array.isArray(t.volumeClaimTemplates) ? t.volumeClaimTemplates : [];
  return withoutUndefined({
    leaderTemplate: isObject(t.leaderTemplate) ? typedPodTemplate(t.leaderTemplate) : undefined,
    workerTemplate: typedPodTemplate(t.workerTemplate),
    size: pointer(t.size),
    restartPolicy: nonEmptyString(t.restartPolicy),
    subGroupPolicy:
      subGroup === undefined
        ? undefined
        : withoutUndefined({
            subGroupPolicyType: pointer(subGroup.subGroupPolicyType),
            subGroupSize: pointer(subGroup.subGroupSize),
          }),
    volumeClaimTemplates: claims.length > 0 ? claims.map(typedClaim) : undefined,
    persistentVolumeClaimRetentionPolicy:
      retention === undefined
        ? undefined
        : withoutUndefined({
            whenDeleted: nonEmptyString(retention.whenDeleted),
            whenScaled: nonEmptyString(retention.whenScaled),
          }),
  });
}

/** leaderworkerset.NetworkConfig as Go writes it: subdomainPolicy has no omitempty (nil is null). */
export function typedNetworkConfig(networkConfig: Json): JsonObject {
  const n = isObject(networkConfig) ? networkConfig : {};
  return { subdomainPolicy: n.subdomainPolicy ?? null };
}
