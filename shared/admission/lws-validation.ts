// LeaderWorkerSet's admission checks, as lws v0.9.0's webhook makes them (pkg/webhooks/leaderworkerset_webhook.go:
// ValidateCreate, ValidateUpdate and generalValidate), with upstream's field paths, values and messages.
//
// Upstream returns the field errors' aggregate as a plain error, so controller-runtime answers it as a denial
// (code 403, reason Forbidden) whose message is the aggregate itself, without the `<Kind> "<name>" is invalid:`
// prefix JobSet's answers carry. Upstream also dereferences fields the CRD's schema defaults always set (size,
// replicas, rollingUpdateConfiguration and its partition, subGroupSize): an object without one makes Go panic,
// which controller-runtime answers with code 500 and the panic's text. `panic` says so here.
//
// Metadata: upstream calls apimachinery's ValidateObjectMeta with a DNS-1035 name check (lws-object-meta.ts).
import type { FieldError } from './field-errors.js';
import { invalid } from './field-errors.js';
import { validateObjectMeta } from './lws-object-meta.js';
import { regexError } from './names.js';
import { SUBGROUP_EXCLUSIVE_KEY_ANNOTATION, SubGroupPolicyType } from '../controllers/leaderworkerset/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

const MAX_INT32 = 2147483647;

/** What controller-runtime answers when the webhook dereferences a nil pointer or divides by zero. */
export const NIL_POINTER_PANIC = 'panic: runtime error: invalid memory address or nil pointer dereference [recovered]';
export const DIVIDE_BY_ZERO_PANIC = 'panic: runtime error: integer divide by zero [recovered]';

export type LwsValidation = { errors: FieldError[] } | { panic: string };

class GoPanic extends Error {}

const PERCENT = '[0-9]+%';
const percentRe = new RegExp(`^${PERCENT}$`);

// --- int-or-percent (the parts of intstr and k8s apps validation upstream uses) ----------------------------------

/** An IntOrString as Go decoded it: a JSON string is a string, anything else (absent, null) an int. */
type IntOrString = number | string;
const intOrString = (v: unknown): IntOrString => (typeof v === 'string' ? v : typeof v === 'number' ? v : 0);

/** strconv.Atoi: an optional sign and decimal digits in int64's range; undefined where Go returns an error. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return Number(n);
}

/** IntOrString.IntValue(). */
const intValue = (v: IntOrString): number => (typeof v === 'number' ? v : (atoi(v) ?? 0));

function validateNonnegativeField(value: number, field: string): FieldError[] {
  return value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}

function validatePositiveIntOrPercent(v: IntOrString, field: string): FieldError[] {
  if (typeof v === 'string') {
    return percentRe.test(v)
      ? []
      : [
          invalid(
            field,
            v,
            regexError(
              "a valid percent string must be a numeric string followed by an ending '%'",
              PERCENT,
              '1%',
              '93%',
            ),
          ),
        ];
  }
  return validateNonnegativeField(intValue(v), field);
}

function isNotMoreThan100Percent(v: IntOrString, field: string): FieldError[] {
  if (typeof v !== 'string' || !percentRe.test(v)) return [];
  return Number(v.slice(0, -1)) > 100 ? [invalid(field, v, 'must not be greater than 100%')] : [];
}

/** intstr.GetScaledValueFromIntOrPercent: undefined where it returns an error (the value is then 0). */
function scaledValue(v: IntOrString, total: number, roundUp: boolean): number | undefined {
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) return undefined;
  const n = atoi(v.slice(0, -1));
  if (n === undefined) return undefined;
  const scaled = (n * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

// --- LeaderWorkerSet ---------------------------------------------------------------------------------------------

/** `*p` in Go: the value, or a nil-pointer panic. */
function deref<T>(v: T | null | undefined): T {
  if (v === undefined || v === null) throw new GoPanic(NIL_POINTER_PANIC);
  return v;
}
/** Go's int32 `a % b`: a panic when b is 0 (the sign follows a, as in JavaScript). */
function mod(a: number, b: number): number {
  if (b === 0) throw new GoPanic(DIVIDE_BY_ZERO_PANIC);
  return a % b;
}

const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

type LwsView = {
  meta: Json;
  annotations: Json;
  replicas?: number;
  size?: number;
  rollingUpdate?: Json;
  subGroupPolicy?: Json;
  networkConfig?: Json;
};
function view(lws: unknown): LwsView {
  const root = obj(lws) ?? {};
  const spec = obj(root.spec) ?? {};
  const template = obj(spec.leaderWorkerTemplate) ?? {};
  const meta = obj(root.metadata) ?? {};
  return {
    meta,
    annotations: obj(meta.annotations) ?? {},
    replicas: num(spec.replicas),
    size: num(template.size),
    rollingUpdate: obj(obj(spec.rolloutStrategy)?.rollingUpdateConfiguration),
    subGroupPolicy: obj(template.subGroupPolicy),
    networkConfig: obj(spec.networkConfig),
  };
}

const SUBGROUP_SIZE_PATH = 'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize';

function validateSubGroupPolicy(size: number, policy: Json): FieldError[] {
  const errs: FieldError[] = [];
  const subGroupSize = deref(num(policy.subGroupSize));
  if (subGroupSize < 1)
    errs.push(invalid(SUBGROUP_SIZE_PATH, subGroupSize, 'subGroupSize must be equal or greater than 1'));
  if (mod(size, subGroupSize) !== 0 && mod(size - 1, subGroupSize) !== 0) {
    errs.push(invalid(SUBGROUP_SIZE_PATH, subGroupSize, 'size or size - 1 must be divisible by subGroupSize'));
  }
  if (size < subGroupSize)
    errs.push(invalid(SUBGROUP_SIZE_PATH, subGroupSize, 'subGroupSize cannot be larger than size'));
  if (policy.subGroupPolicyType === SubGroupPolicyType.LeaderExcluded && mod(size - 1, subGroupSize) !== 0) {
    errs.push(
      invalid(SUBGROUP_SIZE_PATH, subGroupSize, 'size-1 must be divisible by subGroupSize when using LeaderExcluded'),
    );
  }
  return errs;
}

function generalValidate(lws: LwsView): FieldError[] {
  const errs = validateObjectMeta(lws.meta);
  if (lws.replicas !== undefined && lws.replicas < 0) {
    errs.push(invalid('spec.replicas', lws.replicas, 'replicas must be equal or greater than 0'));
  }
  const size = deref(lws.size);
  if (size < 1) errs.push(invalid('spec.leaderWorkerTemplate.size', size, 'size must be equal or greater than 1'));
  const replicas = deref(lws.replicas);
  if (replicas * size > MAX_INT32) {
    errs.push(
      invalid('spec.replicas', replicas, `the product of replicas and worker replicas must not exceed ${MAX_INT32}`),
    );
  }

  const rollingUpdate = deref(lws.rollingUpdate);
  const maxUnavailable = intOrString(rollingUpdate.maxUnavailable);
  const maxUnavailablePath = 'spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable';
  errs.push(...validatePositiveIntOrPercent(maxUnavailable, maxUnavailablePath));
  errs.push(...isNotMoreThan100Percent(maxUnavailable, maxUnavailablePath));
  const maxSurge = intOrString(rollingUpdate.maxSurge);
  const maxSurgePath = 'spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge';
  errs.push(...validatePositiveIntOrPercent(maxSurge, maxSurgePath));
  errs.push(...isNotMoreThan100Percent(maxSurge, maxSurgePath));
  const partition = deref(num(rollingUpdate.partition));
  errs.push(...validateNonnegativeField(partition, 'spec.rolloutStrategy.rollingUpdateConfiguration.partition'));

  const maxUnavailableValue = scaledValue(maxUnavailable, replicas, false);
  if (maxUnavailableValue === undefined) errs.push(invalid(maxUnavailablePath, maxUnavailable, 'invalid value'));
  const maxSurgeValue = scaledValue(maxSurge, replicas, true);
  if (maxSurgeValue === undefined) errs.push(invalid(maxSurgePath, maxSurge, 'invalid value'));
  if ((maxUnavailableValue ?? 0) === 0 && (maxSurgeValue ?? 0) === 0 && replicas !== 0) {
    errs.push(invalid(maxUnavailablePath, maxUnavailable, 'must not be 0 when `maxSurge` is 0'));
  }

  if (lws.subGroupPolicy !== undefined) {
    errs.push(...validateSubGroupPolicy(size, lws.subGroupPolicy));
  } else if (Object.hasOwn(lws.annotations, SUBGROUP_EXCLUSIVE_KEY_ANNOTATION)) {
    errs.push(
      invalid(
        `metadata.annotations.${SUBGROUP_EXCLUSIVE_KEY_ANNOTATION}`,
        str(lws.annotations[SUBGROUP_EXCLUSIVE_KEY_ANNOTATION]),
        'cannot have subgroup-exclusive-topology without subGroupSize set',
      ),
    );
  }
  return errs;
}

function answer(check: () => FieldError[]): LwsValidation {
  try {
    return { errors: check() };
  } catch (err) {
    if (err instanceof GoPanic) return { panic: err.message };
    throw err;
  }
}

/** ValidateCreate. */
export function validateLwsCreate(lws: unknown): LwsValidation {
  return answer(() => generalValidate(view(lws)));
}

/** ValidateUpdate: the create checks on the new object, then subGroupSize's and subdomainPolicy's immutability. */
export function validateLwsUpdate(oldLws: unknown, newLws: unknown): LwsValidation {
  return answer(() => {
    const next = view(newLws);
    const old = view(oldLws);
    const errs = generalValidate(next);
    if (next.subGroupPolicy !== undefined && old.subGroupPolicy !== undefined) {
      const now = deref(num(next.subGroupPolicy.subGroupSize));
      const was = deref(num(old.subGroupPolicy.subGroupSize));
      if (now !== was) errs.push(invalid(SUBGROUP_SIZE_PATH, now, 'field is immutable'));
    }
    if (next.subGroupPolicy !== undefined && old.subGroupPolicy === undefined) {
      errs.push(
        invalid(
          SUBGROUP_SIZE_PATH,
          next.subGroupPolicy.subGroupSize ?? null,
          'cannot enable subGroupSize after the lws is already created',
        ),
      );
    }
    if (next.subGroupPolicy === undefined && old.subGroupPolicy !== undefined) {
      errs.push(
        invalid(
          SUBGROUP_SIZE_PATH,
          old.subGroupPolicy.subGroupSize ?? null,
          'cannot remove subGroupSize after enabled',
        ),
      );
    }
    if (next.networkConfig !== undefined && absent(next.networkConfig.subdomainPolicy)) {
      const oldNetwork = deref(old.networkConfig);
      errs.push(
        invalid(
          'spec.networkConfig.subdomainPolicy',
          oldNetwork.subdomainPolicy ?? null,
          'cannot set subdomainPolicy as null',
        ),
      );
    }
    return errs;
  });
}
