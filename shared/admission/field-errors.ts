// Validation errors printed the way apimachinery prints them (util/validation/field: Error, ErrorList.ToAggregate;
// api/errors.NewInvalid), so a refusal from fleetq's admission function reads exactly as the Go webhook's does.
//   field.Invalid(path, value, detail)  → `<path>: Invalid value: <value>: <detail>`
//   field.Required / Forbidden / TooLong → `<path>: Required value[: <detail>]` (no value)
//   a plain Go error                     → wrapped as field.InternalError(nil, err): `<nil>: Internal error: <msg>`
// An aggregate of one error prints bare; of several, deduplicated by text, as `[a, b]`.

export const FieldErrorType = {
  Invalid: 'FieldValueInvalid',
  Required: 'FieldValueRequired',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  Internal: 'InternalError',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  InternalError: 'Internal error',
};

export type FieldError = {
  type: FieldErrorType;
  /** The field path as Go's field.Path prints it (`spec.replicatedJobs[0].name`), or `<nil>`. */
  field: string;
  /** Printed only for Invalid: a string quoted, a number or boolean bare, anything else as JSON. */
  value?: unknown;
  detail: string;
};

/** A field path: `path('spec', 'replicatedJobs', 0, 'name')` prints `spec.replicatedJobs[0].name`. */
export function path(...elements: (string | number)[]): string {
  let out = '';
  for (const e of elements) out += typeof e === 'number' ? `[${e}]` : out === '' ? e : `.${e}`;
  return out;
}

export const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: FieldErrorType.Invalid,
  field,
  value,
  detail,
});
export const required = (field: string, detail = ''): FieldError => ({ type: FieldErrorType.Required, field, detail });
export const forbidden = (field: string, detail: string): FieldError => ({
  type: FieldErrorType.Forbidden,
  field,
  detail,
});
export const tooLong = (field: string, maxLength: number): FieldError => ({
  type: FieldErrorType.TooLong,
  field,
  detail: `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`,
});
/** A plain Go error (fmt.Errorf) in a JobSet validation list: upstream wraps it as an internal error with no path. */
export const plain = (message: string): FieldError => ({
  type: FieldErrorType.Internal,
  field: '<nil>',
  detail: message,
});

/** Go's %q for the strings validation prints (names, paths): JSON's quoting is the same for printable text. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value ?? null);
}

/** field.Error.ErrorBody(): the message without the path. */
export function errorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  if (e.type === FieldErrorType.Invalid) s += `: ${renderValue(e.value)}`;
  if (e.detail !== '') s += `: ${e.detail}`;
  return s;
}

export function errorText(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** ErrorList.ToAggregate().Error(): deduplicated by text; one error bare, several in brackets. */
export function aggregateText(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map(errorText))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** metav1.Status of apierrors.NewInvalid(GroupKind, name, errors): code 422, reason Invalid, one cause each. */
export type InvalidStatus = {
  status: 'Failure';
  message: string;
  reason: 'Invalid';
  details: {
    name: string;
    group: string;
    kind: string;
    causes: { reason: string; message: string; field: string }[];
  };
  code: 422;
};

export function invalidStatus(group: string, kind: string, name: string, errors: readonly FieldError[]): InvalidStatus {
  return {
    status: 'Failure',
    message: `${kind}.${group} ${goQuote(name)} is invalid: ${aggregateText(errors)}`,
    reason: 'Invalid',
    details: {
      name,
      group,
      kind,
      causes: errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field })),
    },
    code: 422,
  };
}
