import { describe, expect, it } from '@jest/globals';
import { TokenBucket } from '../../../shared/kube/token-bucket.js';

describe('TokenBucket', () => {
  it('serves the burst at once, then refills at qps', async () => {
    let t = 0;
    const bucket = new TokenBucket(10, 3, () => t);
    for (let i = 0; i < 3; i++) await bucket.take();
    let fourth = false;
    const pending = bucket.take().then(() => (fourth = true));
    await new Promise((r) => setImmediate(r));
    expect(fourth).toBe(false);
    t = 100; // one token at 10 qps
    await pending;
    expect(fourth).toBe(true);
  });
});
