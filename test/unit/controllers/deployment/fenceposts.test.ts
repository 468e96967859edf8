import { describe, expect, it } from '@jest/globals';
import {
  maxSurge,
  maxUnavailable,
  resolveFenceposts,
} from '../../../../shared/controllers/common/deployment-fenceposts.js';
import { roundHalfAwayFromZero } from '../../../../shared/controllers/deployment/fenceposts.js';
import { aDeployment } from './builders.js';

describe('ResolveFenceposts: surge rounds up, unavailable rounds down, both 0 → unavailable 1', () => {
  it.each([
    { name: '25%/25% of 10', desired: 10, surge: '25%', unavailable: '25%', want: { surge: 3, unavailable: 2 } },
    { name: '25%/25% of 1', desired: 1, surge: '25%', unavailable: '25%', want: { surge: 1, unavailable: 0 } },
    { name: '25%/25% of 4 (exact)', desired: 4, surge: '25%', unavailable: '25%', want: { surge: 1, unavailable: 1 } },
    { name: '50%/50% of 5', desired: 5, surge: '50%', unavailable: '50%', want: { surge: 3, unavailable: 2 } },
    { name: '33%/33% of 10', desired: 10, surge: '33%', unavailable: '33%', want: { surge: 4, unavailable: 3 } },
    { name: '1%/1% of 10', desired: 10, surge: '1%', unavailable: '1%', want: { surge: 1, unavailable: 0 } },
    { name: '0%/0%', desired: 3, surge: '0%', unavailable: '0%', want: { surge: 0, unavailable: 1 } },
    { name: 'int 0/0', desired: 3, surge: 0, unavailable: 0, want: { surge: 0, unavailable: 1 } },
    {
      name: '0%/10% of 5 (floors to 0)',
      desired: 5,
      surge: '0%',
      unavailable: '10%',
      want: { surge: 0, unavailable: 1 },
    },
    { name: 'ints 2/1', desired: 4, surge: 2, unavailable: 1, want: { surge: 2, unavailable: 1 } },
    { name: '100%/0%', desired: 3, surge: '100%', unavailable: '0%', want: { surge: 3, unavailable: 0 } },
    { name: 'percent of 0 replicas', desired: 0, surge: '25%', unavailable: '25%', want: { surge: 0, unavailable: 1 } },
    { name: 'not a percentage', desired: 3, surge: '25', unavailable: 1, want: { surge: 0, unavailable: 0 } },
  ])('$name', ({ desired, surge, unavailable, want }) => {
    expect(resolveFenceposts(surge, unavailable, desired)).toEqual(want);
  });
});

describe('MaxSurge / MaxUnavailable of a Deployment', () => {
  it.each([
    { name: 'RollingUpdate 10 × 25%', d: aDeployment({ replicas: 10 }), want: { surge: 3, unavailable: 2 } },
    {
      name: 'unavailable capped at replicas',
      d: aDeployment({ replicas: 3, maxSurge: 0, maxUnavailable: 5 }),
      want: { surge: 0, unavailable: 3 },
    },
    { name: '0 replicas: unavailable 0', d: aDeployment({ replicas: 0 }), want: { surge: 0, unavailable: 0 } },
    {
      name: 'Recreate: both 0',
      d: aDeployment({ replicas: 10, strategy: 'Recreate' }),
      want: { surge: 0, unavailable: 0 },
    },
  ])('$name', ({ d, want }) => {
    expect({ surge: maxSurge(d), unavailable: maxUnavailable(d) }).toEqual(want);
  });
});

it.each([
  [2.5, 3],
  [-2.5, -3],
  [2.49, 2],
  [-0.5, -1],
  [0, 0],
])('integer.RoundToInt32(%p) = %p (half away from zero)', (x, want) => {
  expect(roundHalfAwayFromZero(x)).toBe(want);
});
