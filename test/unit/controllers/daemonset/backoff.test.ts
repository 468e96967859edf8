// Failed daemon pods: deleted with a FailedDaemonPod event the first time at once, then with the flowcontrol
// backoff (1 s doubling to 15 min, per observedGeneration and node) kept in the DaemonSet's annotation; a pass
// that records it leaves status to the next pass. Succeeded pods: deleted with SucceededDaemonPod.
import { describe, expect, it } from '@jest/globals';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { aDaemonSet, aNode, aPod, NOW, observed } from './builders.js';
import { summarize } from './summary.js';

const ANNOTATION = 'fleetq.dev/failed-pod-backoff';
const n1 = aNode('n1');
const at = (msAgo: number) => NOW.getTime() - msAgo;
const withBackoff = (state: Record<string, { delayMs: number; lastUpdate: number }>) =>
  aDaemonSet({ annotations: { [ANNOTATION]: JSON.stringify(state) } });
const patchLine = (state: Record<string, { delayMs: number; lastUpdate: number }>) =>
  `patch DaemonSet agent ${JSON.stringify({ metadata: { annotations: { [ANNOTATION]: JSON.stringify(state) }, uid: 'uid-ds' } })}`;

describe('failed daemon pods', () => {
  it.each([
    {
      name: 'first failure: deleted at once, backoff 1 s recorded, status next pass',
      ds: aDaemonSet(),
      want: (pod: string) => ({
        actions: [
          `delete Pod ${pod}`,
          `event Warning FailedDaemonPod: Found failed daemon pod ns/${pod} on node n1, will try to kill it`,
          patchLine({ '1/n1': { delayMs: 1000, lastUpdate: NOW.getTime() } }),
        ],
        requeueAfter: 0,
      }),
    },
    {
      name: 'failed again within the backoff: kept, looked at again after the delay',
      ds: withBackoff({ '1/n1': { delayMs: 4000, lastUpdate: at(1000) } }),
      want: () => ({ actions: [expect.stringMatching(/^status /) as unknown as string], requeueAfter: 4000 }),
    },
    {
      name: 'failed again after the backoff: deleted, backoff doubled',
      ds: withBackoff({ '1/n1': { delayMs: 4000, lastUpdate: at(5000) } }),
      want: (pod: string) => ({
        actions: [
          `delete Pod ${pod}`,
          `event Warning FailedDaemonPod: Found failed daemon pod ns/${pod} on node n1, will try to kill it`,
          patchLine({ '1/n1': { delayMs: 8000, lastUpdate: NOW.getTime() } }),
        ],
        requeueAfter: 0,
      }),
    },
    {
      name: 'the backoff is capped at 15 min',
      ds: withBackoff({ '1/n1': { delayMs: 600_000, lastUpdate: at(700_000) } }),
      want: (pod: string) => ({
        actions: [
          `delete Pod ${pod}`,
          `event Warning FailedDaemonPod: Found failed daemon pod ns/${pod} on node n1, will try to kill it`,
          patchLine({ '1/n1': { delayMs: 900_000, lastUpdate: NOW.getTime() } }),
        ],
        requeueAfter: 0,
      }),
    },
    {
      name: 'an entry older than 2 × 15 min starts over at 1 s; expired entries of other nodes are dropped',
      ds: withBackoff({
        '1/n1': { delayMs: 900_000, lastUpdate: at(1_900_000) },
        '1/n9': { delayMs: 1000, lastUpdate: at(1_900_000) },
      }),
      want: (pod: string) => ({
        actions: [
          `delete Pod ${pod}`,
          `event Warning FailedDaemonPod: Found failed daemon pod ns/${pod} on node n1, will try to kill it`,
          patchLine({ '1/n1': { delayMs: 1000, lastUpdate: NOW.getTime() } }),
        ],
        requeueAfter: 0,
      }),
    },
    {
      name: 'a new observedGeneration is a new key: deleted at once',
      ds: aDaemonSet({
        generation: 2,
        annotations: { [ANNOTATION]: JSON.stringify({ '1/n1': { delayMs: 4000, lastUpdate: at(1000) } }) },
      }),
      want: (pod: string) => ({
        actions: [
          `delete Pod ${pod}`,
          `event Warning FailedDaemonPod: Found failed daemon pod ns/${pod} on node n1, will try to kill it`,
          patchLine({
            '1/n1': { delayMs: 4000, lastUpdate: at(1000) },
            '2/n1': { delayMs: 1000, lastUpdate: NOW.getTime() },
          }),
        ],
        requeueAfter: 0,
      }),
    },
  ])('$name', ({ ds, want }) => {
    const failed = aPod(ds, 'n1', { phase: 'Failed' });
    expect(summarize(planDaemonSet(observed(ds, [n1], [failed]), NOW))).toEqual(want(failed.metadata?.name ?? ''));
  });

  it('a malformed annotation counts as no backoff', () => {
    const ds = aDaemonSet({ annotations: { [ANNOTATION]: 'not json' } });
    const failed = aPod(ds, 'n1', { phase: 'Failed' });
    const { actions } = summarize(planDaemonSet(observed(ds, [n1], [failed]), NOW));
    expect(actions[0]).toBe(`delete Pod ${failed.metadata?.name}`);
  });

  it('a succeeded pod is deleted with SucceededDaemonPod, no backoff', () => {
    const ds = aDaemonSet();
    const done = aPod(ds, 'n1', { phase: 'Succeeded' });
    expect(summarize(planDaemonSet(observed(ds, [n1], [done]), NOW)).actions.slice(0, 2)).toEqual([
      `delete Pod ${done.metadata?.name}`,
      `event Normal SucceededDaemonPod: Found succeeded daemon pod ns/${done.metadata?.name} on node n1, will try to delete it`,
    ]);
  });
});
