// The FleetRollout wave planner, rule by rule: whole decisions and ledger timestamps at a fixed clock.
import { describe, expect, it } from '@jest/globals';
import type { ClusterObservation } from '../../../shared/rollouts/observation.js';
import { plan, type Decision, type PlanResult, type RegistryCluster } from '../../../shared/rollouts/plan.js';
import { parseFleetRollout, type FleetRollout, type FleetRolloutStatus } from '../../../shared/rollouts/types.js';
import { EXAMPLE_SPEC } from '../../helpers/rollouts/example.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
/** `min` minutes (and `sec` seconds) after T0. */
const at = (min: number, sec = 0) => new Date(T0 + min * 60_000 + sec * 1000);
const iso = (min: number, sec = 0) => at(min, sec).toISOString();

/** Five prod clusters in three rings, and a dev cluster no rollout here selects. */
const REGISTRY: RegistryCluster[] = [
  { name: 'c0', labels: { env: 'prod', ring: '0' } },
  { name: 'c1a', labels: { env: 'prod', ring: '1' } },
  { name: 'c1b', labels: { env: 'prod', ring: '1' } },
  { name: 'c2a', labels: { env: 'prod', ring: '2' } },
  { name: 'c2b', labels: { env: 'prod', ring: '2' } },
  { name: 'dev-1', labels: { env: 'dev', ring: '0' } },
];
const PROD = ['c0', 'c1a', 'c1b', 'c2a', 'c2b'];

/** The example, with overrides of its spec. */
function rollout(spec: Record<string, unknown> = {}, status?: FleetRolloutStatus): FleetRollout {
  return parseFleetRollout({
    apiVersion: 'fleetq.dev/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name: 'web', namespace: 'fleetq-system', generation: 3 },
    spec: {
      ...EXAMPLE_SPEC,
      ...spec,
    },
    ...(status !== undefined && { status }),
  });
}

type ObsState = Partial<Omit<ClusterObservation, 'cluster'>>;

/** The target at revision r2 (before: r1), present and not available, in each cluster, with `changes` per cluster. */
function fleet(changes: Record<string, ObsState> = {}, clusters = PROD): ClusterObservation[] {
  return clusters.map((cluster) => ({
    cluster,
    present: true,
    revision: 'r2',
    previousRevision: 'r1',
    generation: 7,
    observedGeneration: 7,
    available: false,
    ...changes[cluster],
  }));
}
const available: ObsState = { available: true };

/** A rollout driven pass by pass, each pass on the status the last one returned. */
class Driver {
  status: FleetRolloutStatus | undefined;
  last!: PlanResult;
  constructor(
    readonly spec: Record<string, unknown> = {},
    public registry: RegistryCluster[] = REGISTRY,
  ) {}
  pass(now: Date, observations: ClusterObservation[]): PlanResult {
    this.last = plan({ rollout: rollout(this.spec, this.status), clusters: this.registry, observations, now });
    this.status = this.last.status;
    // Every pass is idempotent: planned again on the status it wrote, nothing changes and nothing is admitted twice.
    const again = plan({ rollout: rollout(this.spec, this.status), clusters: this.registry, observations, now });
    expect({
      status: again.status,
      changed: again.statusChanged,
      changes: changes(again),
      events: again.events,
    }).toEqual({ status: this.status, changed: false, changes: [], events: [] });
    expect(again.decisions).toEqual(this.last.decisions.filter((d) => d.type === 'hold'));
    return this.last;
  }
  entry(i = -1) {
    return this.status?.revisions?.at(i);
  }
  row(cluster: string, i = -1) {
    return this.entry(i)?.clusters.find((c) => c.cluster === cluster);
  }
}

const changes = (r: PlanResult) => r.decisions.filter((d) => d.type !== 'hold');
const holds = (r: PlanResult) =>
  Object.fromEntries(r.decisions.flatMap((d) => (d.type === 'hold' ? [[d.cluster, d.reason] as const] : [])));
const admit = (cluster: string, wave: string, revision = 'r2'): Decision => ({
  type: 'admit',
  cluster,
  revision,
  wave,
});
const reasons = (r: PlanResult) => r.events.map((e) => e.reason);

/** Drives the example to the point where the canary c0 succeeded at 12m and early (c1a, c1b) was admitted. */
function throughCanary(spec: Record<string, unknown> = {}): Driver {
  const d = new Driver(spec);
  d.pass(at(0), fleet());
  d.pass(at(2), fleet({ c0: available }));
  d.pass(at(12), fleet({ c0: available }));
  return d;
}

describe('a new revision', () => {
  it('starts a ledger entry: the selected clusters in their waves, the canary admitted alone', () => {
    const d = new Driver();
    const r = d.pass(at(0), fleet());
    expect(changes(r)).toEqual([admit('c0', 'canary')]);
    expect(holds(r)).toEqual({
      c1a: 'WaitingForWave',
      c1b: 'WaitingForWave',
      c2a: 'WaitingForWave',
      c2b: 'WaitingForWave',
    });
    expect(r.status).toEqual({
      observedGeneration: 3,
      phase: 'Progressing',
      revision: 'r2',
      wave: 'canary',
      revisions: [
        {
          revision: 'r2',
          attempt: 1,
          startedAt: iso(0),
          phase: 'Progressing',
          wave: 'canary',
          clusters: [
            { cluster: 'c0', wave: 'canary', admittedAt: iso(0), previousRevision: 'r1', observedGeneration: 7 },
            { cluster: 'c1a', wave: 'early' },
            { cluster: 'c1b', wave: 'early' },
            { cluster: 'c2a', wave: 'rest' },
            { cluster: 'c2b', wave: 'rest' },
          ],
        },
      ],
    });
    expect(r.statusChanged).toBe(true);
    expect(r.events).toEqual([
      {
        type: 'Normal',
        reason: 'RolloutStarted',
        message: 'revision r2: 5 clusters in waves canary (1), early (2), rest (2)',
      },
      { type: 'Normal', reason: 'ClusterAdmitted', message: 'c0: revision r2 admitted in wave canary' },
      { type: 'Normal', reason: 'WaveStarted', message: 'wave canary of revision r2 started' },
    ]);
    expect(r.requeueAfterMs).toBe(10 * 60_000); // c0's progress deadline
  });

  it('selects by names too (names and labels both hold), and a cluster no wave matches goes to the last wave', () => {
    const d = new Driver({
      clusters: { names: ['c0', 'c1a', 'c2a', 'dev-1'], matchLabels: { env: 'prod' } },
      waves: [
        { name: 'canary', clusters: { names: ['c0'] } },
        { name: 'ring1', clusters: { matchLabels: { ring: '1' } } },
      ],
    });
    d.pass(at(0), fleet({}, ['c0', 'c1a', 'c2a']));
    expect(d.entry()?.clusters.map((c) => [c.cluster, c.wave])).toEqual([
      ['c0', 'canary'],
      ['c1a', 'ring1'],
      ['c2a', 'ring1'],
    ]);
  });

  it('gives a cluster two wave selectors match to the earlier wave', () => {
    const d = new Driver({
      waves: [
        { name: 'first', clusters: { names: ['c1a'] } },
        { name: 'ring1', clusters: { matchLabels: { ring: '1' } } },
        { name: 'rest' },
      ],
    });
    d.pass(at(0), fleet());
    expect(d.entry()?.clusters.map((c) => [c.cluster, c.wave])).toEqual([
      ['c0', 'rest'],
      ['c1a', 'first'],
      ['c1b', 'ring1'],
      ['c2a', 'rest'],
      ['c2b', 'rest'],
    ]);
  });

  it('is idempotent: the same input plans the same, and planning on its own output changes nothing', () => {
    const input = { rollout: rollout(), clusters: REGISTRY, observations: fleet(), now: at(0) };
    const first = plan(input);
    expect(plan(input)).toEqual(first);
    const again = plan({ ...input, rollout: rollout({}, first.status) });
    expect(again.status).toEqual(first.status);
    expect(again.statusChanged).toBe(false);
    expect(changes(again)).toEqual([]);
    expect(again.events).toEqual([]);
    expect(holds(again)).toEqual(holds(first));
  });

  it('never admits a cluster twice for one revision: a succeeded one that turns unavailable stays succeeded', () => {
    const d = throughCanary();
    const r = d.pass(at(13), fleet({ c0: { available: false } }));
    expect(changes(r)).toEqual([]);
    expect(d.row('c0')).toMatchObject({ admittedAt: iso(0), verdict: 'Succeeded', verdictAt: iso(12) });
  });

  it('records a revision already available where it was first seen as succeeded without admitting it', () => {
    const d = new Driver();
    const r = d.pass(at(0), fleet(Object.fromEntries(PROD.map((c) => [c, available]))));
    expect(changes(r)).toEqual([]);
    expect(d.entry()?.clusters[0]).toEqual({
      cluster: 'c0',
      wave: 'canary',
      verdict: 'Succeeded',
      verdictAt: iso(0),
      reason: 'AvailableBeforeRollout',
      observedGeneration: 7,
    });
    expect(r.status.phase).toBe('Succeeded');
    expect(reasons(r)).toEqual(['RolloutStarted', 'RolloutSucceeded']);
  });

  it('is Idle while no cluster shows a revision', () => {
    const r = plan({ rollout: rollout(), clusters: REGISTRY, observations: [], now: at(0) });
    expect(r.status).toEqual({ phase: 'Idle', revisions: [] });
    expect(r.decisions).toEqual([]);
  });
});

describe('soak and waves', () => {
  it('counts the soak from when the planner first saw the revision available, and restarts it after a dip', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    let r = d.pass(at(2), fleet({ c0: available }));
    expect(d.row('c0')?.availableSince).toBe(iso(2));
    expect(r.requeueAfterMs).toBe(8 * 60_000); // the deadline at 10m comes before the soak's end at 12m
    r = d.pass(at(5), fleet({ c0: { available: false } }));
    expect(d.row('c0')?.availableSince).toBeUndefined();
    r = d.pass(at(6), fleet({ c0: available }));
    expect(d.row('c0')?.availableSince).toBe(iso(6));
    r = d.pass(at(15, 59), fleet({ c0: available }));
    expect(changes(r)).toEqual([]);
    expect(d.row('c0')?.verdict).toBeUndefined();
    expect(r.requeueAfterMs).toBe(1000);
    r = d.pass(at(16), fleet({ c0: available }));
    expect(d.row('c0')).toMatchObject({ verdict: 'Succeeded', verdictAt: iso(16), availableSince: iso(6) });
    expect(changes(r)).toEqual([admit('c1a', 'early'), admit('c1b', 'early')]);
    expect(reasons(r)).toEqual(['ClusterSucceeded', 'ClusterAdmitted', 'ClusterAdmitted', 'WaveStarted']);
    expect(d.status?.wave).toBe('early');
  });

  it('a soaking cluster past its deadline is not failed (it converged); stale status of another revision never passes', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    d.pass(at(9), fleet({ c0: available }));
    let r = d.pass(at(11), fleet({ c0: available }));
    expect(d.row('c0')?.verdict).toBeUndefined();
    // c0 reports the previous revision available (its spec went back): that is not r2's health.
    const stale = new Driver();
    stale.pass(at(0), fleet());
    r = stale.pass(at(2), fleet({ c0: { revision: 'r1', available: true } }));
    expect(stale.row('c0')?.availableSince).toBeUndefined();
    expect(changes(r)).toEqual([]);
  });

  it('starts a wave only when every cluster of the one before succeeded and soaked', () => {
    const d = throughCanary();
    expect(changes(d.last)).toEqual([admit('c1a', 'early'), admit('c1b', 'early')]);
    // c1a succeeds at 10m+5m soak; c1b is still soaking: rest waits.
    d.pass(at(13), fleet({ c0: available, c1a: available }));
    d.pass(at(15), fleet({ c0: available, c1a: available, c1b: available }));
    let r = d.pass(at(18), fleet({ c0: available, c1a: available, c1b: available }));
    expect(d.row('c1a')).toMatchObject({ verdict: 'Succeeded', verdictAt: iso(18) });
    expect(changes(r)).toEqual([]);
    expect(holds(r)).toEqual({ c2a: 'WaitingForWave', c2b: 'WaitingForWave' });
    r = d.pass(at(20), fleet({ c0: available, c1a: available, c1b: available }));
    // rest: 25% of 2 clusters rounds up to 1 at a time.
    expect(changes(r)).toEqual([admit('c2a', 'rest')]);
    expect(holds(r)).toEqual({ c2b: 'WaitingForConcurrency' });
    const all = { c0: available, c1a: available, c1b: available, c2a: available };
    r = d.pass(at(21), fleet(all)); // rest has no soak: c2a succeeds at once, c2b is admitted
    expect(changes(r)).toEqual([admit('c2b', 'rest')]);
    r = d.pass(at(22), fleet({ ...all, c2b: available }));
    expect(r.status).toMatchObject({ phase: 'Succeeded', wave: '', revision: 'r2' });
    expect(d.entry()?.clusters.map((c) => [c.cluster, c.admittedAt, c.verdictAt])).toEqual([
      ['c0', iso(0), iso(12)],
      ['c1a', iso(12), iso(18)],
      ['c1b', iso(12), iso(20)],
      ['c2a', iso(20), iso(21)],
      ['c2b', iso(21), iso(22)],
    ]);
    expect(reasons(r)).toEqual(['ClusterSucceeded', 'RolloutSucceeded']);
    expect(r.requeueAfterMs).toBeUndefined();
  });

  it('a percent concurrency is of the wave, rounded up, at least 1', () => {
    const d = new Driver({ waves: [{ name: 'all', maxConcurrency: '50%' }] });
    expect(changes(d.pass(at(0), fleet()))).toEqual([admit('c0', 'all'), admit('c1a', 'all'), admit('c1b', 'all')]);
    const one = new Driver({ waves: [{ name: 'all', maxConcurrency: '1%' }] });
    expect(changes(one.pass(at(0), fleet()))).toEqual([admit('c0', 'all')]);
  });
});

describe('failures', () => {
  it('fails a cluster not available when its progress deadline passes, freezes it, and goes on within the budget', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    let r = d.pass(at(9, 59), fleet());
    expect(changes(r)).toEqual([]);
    r = d.pass(at(10), fleet());
    const reason = `ProgressDeadlineExceeded: not available 600s after admission at ${iso(0)}`;
    expect(changes(r)).toEqual([
      { type: 'freeze', cluster: 'c0', revision: 'r2', reason },
      admit('c1a', 'early'),
      admit('c1b', 'early'),
    ]);
    expect(d.row('c0')).toMatchObject({ verdict: 'Failed', verdictAt: iso(10), failedAt: iso(10), reason });
    expect(r.events[0]).toEqual({
      type: 'Warning',
      reason: 'ClusterFailed',
      message: `c0: revision r2 failed: ${reason}`,
    });
  });

  it("names the observation's reason for not being available in a missed deadline", () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    d.pass(at(10), fleet({ c0: { reason: '2 of 3 replicas available' } }));
    expect(d.row('c0')?.reason).toBe(
      `ProgressDeadlineExceeded: not available 600s after admission at ${iso(0)} (2 of 3 replicas available)`,
    );
  });

  it('fails a cluster whose new pods show a failure signature, at once, recording signature and image', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    const failure = {
      signature: 'ImagePullBackOff' as const,
      image: 'shop/web:2',
      pods: ['web-r2-a'],
      message: 'Back-off pulling image',
    };
    const r = d.pass(at(1), fleet({ c0: { failure } }));
    const reason = 'ImagePullBackOff (shop/web:2): Back-off pulling image';
    expect(changes(r)[0]).toEqual({ type: 'freeze', cluster: 'c0', revision: 'r2', reason });
    expect(d.row('c0')).toMatchObject({
      verdict: 'Failed',
      failedAt: iso(1),
      failure: { signature: 'ImagePullBackOff', image: 'shop/web:2' },
    });
  });

  it('budget 0: the canary failing rolls it back and holds the revision everywhere; nothing else is admitted', () => {
    const d = new Driver({ failureBudget: { maxFailedClusters: 0 } });
    d.pass(at(0), fleet());
    let r = d.pass(at(10), fleet());
    expect(changes(r)).toEqual([
      { type: 'freeze', cluster: 'c0', revision: 'r2', reason: expect.stringMatching(/^ProgressDeadlineExceeded/) },
      { type: 'rollback', cluster: 'c0', fromRevision: 'r2', toRevision: 'r1', wave: 'canary' },
    ]);
    expect(holds(r)).toEqual({ c1a: 'RevisionHeld', c1b: 'RevisionHeld', c2a: 'RevisionHeld', c2b: 'RevisionHeld' });
    expect(d.entry()).toMatchObject({
      phase: 'RolledBack',
      wave: '',
      stoppedAt: iso(10),
      stopReason: '1 clusters failed (c0), past the budget of 0',
    });
    expect(d.row('c0')).toMatchObject({ verdict: 'RolledBack', verdictAt: iso(10), failedAt: iso(10) });
    expect(r.status.phase).toBe('RolledBack');
    expect(reasons(r)).toEqual(['ClusterFailed', 'RolloutRolledBack']);
    // Held: later passes admit nothing and roll nothing back again.
    r = d.pass(at(30), fleet({ c0: available }));
    expect(changes(r)).toEqual([]);
    expect(r.statusChanged).toBe(false);
  });

  it('budget 1: the second failure rolls back every cluster that moved, the last wave first', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    expect(changes(d.pass(at(10), fleet()))).toEqual([
      expect.objectContaining({ type: 'freeze', cluster: 'c0' }),
      admit('c1a', 'early'),
      admit('c1b', 'early'),
    ]);
    d.pass(at(11), fleet({ c1b: available }));
    d.pass(at(16), fleet({ c1b: available }));
    expect(d.row('c1b')).toMatchObject({ verdict: 'Succeeded', verdictAt: iso(16) });
    const r = d.pass(at(20), fleet({ c1b: available }));
    // c1a missed its deadline (admitted at 10m); c1b had succeeded: the early wave rolls back, then the canary.
    expect(changes(r)).toEqual([
      { type: 'freeze', cluster: 'c1a', revision: 'r2', reason: expect.stringMatching(/^ProgressDeadlineExceeded/) },
      { type: 'rollback', cluster: 'c1b', fromRevision: 'r2', toRevision: 'r1', wave: 'early' },
      { type: 'rollback', cluster: 'c1a', fromRevision: 'r2', toRevision: 'r1', wave: 'early' },
      { type: 'rollback', cluster: 'c0', fromRevision: 'r2', toRevision: 'r1', wave: 'canary' },
    ]);
    expect(d.entry()?.stopReason).toBe('2 clusters failed (c0, c1a), past the budget of 1');
    expect(d.entry()?.clusters.map((c) => [c.cluster, c.verdict, c.verdictAt])).toEqual([
      ['c0', 'RolledBack', iso(20)],
      ['c1a', 'RolledBack', iso(20)],
      ['c1b', 'RolledBack', iso(20)],
      ['c2a', undefined, undefined],
      ['c2b', undefined, undefined],
    ]);
    expect(d.row('c0')?.reason).toBe(
      `ProgressDeadlineExceeded: not available 600s after admission at ${iso(0)}; rolled back`,
    );
    expect(d.row('c1b')?.reason).toBe('rolled back: 2 clusters failed (c0, c1a), past the budget of 1');
  });

  it('a percent budget is of the selected clusters, rounded down: 20% of 5 allows one failure, 39% still one', () => {
    for (const budget of ['20%', '39%']) {
      const d = new Driver({ failureBudget: { maxFailedClusters: budget } });
      d.pass(at(0), fleet());
      d.pass(at(10), fleet()); // c0 fails: within the budget of 1
      expect(d.entry()?.stoppedAt).toBeUndefined();
      d.pass(at(20), fleet()); // c1a and c1b fail: past it
      expect(d.entry()).toMatchObject({
        stoppedAt: iso(20),
        stopReason: '3 clusters failed (c0, c1a, c1b), past the budget of 1',
      });
    }
  });

  it('the same signature on the same image in two clusters stops the rollout within the budget', () => {
    const failure = (image: string) => ({
      failure: { signature: 'CrashLoopBackOff' as const, image, pods: ['p'], message: 'back-off restarting' },
    });
    const d = throughCanary({ failureBudget: { maxFailedClusters: 4 }, onFailure: 'Pause' });
    let r = d.pass(at(13), fleet({ c0: available, c1a: failure('shop/web:2') }));
    expect(d.entry()?.stoppedAt).toBeUndefined();
    r = d.pass(at(14), fleet({ c0: available, c1a: failure('shop/web:2'), c1b: failure('shop/web:2') }));
    expect(d.entry()).toMatchObject({
      phase: 'Halted',
      stoppedAt: iso(14),
      stopReason: 'CrashLoopBackOff on shop/web:2 in c1a and c1b',
    });
    expect(changes(r)).toEqual([
      { type: 'freeze', cluster: 'c1b', revision: 'r2', reason: 'CrashLoopBackOff (shop/web:2): back-off restarting' },
    ]);
    // ErrImagePull and ImagePullBackOff are one pull failure: seen one way in each cluster, it stops the rollout.
    const pull = (signature: 'ErrImagePull' | 'ImagePullBackOff') => ({
      failure: { signature, image: 'shop/web:3', pods: ['p'], message: 'pull failed' },
    });
    const pulls = throughCanary({ failureBudget: { maxFailedClusters: 4 }, onFailure: 'Pause' });
    pulls.pass(at(14), fleet({ c0: available, c1a: pull('ErrImagePull'), c1b: pull('ImagePullBackOff') }));
    expect(pulls.entry()).toMatchObject({
      phase: 'Halted',
      stopReason: 'ImagePullBackOff on shop/web:3 in c1a and c1b',
    });
    // On different images it is two failures within the budget.
    const other = throughCanary({ failureBudget: { maxFailedClusters: 4 } });
    other.pass(at(14), fleet({ c0: available, c1a: failure('shop/web:2'), c1b: failure('shop/sidecar:9') }));
    expect(other.entry()?.stoppedAt).toBeUndefined();
  });

  it('a cluster with no previous revision to return to is frozen instead of rolled back', () => {
    const d = new Driver({ failureBudget: { maxFailedClusters: 0 } });
    d.pass(at(0), fleet({ c0: { previousRevision: '' } }));
    const r = d.pass(at(10), fleet({ c0: { previousRevision: '' } }));
    expect(changes(r)).toEqual([expect.objectContaining({ type: 'freeze', cluster: 'c0' })]);
    expect(r.events.map((e) => [e.reason, e.message])).toContainEqual([
      'RollbackImpossible',
      'c0: no previous revision to return to; frozen at r2',
    ]);
    expect(d.row('c0')).toMatchObject({ verdict: 'Failed', failedAt: iso(10) });
    expect(d.entry()?.phase).toBe('RolledBack');
  });

  it('onFailure Pause freezes every cluster in flight instead of rolling back, and holds the revision', () => {
    const d = throughCanary({ onFailure: 'Pause', failureBudget: { maxFailedClusters: 0 } });
    const failure = { signature: 'OOMKilled' as const, image: 'shop/web:2', pods: ['p'], message: 'OOMKilled' };
    const r = d.pass(at(13), fleet({ c0: available, c1a: { failure } }));
    expect(changes(r)).toEqual([
      { type: 'freeze', cluster: 'c1a', revision: 'r2', reason: 'OOMKilled (shop/web:2): OOMKilled' },
      {
        type: 'freeze',
        cluster: 'c1b',
        revision: 'r2',
        reason: 'rollout halted: 1 clusters failed (c1a), past the budget of 0',
      },
    ]);
    expect(r.status.phase).toBe('Halted');
    expect(holds(r)).toEqual({ c2a: 'RevisionHeld', c2b: 'RevisionHeld' });
    expect(d.row('c1b')?.verdict).toBeUndefined();
  });

  it('an unreachable cluster fails only after its deadline, and does not stall the rollout', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    d.pass(at(2), fleet({ c0: available }));
    let r = d.pass(at(9), fleet({ c0: { unreachable: true, present: false, revision: '' } }));
    expect(changes(r)).toEqual([]);
    expect(d.row('c0')?.availableSince).toBe(iso(2)); // unknown, not reset
    r = d.pass(at(10), fleet({}, ['c1a', 'c1b', 'c2a', 'c2b'])); // no observation at all: unreachable
    expect(changes(r)).toEqual([
      {
        type: 'freeze',
        cluster: 'c0',
        revision: 'r2',
        reason: `Unreachable: not available 600s after admission at ${iso(0)}`,
      },
      admit('c1a', 'early'),
      admit('c1b', 'early'),
    ]);
  });

  it('admits an unreachable cluster in its turn (its deadline decides), and skips one whose target is absent', () => {
    const d = new Driver();
    const r = d.pass(at(0), fleet({ c0: { present: false, revision: '' }, c1a: { unreachable: true } }));
    expect(changes(r)).toEqual([admit('c1a', 'early'), admit('c1b', 'early')]);
    expect(holds(r)).toEqual({ c0: 'NotOnRevision', c2a: 'WaitingForWave', c2b: 'WaitingForWave' });
  });

  it('a cluster whose target still asks for the old revision holds its wave until it asks, for at most the progress deadline', () => {
    // r1 runs everywhere; then r2 reaches every cluster but c0 (the canary), which gets it late: the early wave
    // waits for it rather than go first.
    const stillR1: ObsState = { revision: 'r1', previousRevision: 'r0' };
    const onR1 = (d: Driver) =>
      d.pass(at(-1), fleet(Object.fromEntries(PROD.map((c) => [c, { ...stillR1, available: true }]))));
    const late = new Driver();
    onR1(late);
    let r = late.pass(at(0), fleet({ c0: stillR1 }));
    expect(changes(r)).toEqual([]);
    expect(holds(r)).toEqual({
      c0: 'NotOnRevision',
      c1a: 'WaitingForWave',
      c1b: 'WaitingForWave',
      c2a: 'WaitingForWave',
      c2b: 'WaitingForWave',
    });
    expect(r.status).toMatchObject({ phase: 'Progressing', wave: 'canary' });
    expect(r.requeueAfterMs).toBe(600_000); // when the wait ends, unless c0 asks before
    r = late.pass(at(3), fleet());
    expect(changes(r)).toEqual([admit('c0', 'canary')]);
    // One that never asks holds it no longer than the progress deadline from the revision's start.
    const never = new Driver();
    onR1(never);
    never.pass(at(0), fleet({ c0: stillR1 }));
    r = never.pass(at(9, 59), fleet({ c0: stillR1 }));
    expect(changes(r)).toEqual([]);
    expect(r.requeueAfterMs).toBe(1_000);
    r = never.pass(at(10), fleet({ c0: stillR1 }));
    expect(changes(r)).toEqual([admit('c1a', 'early'), admit('c1b', 'early')]);
    expect(holds(r)).toMatchObject({ c0: 'NotOnRevision' });
  });
});

describe('operator control', () => {
  it('spec.paused admits nothing new; clusters in flight still get their verdict', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    const paused = new Driver({ paused: true });
    paused.status = d.status;
    paused.pass(at(2), fleet({ c0: available }));
    const r = paused.pass(at(12), fleet({ c0: available }));
    expect(paused.row('c0')?.verdict).toBe('Succeeded');
    expect(changes(r)).toEqual([]);
    expect(holds(r)).toEqual({ c1a: 'Paused', c1b: 'Paused', c2a: 'WaitingForWave', c2b: 'WaitingForWave' });
    expect(r.status).toMatchObject({ phase: 'Paused', wave: 'early' });
  });

  it('an approval wave waits for its approval of this revision in the status', () => {
    const spec = {
      waves: [
        { name: 'canary', clusters: { matchLabels: { ring: '0' } }, soak: '10m' },
        { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, approval: true },
        { name: 'rest', maxConcurrency: '25%' },
      ],
    };
    const d = throughCanary(spec);
    expect(changes(d.last)).toEqual([]);
    expect(holds(d.last)).toMatchObject({ c1a: 'WaitingForApproval', c1b: 'WaitingForApproval' });
    expect(d.last.status).toMatchObject({ phase: 'WaitingForApproval', wave: 'early' });
    expect(d.last.events.at(-1)).toEqual({
      type: 'Normal',
      reason: 'WaitingForApproval',
      message: 'wave early of revision r2 waits for approval (fleetq rollout approve)',
    });
    // An approval of another revision does not count; one of r2 does.
    d.status = { ...d.status, approvals: [{ revision: 'r1', wave: 'early', at: iso(13) }] };
    expect(changes(d.pass(at(13), fleet({ c0: available })))).toEqual([]);
    d.status = { ...d.status, approvals: [{ revision: 'r2', wave: 'early', at: iso(14) }] };
    const r = d.pass(at(14), fleet({ c0: available }));
    expect(changes(r)).toEqual([admit('c1a', 'early'), admit('c1b', 'early')]);
    expect(d.row('c1a')?.admittedAt).toBe(iso(14));
  });

  it('a retry rolls the held revision again as a new attempt; a retry of anything else is dropped', () => {
    const d = new Driver({ failureBudget: { maxFailedClusters: 0 } });
    d.pass(at(0), fleet());
    d.pass(at(10), fleet());
    d.status = { ...d.status, retry: { revision: 'r9', at: iso(11) } };
    let r = d.pass(at(11), fleet());
    expect(reasons(r)).toEqual(['RetryIgnored']);
    expect(r.status.retry).toBeUndefined();
    d.status = { ...d.status, retry: { revision: 'r2', at: iso(12) } };
    r = d.pass(at(12), fleet());
    expect(changes(r)).toEqual([admit('c0', 'canary')]);
    expect(r.status.retry).toBeUndefined();
    expect(d.status?.revisions?.map((e) => [e.revision, e.attempt, e.phase, e.startedAt])).toEqual([
      ['r2', 1, 'RolledBack', iso(0)],
      ['r2', 2, 'Progressing', iso(12)],
    ]);
    expect(reasons(r)[0]).toBe('RolloutRetried');
  });
});

describe('revisions and membership', () => {
  it('a new target revision supersedes the one in progress and starts from the first wave', () => {
    const d = throughCanary();
    const r = d.pass(
      at(13),
      fleet(Object.fromEntries(PROD.map((c) => [c, { revision: 'r3', previousRevision: 'r2' }]))),
    );
    expect(changes(r)).toEqual([admit('c0', 'canary', 'r3')]);
    expect(d.status?.revisions?.map((e) => [e.revision, e.phase, e.wave])).toEqual([
      ['r2', 'Superseded', ''],
      ['r3', 'Progressing', 'canary'],
    ]);
    expect(d.row('c0')?.previousRevision).toBe('r2');
  });

  it('a template that goes back to a revision the ledger holds rolls it again once no cluster asks for the newer one', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    const r3 = (clusters: string[]) =>
      Object.fromEntries(clusters.map((c) => [c, { revision: 'r3', previousRevision: 'r2' }]));
    d.pass(at(1), fleet(r3(PROD)));
    // Going back cluster by cluster: while one still asks for r3, r3 stays the current revision.
    let r = d.pass(at(2), fleet(r3(['c2b'])));
    expect(d.status?.revisions?.map((e) => [e.revision, e.attempt])).toEqual([
      ['r2', 1],
      ['r3', 1],
    ]);
    expect(holds(r).c1a).toBe('NotOnRevision');
    r = d.pass(at(3), fleet());
    expect(d.status?.revisions?.map((e) => [e.revision, e.attempt, e.phase, e.startedAt])).toEqual([
      ['r2', 1, 'Superseded', iso(0)],
      ['r3', 1, 'Superseded', iso(1)],
      ['r2', 2, 'Progressing', iso(3)],
    ]);
    expect(changes(r)).toEqual([admit('c0', 'canary')]);
    expect(r.events[0]).toEqual({
      type: 'Normal',
      reason: 'RolloutStarted',
      message: 'revision r2 attempt 2: 5 clusters in waves canary (1), early (2), rest (2)',
    });
  });

  it('after a rollback the revision stays held until the target revision changes', () => {
    const d = new Driver({ failureBudget: { maxFailedClusters: 0 } });
    d.pass(at(0), fleet());
    d.pass(at(10), fleet());
    const r = d.pass(at(20), fleet(Object.fromEntries(PROD.map((c) => [c, { revision: 'r3' }]))));
    expect(changes(r)).toEqual([admit('c0', 'canary', 'r3')]);
    expect(d.entry(0)?.phase).toBe('RolledBack');
  });

  it('keeps the last five revisions, and only the approvals of those', () => {
    const d = new Driver();
    d.status = { approvals: [{ revision: 'v0', wave: 'early', at: iso(0) }] };
    for (let i = 0; i < 7; i++) d.pass(at(i), fleet(Object.fromEntries(PROD.map((c) => [c, { revision: `v${i}` }]))));
    expect(d.status?.revisions?.map((e) => e.revision)).toEqual(['v2', 'v3', 'v4', 'v5', 'v6']);
    expect(d.status?.approvals).toEqual([]);
  });

  it('a wave removed from the spec mid-rollout leaves its clusters to the last wave', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    const renamed = new Driver({
      waves: [
        { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '10m' },
        { name: 'rest', maxConcurrency: '25%' },
      ],
    });
    renamed.status = d.status;
    const r = renamed.pass(at(1), fleet());
    expect(renamed.entry()?.clusters.map((c) => [c.cluster, c.wave])).toEqual([
      ['c0', 'canary'],
      ['c1a', 'rest'],
      ['c1b', 'rest'],
      ['c2a', 'rest'],
      ['c2b', 'rest'],
    ]);
    expect(reasons(r)).toEqual(['ClusterMoved', 'ClusterMoved']);
  });

  it('a cluster that joins mid-rollout joins the last wave; one that leaves is dropped and noted', () => {
    const d = new Driver();
    d.pass(at(0), fleet());
    d.registry = [
      ...REGISTRY.filter((c) => c.name !== 'c2b'),
      { name: 'c3', labels: { env: 'prod', ring: '0' } }, // ring 0, yet the canary has passed its start
    ];
    const r = d.pass(at(1), fleet({}, ['c0', 'c1a', 'c1b', 'c2a', 'c3']));
    expect(d.entry()?.clusters.map((c) => [c.cluster, c.wave, c.joinedAt])).toEqual([
      ['c0', 'canary', undefined],
      ['c1a', 'early', undefined],
      ['c1b', 'early', undefined],
      ['c2a', 'rest', undefined],
      ['c3', 'rest', iso(1)],
    ]);
    expect(d.entry()?.departed).toEqual([{ cluster: 'c2b', wave: 'rest', at: iso(1) }]);
    expect(r.events).toEqual([
      { type: 'Normal', reason: 'ClusterLeft', message: 'c2b (wave rest) left the rollout of revision r2' },
      { type: 'Normal', reason: 'ClusterJoined', message: 'c3 joined the rollout of revision r2 in wave rest' },
    ]);
    expect(holds(r).c3).toBe('WaitingForWave');
  });
});
