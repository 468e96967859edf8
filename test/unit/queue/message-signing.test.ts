import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import {
  keyId,
  signatureKeyId,
  signKey,
  verifyKey,
  verifySignature,
  verifyingSecrets,
} from '../../../shared/queue/message-signing.js';

const SECRET = 'top-secret';
const PREVIOUS = 'the-previous-secret';
const KEY = 'eu-1/Deployment/default/web';
const hmac = (secret: string, text: string): string => createHmac('sha256', secret).update(text).digest('hex');

describe('message signing', () => {
  it('signs with HMAC-SHA256 over the key string, hex, after the key id of the secret', () => {
    expect(keyId(SECRET)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyId(SECRET)).not.toBe(keyId(PREVIOUS));
    expect(signKey(SECRET, KEY)).toBe(`${keyId(SECRET)}:${hmac(SECRET, KEY)}`);
    expect(signatureKeyId(signKey(SECRET, KEY))).toBe(keyId(SECRET));
    expect(signatureKeyId(hmac(SECRET, KEY))).toBeUndefined();
  });

  it.each([
    { name: 'its own signature', signature: signKey(SECRET, KEY), want: true },
    { name: 'its own signature in the older form (no key id)', signature: hmac(SECRET, KEY), want: true },
    { name: 'another key', signature: signKey(SECRET, 'eu-1/Deployment/default/other'), want: false },
    { name: 'another secret', signature: signKey('other', KEY), want: false },
    { name: 'another secret, older form', signature: hmac('other', KEY), want: false },
    {
      name: "the right MAC under another secret's key id",
      signature: `${keyId('other')}:${hmac(SECRET, KEY)}`,
      want: false,
    },
    { name: 'a truncated signature', signature: signKey(SECRET, KEY).slice(0, 72), want: false },
    { name: 'upper-case hex', signature: signKey(SECRET, KEY).toUpperCase(), want: false },
    { name: 'an empty signature', signature: '', want: false },
    { name: 'no signature', signature: undefined, want: false },
    { name: 'null', signature: null, want: false },
  ])('verifies $name → $want', ({ signature, want }) => {
    expect(verifyKey(SECRET, KEY, signature)).toBe(want);
  });

  it.each([
    { name: 'signed by the current secret', signature: signKey(SECRET, KEY), want: true },
    { name: 'signed by the previous secret', signature: signKey(PREVIOUS, KEY), want: true },
    { name: 'signed by the previous secret, older form', signature: hmac(PREVIOUS, KEY), want: true },
    { name: 'signed by the current secret, older form', signature: hmac(SECRET, KEY), want: true },
    { name: 'signed by neither', signature: signKey('a-third-secret', KEY), want: false },
    { name: 'signed by neither, older form', signature: hmac('a-third-secret', KEY), want: false },
  ])('in a rotation window (current, previous) accepts a key $name → $want', ({ signature, want }) => {
    expect(verifySignature([SECRET, PREVIOUS], KEY, signature)).toBe(want);
  });

  it('verifies with the current secret, then the previous one; no secret: nothing verifies', () => {
    expect(verifyingSecrets({ signingSecret: SECRET, signingSecretPrevious: PREVIOUS })).toEqual([SECRET, PREVIOUS]);
    expect(verifyingSecrets({ signingSecret: SECRET })).toEqual([SECRET]);
    expect(verifyingSecrets({ signingSecret: SECRET, signingSecretPrevious: '' })).toEqual([SECRET]);
    expect(verifySignature([], KEY, hmac(SECRET, KEY))).toBe(false);
  });
});
