// resource.Quantity's JSON text after Go decoded it (apimachinery v0.36 Quantity.MarshalJSON): the string as written
// when parsing kept it (it was already canonical), else CanonicalizeBytes: DecimalSI and DecimalExponent with the
// exponent moved to a multiple of 3 (trailing zeros taken into it first), BinarySI in powers of 1024 when it is a
// whole number of at least 1024 (else printed as DecimalSI). A suffix the format has no name for is left out, as
// Go's suffixer leaves it. The internal form comes from go-quantity.ts.
//
// Used where fleetq must write a quantity as a Go program re-encodes it: the LeaderWorkerSet controller's typed
// encoding of templates (revision data, apply configurations) and the LWS mutating webhook's patch.
import { parseGoQuantity, type GoQuantity } from './go-quantity.js';

const DECIMAL_SUFFIX: Readonly<Record<number, string>> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIX: Readonly<Record<number, string>> = { 10: 'Ki', 20: 'Mi', 30: 'Gi', 40: 'Ti', 50: 'Pi', 60: 'Ei' };

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** The value as mantissa × 10^exponent. */
function decimalParts(q: GoQuantity): { mantissa: bigint; exponent: number } {
  return q.kind === 'int' ? { mantissa: q.value, exponent: q.scale } : { mantissa: q.unscaled, exponent: -q.scale };
}

/** AsCanonicalBytes: factors of 10 into the exponent, then the exponent down to a multiple of 3. */
function canonicalDecimal(mantissa: bigint, exponent: number): { number: bigint; exponent: number } {
  let m = mantissa;
  let e = exponent;
  while (abs(m) >= 10n && m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  while (e % 3 !== 0) {
    m *= 10n;
    e--;
  }
  return { number: m, exponent: e };
}

/** AsScale(0) rounding up (away from zero), and whether that lost nothing. */
function wholeRoundedUp(mantissa: bigint, exponent: number): { value: bigint; exact: boolean } {
  if (exponent >= 0) return { value: mantissa * 10n ** BigInt(exponent), exact: true };
  const div = 10n ** BigInt(-exponent);
  const q = mantissa / div;
  const exact = mantissa % div === 0n;
  return { value: exact ? q : q + (mantissa < 0n ? -1n : 1n), exact };
}

/** Quantity.MarshalJSON's text for a parsed quantity. */
export function quantityJsonText(q: GoQuantity): string {
  if (q.kind === 'int' && q.s !== '') return q.s;
  const { mantissa, exponent } = decimalParts(q);
  if (mantissa === 0n) return '0';
  let format = q.format;
  let whole = 0n;
  if (format === 'BinarySI') {
    const { value, exact } = wholeRoundedUp(mantissa, exponent);
    // Strictly between -1024 and 1024 compares the exact value: a whole-number test is enough there.
    const small = exponent >= 0 ? abs(value) < 1024n : abs(mantissa) < 1024n * 10n ** BigInt(-exponent);
    if (small || !exact) format = 'DecimalSI';
    else whole = value;
  }
  if (format === 'BinarySI') {
    let times = 0;
    while (abs(whole) >= 1024n && whole % 1024n === 0n) {
      whole /= 1024n;
      times++;
    }
    return `${whole}${BINARY_SUFFIX[times * 10] ?? ''}`;
  }
  const c = canonicalDecimal(mantissa, exponent);
  if (format === 'DecimalExponent') return c.exponent === 0 ? `${c.number}` : `${c.number}e${c.exponent}`;
  return `${c.number}${DECIMAL_SUFFIX[c.exponent] ?? ''}`;
}

/** A quantity's text after a Go decode and encode; one Go cannot parse is returned as it is. */
export function goQuantityText(value: string | number): string | number {
  const parsed = parseGoQuantity(String(value));
  return parsed === null ? value : quantityJsonText(parsed);
}
