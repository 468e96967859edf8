// pod-template-hash, as kube-controller-manager 1.37 computes it (controller.ComputeHash, used by the Deployment
// controller for its ReplicaSets and by the DaemonSet controller for its ControllerRevisions): FNV-32a over
// spew's `%#v` rendering of the Go PodTemplateSpec (k8s.io/utils dump.ForHash: SortKeys, DisableMethods),
// then the collisionCount as 8 little-endian bytes, the decimal sum rendered with rand.SafeEncodeString.
//
// The rendering prints every Go field in declaration order with its Go type name, zero values included,
// so we walk the Go type table generated from k8s.io/api v0.37.2 (go-types.ts beside this file,
// written by infra/codegen) over the JSON the apiserver
// sent. JSON→Go follows what the controller sees after protobuf decoding: empty lists and maps are nil,
// absent pointers nil, quantities parsed as ParseQuantity does (go-quantity.ts). Known gap: a non-null
// timestamp inside the template's metadata (never set by clients in practice) is printed as UTC, whereas
// the controller's decoder uses its local zone; see the golden test for what is covered.
import type { PodTemplateSpec } from '../../kube/api/objects.js';
import type { GoType } from './go-type.js';
import { GO_ROOT, GO_TYPES } from './go-types.js';
import { parseGoQuantity, spewQuantity } from './go-quantity.js';
import { fnv32a, safeEncodeString } from './hash-encoding.js';

const UNIX_TO_GO_SECONDS = 62135596800n;

export function computeHash(template: PodTemplateSpec, collisionCount?: number): string {
  const bytes = [...Buffer.from(dumpForHash(template), 'utf8')];
  if (collisionCount !== undefined) {
    const c = collisionCount >>> 0;
    bytes.push(c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, (c >>> 24) & 0xff, 0, 0, 0, 0);
  }
  return safeEncodeString(String(fnv32a(bytes)));
}

/** dump.ForHash(template): spew's one-line %#v. Exported for tests (compared with the Go printer's output). */
export function dumpForHash(template: PodTemplateSpec): string {
  return render(template, GO_ROOT, false);
}

function typeOf(id: string): GoType {
  const t = GO_TYPES[id];
  if (!t) throw new Error(`pod-template-hash: no Go type ${id} in common/go-types.ts`);
  return t;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

/** spew formatState.format / formatPtr for one value; `ignoreType` is spew's ignoreNextType. */
function render(value: unknown, id: string, ignoreType: boolean): string {
  const t = typeOf(id);
  if (t.kind === 'ptr') {
    const nil = value === undefined || value === null;
    if (nil && ignoreType) return '<nil>';
    const prefix = ignoreType ? '<*>' : `(${t.str})`;
    return nil ? `${prefix}<nil>` : prefix + render(value, t.elem ?? '', true);
  }
  const prefix = ignoreType ? '' : `(${t.str})`;
  return prefix + renderBody(value, t);
}

function renderBody(value: unknown, t: GoType): string {
  switch (t.kind) {
    case 'struct': {
      const obj = (value ?? {}) as Record<string, unknown>;
      const parts = (t.fields ?? []).map(([name, json, fieldType]) => {
        const v = json === ',inline' ? obj : obj[json];
        return `${name}:${render(v, fieldType, false)}`;
      });
      return `{${parts.join(' ')}}`;
    }
    case 'slice': {
      if (isEmpty(value)) return '<nil>';
      const items = value as unknown[];
      return `[${items.map((item) => render(item, t.elem ?? '', true)).join(' ')}]`;
    }
    case 'map': {
      if (isEmpty(value)) return '<nil>';
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const parts = keys.map((k) => `${render(k, t.key ?? '', true)}:${render(obj[k], t.elem ?? '', true)}`);
      return `map[${parts.join(' ')}]`;
    }
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'int':
    case 'uint':
      return typeof value === 'number' || typeof value === 'bigint' ? String(value) : '0';
    case 'bool':
      return value === true ? 'true' : 'false';
    case 'custom':
      return renderCustom(value, t);
    default:
      throw new Error(`pod-template-hash: cannot print Go kind ${t.kind as string}`);
  }
}

function renderCustom(value: unknown, t: GoType): string {
  switch (t.str) {
    case 'resource.Quantity': {
      const q = parseGoQuantity(typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '');
      return q ? spewQuantity(q) : spewQuantity({ kind: 'int', value: 0n, scale: 0, s: '', format: 'DecimalSI' });
    }
    case 'intstr.IntOrString': {
      const isString = typeof value === 'string';
      const intVal = typeof value === 'number' ? value : 0;
      return `{Type:(intstr.Type)${isString ? 1 : 0} IntVal:(int32)${intVal} StrVal:(string)${isString ? value : ''}}`;
    }
    case 'v1.Time': {
      const ms = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) return '{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}';
      const seconds = BigInt(Math.floor(ms / 1000));
      return `{Time:(time.Time){wall:(uint64)0 ext:(int64)${seconds + UNIX_TO_GO_SECONDS} loc:(*time.Location)<nil>}}`;
    }
    case 'v1.FieldsV1':
      return `{Raw:([]uint8)${isEmpty(value) ? '<nil>' : `[${[...Buffer.from(JSON.stringify(value))].join(' ')}]`}}`;
    default:
      throw new Error(`pod-template-hash: no printer for Go type ${t.str}`);
  }
}
