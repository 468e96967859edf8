// Deployment scenarios: each runs on both sides and compares the normalized state at its checkpoints.
import { availabilityFloor, deploymentInvariants } from '../../helpers/conformance/invariants.js';
import { replicaSetsOf, findDeployment } from '../../helpers/conformance/model.js';
import { deploymentComplete, deploymentCondition, deploymentPods, gone } from '../../helpers/conformance/predicates.js';
import type { Check, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, deployment, image, replicaSet, setImage, setStuckImage, type DeploymentOptions } from './builders.js';

const D = 'web';
const complete = (what = 'rollout complete'): Step => ({ do: 'waitFor', what, until: deploymentComplete(D) });
const scale = (replicas: number): Step => ({ do: 'scale', kind: 'Deployment', name: D, replicas });
const update = (v: number): Step => ({ do: 'update', kind: 'Deployment', name: D, mutate: setImage(v) });
const stuck = (v: number): Step => ({ do: 'update', kind: 'Deployment', name: D, mutate: setStuckImage(v) });
const create = (o: DeploymentOptions): Step => ({ do: 'create', objects: [deployment(D, o)] });
const kubectl = (...args: string[]): Step => ({ do: 'kubectl', args: [...args, '-n', '{ns}'] });
const floor = availabilityFloor(D);

function dep(name: string, description: string, steps: Step[], o: { recreate?: boolean } = {}): Scenario {
  return { name, kind: 'Deployment', description, steps, invariants: deploymentInvariants(D, o) };
}

/** Create, complete, then one rolling update under the availability floor, compared at the end. */
function rolling(name: string, description: string, o: DeploymentOptions): Scenario {
  return dep(name, description, [
    create(o),
    complete('first rollout'),
    compare('first rollout'),
    { do: 'arm', invariant: floor },
    update(2),
    complete('second rollout'),
    { do: 'disarm', invariant: floor },
    compare('second rollout'),
  ]);
}

const replicaSetCount =
  (n: number) =>
  (s: Snapshot): Check => {
    const d = findDeployment(s, D);
    const k = d ? replicaSetsOf(s, d).length : 0;
    return k === n ? true : `${k} replica sets, want ${n}`;
  };

const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
/** Sets the deprecated rollback annotation (what extensions/v1beta1's rollbackTo became; still acted on in 1.37). */
const rollbackTo = (revision: string): Step => ({
  do: 'update',
  kind: 'Deployment',
  name: D,
  mutate: (o) => {
    o.metadata.annotations = { ...o.metadata.annotations, [ROLLBACK_TO]: revision };
  },
});
/** The controller has acted on the rollback annotation (it clears it in every outcome) and the rollout is done. */
const rollbackHandled = (s: Snapshot): Check => {
  const d = findDeployment(s, D);
  if (d?.metadata.annotations?.[ROLLBACK_TO] !== undefined) return 'rollback annotation still set';
  return deploymentComplete(D)(s);
};

const generationObserved = (s: Snapshot): Check => {
  const d = findDeployment(s, D);
  return (d?.status?.observedGeneration ?? 0) >= (d?.metadata.generation ?? 1) ? true : 'generation not observed';
};

/**
 * The clock has passed the second in which every ReplicaSet of the Deployment was created. creationTimestamp
 * has one-second resolution and ReplicaSetsBySizeNewer breaks a tie of size and time by name, so a revision
 * created in the same second as the one before it may sort as the older of the two, on either controller: the
 * proportional share of a scale-up then goes to the old ReplicaSet (seen on fleetq-1, stop 20's CI, whose first
 * rollout completed within the second). Waited for before the next revision is created, so both sides order
 * their ReplicaSets by time.
 */
const pastCreationSecond = (s: Snapshot): Check => {
  const d = findDeployment(s, D);
  const created = d ? replicaSetsOf(s, d).map((rs) => Date.parse(rs.metadata.creationTimestamp ?? '')) : [];
  if (created.length === 0 || created.some(Number.isNaN)) return 'no replica set with a creation time';
  const next = Math.max(...created) + 1_000;
  return Date.now() >= next ? true : `clock ${next - Date.now()} ms short of the next second`;
};

export const DEPLOYMENT_SCENARIOS: readonly Scenario[] = [
  dep('deploy-create', 'a Deployment of 3 creates its ReplicaSet and pods', [
    create({ replicas: 3 }),
    complete(),
    compare('created'),
  ]),
  // The orphan's template differs (another image) and it holds 0 replicas: adopting it is the only change the
  // Deployment makes to it (fleetq: a patch of its ownerReferences), and it then counts as an old revision.
  dep('deploy-adopt-orphan-rs', 'an orphan ReplicaSet matching the selector is adopted as an old revision', [
    { do: 'create', objects: [replicaSet('web-orphan', { replicas: 0, labels: { app: D }, image: image(9) })] },
    create({ replicas: 2 }),
    complete(),
    { do: 'waitFor', what: 'the orphan adopted', until: replicaSetCount(2) },
    compare('adopted'),
  ]),
  rolling('rolling-surge1-unavail0', 'rolling update, maxSurge 1, maxUnavailable 0, 4 replicas', {
    replicas: 4,
    maxSurge: 1,
    maxUnavailable: 0,
  }),
  rolling('rolling-surge0-unavail1', 'rolling update, maxSurge 0, maxUnavailable 1, 4 replicas', {
    replicas: 4,
    maxSurge: 0,
    maxUnavailable: 1,
  }),
  rolling('rolling-default-25pct', 'rolling update with the defaults (25%/25%), 4 replicas', { replicas: 4 }),
  rolling(
    'rolling-50pct-50pct',
    'rolling update, maxSurge 50% (rounds up to 3), maxUnavailable 50% (down to 2), 5 replicas',
    {
      replicas: 5,
      maxSurge: '50%',
      maxUnavailable: '50%',
    },
  ),
  rolling('rolling-unavail-100pct', 'rolling update, maxSurge 0, maxUnavailable 100%, 3 replicas', {
    replicas: 3,
    maxSurge: 0,
    maxUnavailable: '100%',
  }),
  rolling('rolling-surge-100pct', 'rolling update, maxSurge 100%, maxUnavailable 0, 3 replicas', {
    replicas: 3,
    maxSurge: '100%',
    maxUnavailable: 0,
  }),
  rolling(
    'rolling-min-ready-seconds',
    'rolling update with minReadySeconds 4, maxSurge 1, maxUnavailable 0, 3 replicas',
    {
      replicas: 3,
      maxSurge: 1,
      maxUnavailable: 0,
      minReadySeconds: 4,
    },
  ),
  dep('proportional-scaling', 'scaling a stuck rollout splits the change proportionally between old and new', [
    create({ replicas: 4, maxSurge: 2, maxUnavailable: 1 }),
    complete('first rollout'),
    { do: 'waitFor', what: 'a second past the first revision', until: pastCreationSecond },
    stuck(2),
    { do: 'waitFor', what: 'stuck: 3 old, 3 new (Pending)', until: deploymentPods(D, { 1: 3, 2: 3 }) },
    compare('stuck'),
    scale(5),
    { do: 'waitFor', what: 'scale observed', until: generationObserved },
    compare('scaled up while stuck'),
    scale(2),
    { do: 'waitFor', what: 'scale observed', until: generationObserved },
    compare('scaled down while stuck'),
    update(3),
    complete('recovered'),
    compare('recovered'),
  ]),
  dep(
    'recreate',
    'Recreate: old pods all gone before new ones run',
    [
      create({ replicas: 3, strategy: 'Recreate' }),
      complete(),
      update(2),
      complete('recreated'),
      // Upstream's Progressing message after a Recreate names the new ReplicaSet or still the old one: its
      // NewReplicaSetCreated status write races its own informer copy (a conflict drops it, and from then on
      // replicas == updatedReplicas, so the condition is never rewritten). Seen both ways on upstream-1 alone;
      // type, status and reason are still compared.
      { do: 'compare', label: 'recreated', ignore: ['deployments.web.conditions.Progressing.message'] },
    ],
    { recreate: true },
  ),
  dep('paused-scale-resume', 'paused: a template change waits, scaling still applies; resume rolls out', [
    create({ replicas: 2 }),
    complete(),
    kubectl('rollout', 'pause', `deployment/${D}`),
    update(2),
    {
      do: 'waitFor',
      what: 'paused condition',
      until: deploymentCondition(D, 'Progressing', 'Unknown', 'DeploymentPaused'),
    },
    compare('paused with a new template'),
    scale(4),
    { do: 'waitFor', what: 'old replica set scaled to 4', until: deploymentPods(D, { 1: 4 }) },
    compare('scaled while paused'),
    kubectl('rollout', 'resume', `deployment/${D}`),
    complete('resumed'),
    compare('resumed'),
  ]),
  dep('rollback-undo', 'kubectl rollout undo goes back to the previous template, reusing its ReplicaSet', [
    create({ replicas: 3 }),
    complete(),
    update(2),
    complete('v2'),
    kubectl('rollout', 'undo', `deployment/${D}`),
    complete('undone'),
    compare('undone'),
  ]),
  dep('rollback-to-revision', 'kubectl rollout undo --to-revision=1 after two updates', [
    create({ replicas: 2 }),
    complete(),
    update(2),
    complete('v2'),
    update(3),
    complete('v3'),
    kubectl('rollout', 'undo', `deployment/${D}`, '--to-revision=1'),
    complete('back to revision 1'),
    compare('back to revision 1'),
  ]),
  // The events compared here are the point: DeploymentRollback (Normal) and DeploymentRollbackRevisionNotFound
  // (Warning) on the Deployment, beside ScalingReplicaSet.
  dep('rollback-annotation', 'the deprecated rollback annotation set to revision 1 rolls back to it', [
    create({ replicas: 2 }),
    complete(),
    update(2),
    complete('v2'),
    rollbackTo('1'),
    { do: 'waitFor', what: 'rollback handled and rolled out', until: rollbackHandled },
    compare('rolled back'),
  ]),
  dep('rollback-annotation-not-found', 'the deprecated rollback annotation naming no revision is cleared', [
    create({ replicas: 2 }),
    complete(),
    rollbackTo('7'),
    { do: 'waitFor', what: 'rollback handled', until: rollbackHandled },
    compare('not found'),
  ]),
  dep('revision-history-limit', 'revisionHistoryLimit 1 keeps one old ReplicaSet', [
    create({ replicas: 2, revisionHistoryLimit: 1 }),
    complete(),
    update(2),
    complete('v2'),
    update(3),
    complete('v3'),
    update(4),
    complete('v4'),
    { do: 'waitFor', what: 'old replica sets cleaned up', until: replicaSetCount(2) },
    compare('cleaned up'),
  ]),
  dep('progress-deadline-exceeded', 'progressDeadlineSeconds 10 and pods that never become ready', [
    create({ replicas: 2, progressDeadlineSeconds: 10, maxSurge: 1, maxUnavailable: 0 }),
    complete(),
    stuck(2),
    {
      do: 'waitFor',
      what: 'ProgressDeadlineExceeded',
      until: deploymentCondition(D, 'Progressing', 'False', 'ProgressDeadlineExceeded'),
      timeoutMs: 60_000,
    },
    compare('deadline exceeded'),
  ]),
  dep('deploy-scale-to-zero', 'scale 3 → 0 → 2', [
    create({ replicas: 3 }),
    complete(),
    scale(0),
    complete('at zero'),
    compare('at zero'),
    scale(2),
    complete('back to 2'),
    compare('back to 2'),
  ]),
  dep('deploy-delete-cascade', 'deleting a Deployment deletes its ReplicaSets and pods (garbage collector)', [
    create({ replicas: 3 }),
    complete(),
    update(2),
    complete('v2'),
    { do: 'delete', kind: 'Deployment', name: D },
    { do: 'waitFor', what: 'deployment, replica sets and pods gone', until: gone('Deployment', D) },
    compare('deleted'),
  ]),
  dep('rollover', 'a new template during a stuck rollout: the stuck ReplicaSet is scaled to 0', [
    create({ replicas: 3, maxSurge: 1, maxUnavailable: 0 }),
    complete(),
    stuck(2),
    { do: 'waitFor', what: 'stuck: 3 old, 1 new', until: deploymentPods(D, { 1: 3, 2: 1 }) },
    update(3),
    complete('rolled over to v3'),
    compare('rolled over'),
  ]),
  dep('availability-condition', 'an unready pod turns Available False (maxUnavailable 0) and back', [
    create({ replicas: 3, maxSurge: 1, maxUnavailable: 0 }),
    complete(),
    { do: 'setPodsReady', filter: { owner: `${D}@1` }, ready: false },
    {
      do: 'waitFor',
      what: 'Available False',
      until: deploymentCondition(D, 'Available', 'False', 'MinimumReplicasUnavailable'),
    },
    compare('one pod unready'),
    { do: 'setPodsReady', filter: { owner: `${D}@1` }, ready: true },
    complete('ready again'),
    compare('ready again'),
  ]),
];
