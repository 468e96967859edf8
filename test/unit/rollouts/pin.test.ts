import { describe, expect, it } from '@jest/globals';
import { PIN_ADMITTED_ANNOTATION, PIN_ROLLOUT_ANNOTATION, pinOf } from '../../../shared/rollouts/pin.js';

const withAnnotations = (annotations: unknown) => ({ metadata: { annotations } });

describe('pinOf', () => {
  it('is undefined without the rollout annotation, whatever else is there', () => {
    expect(pinOf({})).toBeUndefined();
    expect(pinOf(withAnnotations(null))).toBeUndefined();
    expect(pinOf(withAnnotations({ [PIN_ADMITTED_ANNOTATION]: 'abc123' }))).toBeUndefined();
  });

  it('reads the rollout and the admitted revision', () => {
    const pin = pinOf(
      withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'fleetq-system/web', [PIN_ADMITTED_ANNOTATION]: '5d8f7c9b4' }),
    );
    expect(pin).toEqual({ state: 'pinned', rollout: 'fleetq-system/web', admitted: '5d8f7c9b4' });
  });

  it('admits nothing yet when the admitted annotation is absent or empty', () => {
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'ns/web' }))).toEqual({
      state: 'pinned',
      rollout: 'ns/web',
      admitted: '',
    });
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'ns/web', [PIN_ADMITTED_ANNOTATION]: '' }))).toEqual({
      state: 'pinned',
      rollout: 'ns/web',
      admitted: '',
    });
  });

  it('reports hostile values as malformed, bounded, never throwing', () => {
    const huge = 'x'.repeat(1_000_000);
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: huge }))).toEqual({
      state: 'malformed',
      rollout: 'x'.repeat(320),
      message: `annotation ${PIN_ROLLOUT_ANNOTATION} is not namespace/name`,
    });
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 42 }))?.state).toBe('malformed');
    for (const bad of ['ABC', 'a/b', 'x'.repeat(64), '../etc', 7])
      expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'ns/web', [PIN_ADMITTED_ANNOTATION]: bad }))).toEqual({
        state: 'malformed',
        rollout: 'ns/web',
        message: `annotation ${PIN_ADMITTED_ANNOTATION} is not a revision hash`,
      });
  });
});
