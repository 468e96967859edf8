// How a resource.Quantity looks inside kube-controller-manager after it decoded the string the apiserver
// sent (apimachinery ParseQuantity, v0.37.2): which of its internal representations holds the value and
// whether the string is cached. The pod-template-hash printer prints those unexported fields, so the hash of
// a template with resources depends on them.

type Parsed = { positive: boolean; value: string; num: string; denom: string; suffix: string };

const DIGITS = /[0-9]/;
const SUFFIX_CHARS = 'eEinumkKMGTP';
const MAX_INT64_FACTORS = 18;
const NANO = -9;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** parseQuantityString: sign, the numeric value text, integer digits (leading zeros dropped), fraction, suffix. */
function parseQuantityString(str: string): Parsed | null {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === '-' || str[0] === '+')) {
    positive = str[0] !== '-';
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && DIGITS.test(str[i] ?? '')) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    let j = pos;
    while (j < end && DIGITS.test(str[j] ?? '')) j++;
    denom = str.slice(pos, j);
    if (j >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = j;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  let k = pos;
  while (k < end && SUFFIX_CHARS.includes(str[k] ?? '')) k++;
  if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[k] === '-' || str[k] === '+') k++;
  while (k < end && DIGITS.test(str[k] ?? '')) k++;
  return k >= end ? { positive, value, num, denom, suffix: str.slice(suffixStart) } : null;
}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
type Suffix = { base: 2 | 10; exponent: number; format: Format };

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

function interpret(suffix: string): Suffix | null {
  const d = DECIMAL[suffix];
  if (d !== undefined) return { base: 10, exponent: d, format: 'DecimalSI' };
  const b = BINARY[suffix];
  if (b !== undefined) return { base: 2, exponent: b, format: 'BinarySI' };
  const m = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (m?.[1] !== undefined) return { base: 10, exponent: Number(m[1]), format: 'DecimalExponent' };
  return null;
}

/** The Go internals of a Quantity: int64Amount{value, scale}, or an inf.Dec (unscaled, scale), the cached string, Format. */
export type GoQuantity =
  | {
      readonly kind: 'int';
      readonly value: bigint;
      readonly scale: number;
      readonly s: string;
      readonly format: Format;
    }
  | { readonly kind: 'dec'; readonly unscaled: bigint; readonly scale: number; readonly format: Format };

export function parseGoQuantity(str: string): GoQuantity | null {
  if (str.length === 0) return null;
  if (str === '0') return { kind: 'int', value: 0n, scale: 0, s: str, format: 'DecimalSI' };
  const p = parseQuantityString(str);
  if (!p) return null;
  const suffix = interpret(p.suffix);
  if (!suffix) return null;
  const { base, exponent } = suffix;
  let { format } = suffix;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && p.denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - p.num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (p.num.length + p.denom.length);
  }

  if (precision >= 0) {
    scale -= p.denom.length;
    if (scale >= NANO) {
      const shifted = p.num + p.denom;
      const value = BigInt(shifted);
      if (value > INT64_MAX) return null; // ErrNumeric
      const product = value * mantissa;
      if (product <= INT64_MAX && product >= INT64_MIN) {
        const result = p.positive ? product : -product;
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (value & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { kind: 'int', value: result, scale, s: canonical ? str : '', format };
      }
    }
  }

  // The slow path: an inf.Dec, rounded up to nano.
  const negative = p.value.startsWith('-');
  const digits = p.value.replace(/^[-+]/, '');
  const [intPart = '0', fracPart = ''] = digits.split('.');
  let unscaled = BigInt((intPart || '0') + fracPart) * (negative ? -1n : 1n);
  let decScale = fracPart.length;
  if (base === 10) decScale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  const sign = unscaled < 0n ? -1n : 1n;
  unscaled *= sign;
  if (unscaled !== 0n) {
    if (decScale <= 9) {
      unscaled *= 10n ** BigInt(9 - decScale);
    } else {
      const div = 10n ** BigInt(decScale - 9);
      unscaled = (unscaled + div - 1n) / div; // inf.RoundUp: away from zero
    }
    decScale = 9;
  }
  if (format === 'BinarySI' && unscaled > INT64_MAX * 10n ** BigInt(Math.max(decScale, 0))) {
    unscaled = INT64_MAX;
    decScale = 0;
  }
  if (format === 'BinarySI' && unscaled > 0n && unscaled < 10n ** BigInt(Math.max(decScale, 0))) format = 'DecimalSI';
  return { kind: 'dec', unscaled: unscaled * sign, scale: decScale, format };
}

/** spew's %#v of the Quantity's fields, without the leading type (the caller prints it or not). */
export function spewQuantity(q: GoQuantity): string {
  const int = q.kind === 'int' ? q : { value: 0n, scale: 0, s: '' };
  const dec =
    q.kind === 'dec'
      ? `(*inf.Dec){unscaled:(big.Int){neg:(bool)${q.unscaled < 0n} abs:(big.nat)${words(q.unscaled < 0n ? -q.unscaled : q.unscaled)}} scale:(inf.Scale)${q.scale}}`
      : '(*inf.Dec)<nil>';
  return (
    `{i:(resource.int64Amount){value:(int64)${int.value} scale:(resource.Scale)${int.scale}} ` +
    `d:(resource.infDecAmount){Dec:${dec}} s:(string)${int.s} Format:(resource.Format)${q.format}}`
  );
}

/** big.nat: little-endian 64-bit words; zero is a nil slice. */
function words(n: bigint): string {
  if (n === 0n) return '<nil>';
  const out: string[] = [];
  for (let v = n; v > 0n; v >>= 64n) out.push((v & ((1n << 64n) - 1n)).toString());
  return `[${out.join(' ')}]`;
}
