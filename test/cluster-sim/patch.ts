// The patch types the simulated apiserver applies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
// strategic merge patch as far as fleetq sends it. Strategic merge here: maps merge recursively, null deletes a
// field, `$patch: replace` on a map replaces it, `$patch: delete` on a map removes it; a list whose items have a
// merge key (the ones below: ownerReferences by uid, containers by name, conditions by type, …) merges item by
// item, `{$patch: delete, <key>: …}` removing one; every other list is replaced, as for a list without
// patchStrategy=merge. Not supported: `$retainKeys`, `$setElementOrder`, `$deleteFromPrimitiveList` (fleetq
// sends none of them; a patch that carries one is refused with 400 by the server).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export class PatchError extends Error {
  override name = 'PatchError';
}

/** The merge key of a list field in strategic merge patch, by field name (apimachinery's patchMergeKey tags). */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  ownerReferences: 'uid',
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumes: 'name',
  volumeMounts: 'mountPath',
  conditions: 'type',
  tolerations: 'key',
  imagePullSecrets: 'name',
};

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export function strategicMergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  for (const k of Object.keys(patch)) {
    if (k.startsWith('$') && k !== '$patch') throw new PatchError(`strategic merge directive ${k} is not supported`);
  }
  if (patch.$patch === 'replace') {
    const { $patch: _replace, ...rest } = patch;
    return rest;
  }
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch') continue;
    if (v === null) {
      delete out[k];
    } else if (isObject(v) && v.$patch === 'delete') {
      delete out[k];
    } else if (Array.isArray(v) && MERGE_KEYS[k] !== undefined && Array.isArray(out[k])) {
      out[k] = mergeList(out[k] as Json[], v, MERGE_KEYS[k]);
    } else if (Array.isArray(v)) {
      out[k] = v.filter((item) => !(isObject(item) && item.$patch === 'delete'));
    } else {
      out[k] = strategicMergePatch(out[k], v);
    }
  }
  return out;
}

function mergeList(current: Json[], patch: Json[], key: string): Json[] {
  const out = [...current];
  for (const item of patch) {
    if (!isObject(item)) throw new PatchError(`a list merged by ${key} holds objects only`);
    const at = out.findIndex((x) => isObject(x) && x[key] === item[key]);
    if (item.$patch === 'delete') {
      if (at !== -1) out.splice(at, 1);
    } else if (at === -1) {
      out.push(strategicMergePatch({}, item));
    } else {
      out[at] = strategicMergePatch(out[at], item);
    }
  }
  return out;
}

type Operation = { op: string; path: string; value?: Json; from?: string };

/** RFC 6902: add, remove, replace, test (move and copy too); throws PatchError for a failing op. */
export function jsonPatch(target: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw new PatchError('a JSON patch is an array of operations');
  let doc: Json = structuredClone(target);
  for (const raw of ops as Operation[]) {
    if (!isObject(raw as unknown) || typeof raw.path !== 'string') throw new PatchError('bad JSON patch operation');
    const path = pointer(raw.path);
    switch (raw.op) {
      case 'add':
        doc = put(doc, path, raw.value ?? null, 'add');
        break;
      case 'replace':
        get(doc, path);
        doc = put(doc, path, raw.value ?? null, 'replace');
        break;
      case 'remove':
        get(doc, path);
        doc = put(doc, path, undefined, 'remove');
        break;
      case 'test':
        if (JSON.stringify(get(doc, path)) !== JSON.stringify(raw.value))
          throw new PatchError(`test failed at ${raw.path}`);
        break;
      case 'copy':
      case 'move': {
        const from = pointer(raw.from ?? '');
        const value = structuredClone(get(doc, from));
        if (raw.op === 'move') doc = put(doc, from, undefined, 'remove');
        doc = put(doc, path, value, 'add');
        break;
      }
      default:
        throw new PatchError(`unknown JSON patch op ${String(raw.op)}`);
    }
  }
  return doc;
}

function pointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`bad JSON pointer ${p}`);
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(doc: Json, path: string[]): Json {
  let at: Json = doc;
  for (const seg of path) {
    if (Array.isArray(at)) at = at[Number(seg)] as Json;
    else if (isObject(at) && seg in at) at = at[seg] as Json;
    else throw new PatchError(`no value at /${path.join('/')}`);
    if (at === undefined) throw new PatchError(`no value at /${path.join('/')}`);
  }
  return at;
}

function put(doc: Json, path: string[], value: Json | undefined, op: 'add' | 'replace' | 'remove'): Json {
  if (path.length === 0) {
    if (value === undefined) throw new PatchError('cannot remove the whole document');
    return value;
  }
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1] as string;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new PatchError(`bad array index ${last}`);
    if (op === 'add') parent.splice(i, 0, value as Json);
    else if (op === 'replace') parent[i] = value as Json;
    else parent.splice(i, 1);
  } else if (isObject(parent)) {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  } else {
    throw new PatchError(`cannot ${op} under a scalar at /${path.join('/')}`);
  }
  return doc;
}
