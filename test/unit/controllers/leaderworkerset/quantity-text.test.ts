// Quantities as the lws controller re-encodes them: upstream's ParseQuantity then MarshalJSON
// (fixtures/quantity-golden.json, from k8s.io/apimachinery v0.36.2).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { goQuantityText } from '../../../../shared/controllers/common/go-quantity-text.js';

const golden = JSON.parse(readFileSync(new URL('./fixtures/quantity-golden.json', import.meta.url), 'utf8')) as {
  cases: { written: string; go: string }[];
};

describe('goQuantityText (golden: apimachinery Quantity.MarshalJSON)', () => {
  it.each(golden.cases.filter((c) => c.go !== 'error'))('$written → $go', ({ written, go }) => {
    expect(goQuantityText(written)).toBe(go);
  });
  it.each(golden.cases.filter((c) => c.go === 'error'))(
    '$written: Go cannot parse it, kept as written',
    ({ written }) => {
      expect(goQuantityText(written)).toBe(written);
    },
  );
});
