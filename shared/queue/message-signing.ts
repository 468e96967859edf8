// Message signing for queue drivers: an HMAC-SHA256 over the key string, hex-encoded, carried next to the
// key (Redis: stored with the pending entry; SQS: a message attribute). A driver configured with a
// signingSecret signs on add and verifies on get; a message whose signature is missing or wrong is
// dead-lettered with the reason BAD_SIGNATURE and never handed out.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The dead-letter reason of a message whose signature is missing or does not match. */
export const BAD_SIGNATURE = 'bad signature';

/** HMAC-SHA256(secret, keyString) as lowercase hex. */
export function signKey(secret: string, keyString: string): string {
  return createHmac('sha256', secret).update(keyString, 'utf8').digest('hex');
}

/** True when signature is signKey(secret, keyString); the comparison takes the same time for any mismatch. */
export function verifyKey(secret: string, keyString: string, signature: string | null | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signKey(secret, keyString), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual needs equal lengths; compare against the expected value anyway so a length mismatch
  // costs the same as a content mismatch.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}
