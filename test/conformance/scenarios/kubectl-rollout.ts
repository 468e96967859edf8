// kubectl workflows against Deployments: each runs on both sides; the exit code and final output of every
// recorded kubectl command, and the normalized states at the checkpoints, must agree.
import { deploymentInvariants } from '../../helpers/conformance/invariants.js';
import { findDeployment, replicaSetsOf, revisionOf } from '../../helpers/conformance/model.js';
import { deploymentComplete, deploymentCondition } from '../../helpers/conformance/predicates.js';
import type { Check, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, deployment, image, setImage, setStuckImage, type DeploymentOptions } from './builders.js';

const D = 'web';
const create = (o: DeploymentOptions): Step => ({ do: 'create', objects: [deployment(D, o)] });
const complete = (what = 'rollout complete'): Step => ({ do: 'waitFor', what, until: deploymentComplete(D) });

/** A kubectl command in the side's namespace, its exit code and output recorded for comparison. */
const kubectl = (
  record: string,
  args: string[],
  o: { expectFailure?: boolean; lines?: 'last' | 'all' } = {},
): Step => ({
  do: 'kubectl',
  args: [...args, '-n', '{ns}'],
  record,
  ...o,
});
const status = (record: string, timeout = '90s', expectFailure = false): Step =>
  kubectl(record, ['rollout', 'status', `deployment/${D}`, `--timeout=${timeout}`], { expectFailure });

/** The ReplicaSet now carrying `revision` runs image v`v`, and there are `count` ReplicaSets. */
const revisionRuns =
  (revision: number, v: number, count: number) =>
  (s: Snapshot): Check => {
    const d = findDeployment(s, D);
    const rss = d ? replicaSetsOf(s, d) : [];
    if (rss.length !== count) return `${rss.length} replica sets, want ${count}`;
    const rs = rss.find((x) => revisionOf(x) === revision);
    const img = (rs?.spec.template.spec?.containers as Array<{ image?: string }> | undefined)?.[0]?.image;
    return img === image(v) ? true : `revision ${revision} runs ${img ?? 'nothing'}, want ${image(v)}`;
  };

function scenario(name: string, description: string, steps: Step[]): Scenario {
  return { name, kind: 'Deployment', description, steps, invariants: deploymentInvariants(D) };
}

export const KUBECTL_SCENARIOS: readonly Scenario[] = [
  scenario('kubectl-status-success', 'rollout status succeeds once a rollout (create, then update) finishes', [
    create({ replicas: 3 }),
    status('status after create'),
    complete(),
    { do: 'update', kind: 'Deployment', name: D, mutate: setImage(2) },
    status('status after update'),
    complete('updated'),
    compare('rolled out'),
  ]),
  scenario('kubectl-status-deadline', 'rollout status on a stuck rollout reports the exceeded progress deadline', [
    create({ replicas: 2, progressDeadlineSeconds: 10, maxSurge: 1, maxUnavailable: 0 }),
    complete(),
    { do: 'update', kind: 'Deployment', name: D, mutate: setStuckImage(2) },
    status('status of a stuck rollout', '90s', true),
    {
      do: 'waitFor',
      what: 'deadline exceeded',
      until: deploymentCondition(D, 'Progressing', 'False', 'ProgressDeadlineExceeded'),
    },
    compare('deadline exceeded'),
  ]),
  scenario('kubectl-status-timeout', 'rollout status times out on a stuck rollout within its deadline', [
    create({ replicas: 2, maxSurge: 1, maxUnavailable: 0 }),
    complete(),
    { do: 'update', kind: 'Deployment', name: D, mutate: setStuckImage(2) },
    status('status with a 6s timeout', '6s', true),
    // Upstream itself leaves Progressing at NewReplicaSetCreated or moves it to ReplicaSetUpdated here,
    // depending on whether a sync sees the new ReplicaSet's first pod (seen both ways on upstream-1 alone).
    { do: 'compare', label: 'stuck', ignore: ['deployments.web.conditions.Progressing'] },
  ]),
  scenario('kubectl-undo', 'rollout undo returns to the previous template and reuses its ReplicaSet', [
    create({ replicas: 3 }),
    complete(),
    kubectl('set image', ['set', 'image', `deployment/${D}`, `app=${image(2)}`]),
    status('status v2'),
    kubectl('undo', ['rollout', 'undo', `deployment/${D}`]),
    status('status after undo'),
    complete('undone'),
    { do: 'waitFor', what: 'revision 3 is the v1 replica set, reused', until: revisionRuns(3, 1, 2) },
    kubectl('history', ['rollout', 'history', `deployment/${D}`], { lines: 'all' }),
    compare('undone'),
  ]),
  scenario('kubectl-pause-resume', 'rollout pause holds a template change; resume rolls it out', [
    create({ replicas: 2 }),
    complete(),
    kubectl('pause', ['rollout', 'pause', `deployment/${D}`]),
    kubectl('set image while paused', ['set', 'image', `deployment/${D}`, `app=${image(2)}`]),
    {
      do: 'waitFor',
      what: 'paused condition',
      until: deploymentCondition(D, 'Progressing', 'Unknown', 'DeploymentPaused'),
    },
    { do: 'waitFor', what: 'no new replica set', until: revisionRuns(1, 1, 1) },
    compare('paused'),
    kubectl('resume', ['rollout', 'resume', `deployment/${D}`]),
    status('status after resume'),
    complete('resumed'),
    compare('resumed'),
  ]),
  scenario('kubectl-scale', 'kubectl scale up and down', [
    create({ replicas: 2 }),
    complete(),
    kubectl('scale to 5', ['scale', `deployment/${D}`, '--replicas=5']),
    status('status at 5'),
    complete('at 5'),
    compare('at 5'),
    kubectl('scale to 1', ['scale', `deployment/${D}`, '--replicas=1']),
    complete('at 1'),
    compare('at 1'),
  ]),
  scenario('kubectl-restart', 'rollout restart rolls out a new ReplicaSet with a restartedAt annotation', [
    create({ replicas: 2 }),
    complete(),
    kubectl('restart', ['rollout', 'restart', `deployment/${D}`]),
    status('status after restart'),
    complete('restarted'),
    compare('restarted'),
  ]),
];
