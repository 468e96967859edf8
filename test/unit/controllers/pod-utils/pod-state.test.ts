import { describe, expect, it } from '@jest/globals';
import {
  isPodActive,
  isPodAvailable,
  isPodTerminating,
  msUntilAvailable,
  soonestAvailabilityMs,
} from '../../../../shared/controllers/pod-utils/pod-state.js';
import { NOW, aPod } from '../replicaset/builders.js';

describe('pod state', () => {
  it.each([
    { name: 'running', pod: aPod('p'), active: true, terminating: false },
    { name: 'pending', pod: aPod('p', { phase: 'Pending' }), active: true, terminating: false },
    { name: 'succeeded', pod: aPod('p', { phase: 'Succeeded' }), active: false, terminating: false },
    { name: 'failed', pod: aPod('p', { phase: 'Failed' }), active: false, terminating: false },
    { name: 'being deleted', pod: aPod('p', { deleting: true }), active: false, terminating: true },
    {
      name: 'failed and being deleted',
      pod: aPod('p', { phase: 'Failed', deleting: true }),
      active: false,
      terminating: false,
    },
  ])('$name', ({ pod, active, terminating }) => {
    expect({ active: isPodActive(pod), terminating: isPodTerminating(pod) }).toEqual({ active, terminating });
  });

  it.each([
    { name: 'not ready', readyFor: undefined, minReadySeconds: 0, available: false, wait: undefined },
    { name: 'ready, minReadySeconds 0', readyFor: 0, minReadySeconds: 0, available: true, wait: undefined },
    { name: 'ready 5 s of 10', readyFor: 5, minReadySeconds: 10, available: false, wait: 5000 },
    {
      name: 'ready exactly 10 s of 10 (strictly after)',
      readyFor: 10,
      minReadySeconds: 10,
      available: false,
      wait: undefined,
    },
    { name: 'ready 11 s of 10', readyFor: 11, minReadySeconds: 10, available: true, wait: undefined },
  ])('availability: $name', ({ readyFor, minReadySeconds, available, wait }) => {
    const pod = aPod('p', readyFor === undefined ? {} : { readyFor });
    expect(isPodAvailable(pod, minReadySeconds, NOW)).toBe(available);
    expect(msUntilAvailable(pod, minReadySeconds, NOW)).toBe(wait);
  });

  it('the soonest pod to become available decides the wait', () => {
    const pods = [aPod('a', { readyFor: 2 }), aPod('b', { readyFor: 25 }), aPod('c', { readyFor: 40 }), aPod('d')];
    expect(soonestAvailabilityMs(pods, 30, NOW)).toBe(5000);
  });
});
