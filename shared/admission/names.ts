// The name checks of apimachinery's util/validation that JobSet's webhook calls, with their exact messages.
// Go's regexp matches these ASCII patterns as JavaScript does. Lengths are in bytes in Go: UTF-8 length here.

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
export const HTTP_PATH = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

const anchored = (re: string) => new RegExp(`^${re}$`);
const dns1123LabelRe = anchored(DNS1123_LABEL);
const dns1123SubdomainRe = anchored(DNS1123_SUBDOMAIN);
const dns1035LabelRe = anchored(DNS1035_LABEL);
const labelValueRe = anchored(LABEL_VALUE);
export const httpPathRe = anchored(HTTP_PATH);

export const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** validation.RegexError: the message, the examples and the pattern. */
export function regexError(message: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${pattern}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

const maxLenCharacters = (n: number) => `must be no more than ${n} characters`;

/**
 * validation.IsDNS1123Subdomain; content.IsDNS1123Subdomain (a label key's prefix) is the same check with its length
 * message in `bytes`.
 */
export function isDNS1123Subdomain(value: string, lengthIn: 'characters' | 'bytes' = 'characters'): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(`must be no more than 253 ${lengthIn}`);
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

/** util/validation.IsDNS1123Label (namespace names). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenCharacters(63));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      dns1123SubdomainRe.test(value)
        ? 'must not contain dots'
        : regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL,
            'my-name',
            '123-abc',
          ),
    );
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenCharacters(63));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** IsValidLabelValue (api/validate/content.IsLabelValue): its length message counts bytes. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 bytes');
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}
