// The Kubernetes Events a Deployment plan records (deployment-controller's reasons, messages and types), each
// as `Type Reason: message`, in the order they are recorded once the plan's writes succeed.
import { describe, expect, it } from '@jest/globals';
import { computeHash } from '../../../../shared/controllers/common/pod-template-hash.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { plannedEvents, type Action } from '../../../../shared/kube/actions.js';
import { aDeployment, anRS, NOW, observed, template } from './builders.js';

const NEW = `web-${computeHash(template('app:2'))}`;
const CUR = `web-${computeHash(template('app:1'))}`;
const ROLLBACK = 'deprecated.deployment.rollback.to';
const REVISION = 'deployment.kubernetes.io/revision';

const lines = (actions: readonly Action[]) => plannedEvents(actions).map((e) => `${e.type} ${e.reason}: ${e.message}`);

describe('Deployment plan events', () => {
  it.each([
    {
      name: 'a new Deployment: its ReplicaSet is created at full size',
      d: aDeployment({ replicas: 3 }),
      rss: [],
      want: [`Normal ScalingReplicaSet: Scaled up replica set ${CUR} from 0 to 3`],
      writes: ['create', 'updateStatus'],
    },
    {
      name: 'a new Deployment of 0 replicas: created, no event',
      d: aDeployment({ replicas: 0 }),
      rss: [],
      want: [],
      writes: ['create', 'updateStatus'],
    },
    {
      name: 'template change: the new ReplicaSet is created at the surge, the old one scaled down',
      d: aDeployment({ replicas: 10, image: 'app:2' }),
      rss: [anRS('old', { replicas: 10, available: 10, revision: 1 })],
      want: [
        `Normal ScalingReplicaSet: Scaled up replica set ${NEW} from 0 to 3`,
        'Normal ScalingReplicaSet: Scaled down replica set old from 10 to 8',
      ],
      writes: ['create', 'update', 'updateStatus'],
    },
    {
      name: 'two resizes of one ReplicaSet in a pass (unhealthy first, then available): two events, in order',
      d: aDeployment({ replicas: 10, image: 'app:2' }),
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 5, available: 5, revision: 2, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 6, revision: 1, desired: 10, max: 13 }),
      ],
      want: [
        'Normal ScalingReplicaSet: Scaled down replica set old from 8 to 6',
        'Normal ScalingReplicaSet: Scaled down replica set old from 6 to 3',
      ],
      writes: ['update', 'updateStatus'],
    },
    {
      name: 'scaling event: the one active ReplicaSet takes the new size',
      d: aDeployment({ replicas: 5 }),
      rss: [anRS(CUR, { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 })],
      want: [`Normal ScalingReplicaSet: Scaled up replica set ${CUR} from 3 to 5`],
      writes: ['update', 'updateStatus'],
    },
    {
      name: "the Deployment's annotations copied to its ReplicaSet: an update without an event",
      d: aDeployment({ replicas: 3, annotations: { team: 'a' } }),
      rss: [anRS(CUR, { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 })],
      want: [],
      writes: ['update', 'updateStatus'],
    },
    {
      name: 'old ReplicaSets past revisionHistoryLimit are deleted without an event',
      d: aDeployment({
        replicas: 2,
        revisionHistoryLimit: 0,
        status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
      }),
      rss: [
        anRS(CUR, { replicas: 2, available: 2, revision: 2, desired: 2, max: 3, createdAt: 5 }),
        anRS('old', { image: 'app:0', replicas: 0, actual: 0, revision: 1 }),
      ],
      want: [],
      writes: ['delete', 'updateStatus'],
    },
    {
      name: 'an empty selector: SelectingAll',
      d: { ...aDeployment(), spec: { ...aDeployment().spec, selector: {} } },
      rss: [],
      want: ['Warning SelectingAll: This deployment is selecting all pods. A non-empty selector is required.'],
      writes: ['event', 'updateStatus'],
    },
  ])('$name', ({ d, rss, want, writes }) => {
    const r = planDeployment(observed(d, rss), NOW);
    expect(lines(r.actions)).toEqual(want);
    expect(r.actions.map((a) => a.type)).toEqual(writes);
  });

  it('every event is on the Deployment, from deployment-controller', () => {
    const r = planDeployment(observed(aDeployment({ replicas: 3 }), []), NOW);
    expect(plannedEvents(r.actions)[0]).toMatchObject({
      regarding: {
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        namespace: 'ns',
        name: 'web',
        uid: 'uid-web',
        resourceVersion: '100',
      },
      source: 'deployment-controller',
    });
  });

  it('a failed create of the new ReplicaSet records ReplicaSetCreateError with the error (not on AlreadyExists)', () => {
    const r = planDeployment(observed(aDeployment({ replicas: 3 }), []), NOW);
    const create = r.actions.find((a) => a.type === 'create');
    expect(create?.type === 'create' && create.events?.onFailure).toMatchObject({
      type: 'Warning',
      reason: 'ReplicaSetCreateError',
      message: `Failed to create new replica set "${CUR}": `,
      detail: 'error',
      quietOn: ['AlreadyExists'],
    });
  });
});

describe('rollback (the deprecated rollback annotation)', () => {
  const v1 = anRS(CUR, { replicas: 0, actual: 0, revision: 1, desired: 2, max: 3, createdAt: 0 });
  const v2 = anRS(NEW, { image: 'app:2', replicas: 2, available: 2, revision: 2, desired: 2, max: 3, createdAt: 5 });
  const progressing = {
    type: 'Progressing',
    status: 'True' as const,
    reason: 'NewReplicaSetAvailable',
    message: `ReplicaSet "${NEW}" has successfully progressed.`,
  };
  /** Revision 2 rolled out (its status in sync), with the rollback annotation set to `to`. */
  const at = (to: string) =>
    aDeployment({
      replicas: 2,
      image: 'app:2',
      annotations: { [REVISION]: '2', [ROLLBACK]: to },
      status: { observedGeneration: 1, conditions: [progressing] },
    });
  const deploymentUpdate = (actions: readonly Action[]) => {
    const a = actions.find((x) => x.type === 'update' && x.object.kind === 'Deployment');
    return a?.type === 'update' ? a : undefined;
  };

  it.each([
    {
      name: 'to revision 1: the template of revision 1, DeploymentRollback',
      d: at('1'),
      want: ['Normal DeploymentRollback: Rolled back deployment "web" to revision 1'],
      image: 'app:1',
    },
    {
      name: 'to 0 (the last revision): revision 1',
      d: at('0'),
      want: ['Normal DeploymentRollback: Rolled back deployment "web" to revision 1'],
      image: 'app:1',
    },
    {
      name: 'to a revision no ReplicaSet has',
      d: at('7'),
      want: ['Warning DeploymentRollbackRevisionNotFound: Unable to find the revision to rollback to.'],
      image: 'app:2',
    },
    {
      name: 'to the current template',
      d: at('2'),
      want: [
        'Warning DeploymentRollbackTemplateUnchanged: The rollback revision contains the same template as current deployment "web"',
      ],
      image: 'app:2',
    },
  ])('$name', ({ d, want, image }) => {
    const r = planDeployment(observed(d, [v1, v2]), NOW);
    expect(lines(r.actions)).toEqual(want);
    const update = deploymentUpdate(r.actions)?.object as ReturnType<typeof aDeployment> | undefined;
    expect(update?.metadata.annotations?.[ROLLBACK]).toBeUndefined();
    expect(update?.metadata.resourceVersion).toBe('100');
    expect(update?.spec.template?.spec?.containers[0]?.image).toBe(image);
    expect(update?.spec.template?.metadata?.labels).toEqual({ app: 'web' });
    expect(r.actions.some((a) => a.type === 'updateStatus')).toBe(false);
  });

  it('no last revision (a single ReplicaSet): Unable to find last revision.', () => {
    const r = planDeployment(observed(at('0'), [v2]), NOW);
    expect(lines(r.actions)).toEqual(['Warning DeploymentRollbackRevisionNotFound: Unable to find last revision.']);
  });

  it('a pass that must write status first does only that, and rolls back in the next pass', () => {
    const d = { ...at('1'), status: {} };
    const r = planDeployment(observed(d, [v1, v2]), NOW);
    expect(deploymentUpdate(r.actions)).toBeUndefined();
    expect(r.actions.map((a) => a.type)).toEqual(['updateStatus']);
    expect(r.requeueAfter).toBe(0);
  });

  it('a paused Deployment does not roll back', () => {
    const d = { ...at('1'), spec: { ...at('1').spec, paused: true } };
    expect(deploymentUpdate(planDeployment(observed(d, [v1, v2]), NOW).actions)).toBeUndefined();
  });
});
