import { describe, expect, it } from '@jest/globals';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
  pinOf,
} from '../../../shared/rollouts/pin.js';

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
    expect(pin).toEqual({ state: 'pinned', rollout: 'fleetq-system/web', admitted: '5d8f7c9b4', frozen: false });
  });

  it('admits nothing yet when the admitted annotation is absent or empty', () => {
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'ns/web' }))).toEqual({
      state: 'pinned',
      rollout: 'ns/web',
      admitted: '',
      frozen: false,
    });
    expect(pinOf(withAnnotations({ [PIN_ROLLOUT_ANNOTATION]: 'ns/web', [PIN_ADMITTED_ANNOTATION]: '' }))).toEqual({
      state: 'pinned',
      rollout: 'ns/web',
      admitted: '',
      frozen: false,
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

  it('is frozen only while the frozen annotation names the admitted revision', () => {
    const at = (admitted: string, frozen: unknown) =>
      pinOf(
        withAnnotations({
          [PIN_ROLLOUT_ANNOTATION]: 'ns/web',
          [PIN_ADMITTED_ANNOTATION]: admitted,
          [PIN_FROZEN_ANNOTATION]: frozen,
        }),
      );
    expect(at('b2', 'b2')).toEqual({ state: 'pinned', rollout: 'ns/web', admitted: 'b2', frozen: true });
    expect(at('b2', 'a1')).toEqual({ state: 'pinned', rollout: 'ns/web', admitted: 'b2', frozen: false });
    expect(at('b2', '')).toEqual({ state: 'pinned', rollout: 'ns/web', admitted: 'b2', frozen: false });
    expect(at('', 'b2')).toEqual({ state: 'pinned', rollout: 'ns/web', admitted: '', frozen: false });
  });

  it('a frozen value that is no revision hash is malformed (held), not ignored', () => {
    for (const bad of ['B2', 'a/b', 'x'.repeat(64), 7, null])
      expect(
        pinOf(
          withAnnotations({
            [PIN_ROLLOUT_ANNOTATION]: 'ns/web',
            [PIN_ADMITTED_ANNOTATION]: 'b2',
            [PIN_FROZEN_ANNOTATION]: bad,
          }),
        ),
      ).toEqual({
        state: 'malformed',
        rollout: 'ns/web',
        message: `annotation ${PIN_FROZEN_ANNOTATION} is not a revision hash`,
      });
  });
});
