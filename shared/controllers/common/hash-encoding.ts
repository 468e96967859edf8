// What kube-controller-manager's object-name hashes are made of: FNV-32 over bytes, in both variants (hash/fnv
// New32, FNV-1, for history.HashControllerRevision; New32a, FNV-1a, for controller.ComputeHash), and
// rand.SafeEncodeString of the sum's decimal digits.
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1 32: multiply, then xor. */
export function fnv32(bytes: Iterable<number>): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

/** FNV-1a 32: xor, then multiply. */
export function fnv32a(bytes: Iterable<number>): number {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: every byte mapped into an alphabet without vowels or look-alikes. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += SAFE_ALPHANUMS[b % SAFE_ALPHANUMS.length];
  return out;
}
