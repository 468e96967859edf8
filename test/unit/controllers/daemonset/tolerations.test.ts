// AddOrUpdateDaemonPodTolerations: the defaults in upstream's order, hostNetwork's extra one, and how a user's
// toleration with the same key, operator, value and effect is replaced in place or kept when equal.
import { describe, expect, it } from '@jest/globals';
import type { Toleration } from '../../../../shared/kube/api/objects.js';
import { daemonPodTolerations } from '../../../../shared/controllers/daemonset/tolerations.js';

const ex = (key: string, effect: string, extra: Partial<Toleration> = {}): Toleration => ({
  key: `node.kubernetes.io/${key}`,
  operator: 'Exists',
  effect,
  ...extra,
});
const DEFAULTS = [
  ex('not-ready', 'NoExecute'),
  ex('unreachable', 'NoExecute'),
  ex('disk-pressure', 'NoSchedule'),
  ex('memory-pressure', 'NoSchedule'),
  ex('pid-pressure', 'NoSchedule'),
  ex('unschedulable', 'NoSchedule'),
];
const user: Toleration = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };

describe('daemonPodTolerations', () => {
  it.each([
    { name: 'no tolerations: the six defaults', spec: {}, want: DEFAULTS },
    {
      name: 'hostNetwork adds network-unavailable',
      spec: { hostNetwork: true },
      want: [...DEFAULTS, ex('network-unavailable', 'NoSchedule')],
    },
    { name: "a user's own toleration stays first", spec: { tolerations: [user] }, want: [user, ...DEFAULTS] },
    {
      name: 'a matching toleration with tolerationSeconds is replaced in place by the default',
      spec: { tolerations: [ex('unreachable', 'NoExecute', { tolerationSeconds: 30 }), user] },
      want: [
        ex('unreachable', 'NoExecute'),
        user,
        ex('not-ready', 'NoExecute'),
        ex('disk-pressure', 'NoSchedule'),
        ex('memory-pressure', 'NoSchedule'),
        ex('pid-pressure', 'NoSchedule'),
        ex('unschedulable', 'NoSchedule'),
      ],
    },
    {
      name: 'an equal toleration is kept where it is, not duplicated',
      spec: { tolerations: [ex('unschedulable', 'NoSchedule')] },
      want: [
        ex('unschedulable', 'NoSchedule'),
        ...DEFAULTS.filter((t) => t.key !== 'node.kubernetes.io/unschedulable'),
      ],
    },
    {
      name: 'same key with another effect is another toleration',
      spec: { tolerations: [ex('not-ready', 'NoSchedule')] },
      want: [ex('not-ready', 'NoSchedule'), ...DEFAULTS],
    },
  ])('$name', ({ spec, want }) => {
    expect(daemonPodTolerations(spec)).toEqual(want);
  });
});
