import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { signKey, verifyKey } from '../../../shared/queue/message-signing.js';

const SECRET = 'top-secret';
const KEY = 'eu-1/Deployment/default/web';

describe('message signing', () => {
  it('signs with HMAC-SHA256 over the key string, hex', () => {
    expect(signKey(SECRET, KEY)).toBe(createHmac('sha256', SECRET).update(KEY).digest('hex'));
    expect(signKey(SECRET, KEY)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    { name: 'its own signature', signature: signKey(SECRET, KEY), want: true },
    { name: 'another key', signature: signKey(SECRET, 'eu-1/Deployment/default/other'), want: false },
    { name: 'another secret', signature: signKey('other', KEY), want: false },
    { name: 'a truncated signature', signature: signKey(SECRET, KEY).slice(0, 63), want: false },
    { name: 'an empty signature', signature: '', want: false },
    { name: 'no signature', signature: undefined, want: false },
    { name: 'null', signature: null, want: false },
  ])('verifies $name → $want', ({ signature, want }) => {
    expect(verifyKey(SECRET, KEY, signature)).toBe(want);
  });
});
