// Message signing for queue drivers: an HMAC-SHA256 over the key string, carried next to the key (Redis: stored
// with the pending entry; SQS: a message attribute). A driver configured with a signingSecret signs on add and
// verifies on get; a message whose signature is missing or wrong is dead-lettered with the reason BAD_SIGNATURE
// and never handed out.
//
// Rotation: a queue may know two secrets at once, the current one (signs) and the previous one (still verifies),
// so keys in flight when workers switch secrets are not dead-lettered (docs/operations/signing-key-rotation.md).
// A signature is `<key id>:<hmac hex>`, the key id being 8 hex characters derived from the secret that signed
// (keyId: an HMAC of a fixed label, so it reveals nothing a signature does not). The older form, a bare 64-hex
// HMAC without a key id, is still read: it is checked against every known secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The dead-letter reason of a message whose signature is missing or does not match. */
export const BAD_SIGNATURE = 'bad signature';

const KEY_ID_LABEL = 'fleetq signing key id';
const WITH_KEY_ID = /^([0-9a-f]{8}):([0-9a-f]{64})$/;
const LEGACY = /^[0-9a-f]{64}$/;

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

/** Key ids already derived: every signature and every check needs one, and a process has one or two secrets. */
const keyIds = new Map<string, string>();
const KEY_IDS_KEPT = 8;

/** The 8-hex key id of a secret, as carried in its signatures (and shown by `fleetq dlq`). */
export function keyId(secret: string): string {
  let id = keyIds.get(secret);
  if (id === undefined) {
    id = hmacHex(secret, KEY_ID_LABEL).slice(0, 8);
    if (keyIds.size >= KEY_IDS_KEPT) keyIds.clear();
    keyIds.set(secret, id);
  }
  return id;
}

/** `<keyId(secret)>:<HMAC-SHA256(secret, keyString) as lowercase hex>`. */
export function signKey(secret: string, keyString: string): string {
  return `${keyId(secret)}:${hmacHex(secret, keyString)}`;
}

/** The key id a signature names; undefined for the older form without one, or for anything not a signature. */
export function signatureKeyId(signature: string | null | undefined): string | undefined {
  return typeof signature === 'string' ? WITH_KEY_ID.exec(signature)?.[1] : undefined;
}

/** Constant-time comparison of two hex strings; a length mismatch costs the same as a content mismatch. */
function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/**
 * True when one of `secrets` made `signature` over keyString: a signature with a key id is checked against the
 * secret of that id only (none known: false); one without a key id against each secret.
 */
export function verifySignature(
  secrets: readonly string[],
  keyString: string,
  signature: string | null | undefined,
): boolean {
  if (typeof signature !== 'string') return false;
  const tagged = WITH_KEY_ID.exec(signature);
  if (tagged) {
    const [, id, mac] = tagged as unknown as [string, string, string];
    const secret = secrets.find((s) => keyId(s) === id);
    return secret !== undefined && sameHex(hmacHex(secret, keyString), mac);
  }
  if (!LEGACY.test(signature)) return false;
  let ok = false;
  for (const secret of secrets) ok = sameHex(hmacHex(secret, keyString), signature) || ok;
  return ok;
}

/** True when `secret` made signature over keyString (either form). */
export function verifyKey(secret: string, keyString: string, signature: string | null | undefined): boolean {
  return verifySignature([secret], keyString, signature);
}

/** The secrets a queue verifies with: the current one, then the previous one of a rotation window. */
export function verifyingSecrets(o: {
  readonly signingSecret?: string | undefined;
  readonly signingSecretPrevious?: string | undefined;
}): string[] {
  return [o.signingSecret, o.signingSecretPrevious].filter((s): s is string => s !== undefined && s !== '');
}
