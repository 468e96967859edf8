// apimachinery's ValidateObjectMeta(meta, true, NameIsDNS1035Label, "metadata") (api/validation/objectmeta.go,
// v0.36), as LeaderWorkerSet's webhook calls it, with its exact messages: name and generateName as DNS-1035 labels,
// namespace as a DNS-1123 label, generation, labels, annotations, ownerReferences and finalizers. managedFields is
// not checked: the API server's own metadata validation refuses it (as every other error here but the DNS-1035
// name) before a validating webhook is called.
import type { FieldError } from './field-errors.js';
import { invalid, required, tooLong } from './field-errors.js';
import {
  byteLength,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidLabelValue,
  regexError,
} from './names.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

const LABEL_KEY = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyRe = new RegExp(`^${LABEL_KEY}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** content.IsLabelKey (IsQualifiedName). */
function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix, 'bytes').map((m) => `prefix part ${m}`));
  } else {
    return [
      'a valid label key ' +
        regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push('name part must be no more than 63 bytes');
  if (!labelKeyRe.test(name))
    errs.push('name part ' + regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc'));
  return errs;
}

/** apivalidation.NameIsDNS1035Label: a generateName prefix may end in a dash (maskTrailingDash, as upstream). */
function nameIsDNS1035Label(name: string, prefix: boolean): string[] {
  if (prefix && name.length > 1 && name.endsWith('-')) name = name.slice(0, name.length - 2) + 'a';
  return isDNS1035Label(name);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const stringMap = (v: unknown): [string, string][] =>
  isObject(v) ? Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : '']) : [];

/** apivalidation.ValidateObjectMeta(meta, true, NameIsDNS1035Label, "metadata"), the parts a webhook can see fail. */
export function validateObjectMeta(meta: Json): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName !== '') {
    for (const m of nameIsDNS1035Label(generateName, true))
      errs.push(invalid('metadata.generateName', generateName, m));
  }
  const name = str(meta.name);
  if (name === '') errs.push(required('metadata.name', 'name or generateName is required'));
  else for (const m of nameIsDNS1035Label(name, false)) errs.push(invalid('metadata.name', name, m));
  const namespace = str(meta.namespace);
  if (namespace === '') errs.push(required('metadata.namespace'));
  else for (const m of isDNS1123Label(namespace)) errs.push(invalid('metadata.namespace', namespace, m));
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  for (const [k, v] of stringMap(meta.labels)) {
    for (const m of isQualifiedName(k)) errs.push(invalid('metadata.labels', k, m));
    for (const m of isValidLabelValue(v)) errs.push(invalid('metadata.labels', v, m));
  }
  const annotations = stringMap(meta.annotations);
  for (const [k] of annotations) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid('metadata.annotations', k, m));
  }
  const size = annotations.reduce((n, [k, v]) => n + byteLength(k) + byteLength(v), 0);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong('metadata.annotations', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  errs.push(...validateOwnerReferences(Array.isArray(meta.ownerReferences) ? meta.ownerReferences : []));
  errs.push(...validateFinalizers(Array.isArray(meta.finalizers) ? meta.finalizers : []));
  return errs;
}

/** An OwnerReference as Go encodes it (the refused value of two checks). */
function goOwnerReference(ref: Json): Json {
  const out: Json = { apiVersion: str(ref.apiVersion), kind: str(ref.kind), name: str(ref.name), uid: str(ref.uid) };
  if (typeof ref.controller === 'boolean') out.controller = ref.controller;
  if (typeof ref.blockOwnerDeletion === 'boolean') out.blockOwnerDeletion = ref.blockOwnerDeletion;
  return out;
}

/** ValidateOwnerReferences: the paths carry no index, as upstream's do. */
function validateOwnerReferences(refs: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const at = 'metadata.ownerReferences';
  let firstController = '';
  for (const raw of refs) {
    const ref = obj(raw) ?? {};
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    // schema.FromAPIVersionAndKind: "group/version", "version", or (more slashes) no group or version.
    const slashes = apiVersion.split('/').length - 1;
    const [group, version] =
      apiVersion === '' || apiVersion === '/'
        ? ['', '']
        : slashes === 0
          ? ['', apiVersion]
          : slashes === 1
            ? [apiVersion.slice(0, apiVersion.indexOf('/')), apiVersion.slice(apiVersion.indexOf('/') + 1)]
            : ['', ''];
    if (version === '') errs.push(invalid(`${at}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(invalid(`${at}.kind`, kind, 'must not be empty'));
    if (str(ref.name) === '') errs.push(invalid(`${at}.name`, str(ref.name), 'must not be empty'));
    if (str(ref.uid) === '') errs.push(invalid(`${at}.uid`, str(ref.uid), 'must not be empty'));
    if (group === '' && version === 'v1' && kind === 'Event') {
      errs.push(invalid(at, goOwnerReference(ref), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const name = `${kind}/${str(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          invalid(
            at,
            refs.map((r) => goOwnerReference(obj(r) ?? {})),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
      } else {
        firstController = name;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
function validateFinalizers(finalizers: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const names = finalizers.map(str);
  for (const f of names) for (const m of isQualifiedName(f)) errs.push(invalid('metadata.finalizers', f, m));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    errs.push(invalid('metadata.finalizers', names, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}
