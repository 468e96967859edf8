// The Kubernetes Events a ReplicaSet plan records (replicaset-controller's reasons, messages and types), each as
// `Type Reason: message` once its writes succeed; the created pod's name is appended by the writer, and a
// refused write records its failure event instead (with the apiserver's message appended).
import { describe, expect, it } from '@jest/globals';
import { planReplicaSet } from '../../../../shared/controllers/replicaset/plan.js';
import { plannedEvents, type Action } from '../../../../shared/kube/actions.js';
import { resolveEvent } from '../../../../shared/kube/events/make-event.js';
import { NOW, aPod, aReplicaSet, aStatus, observed, readyPods } from './builders.js';

const steady = (n: number) => aStatus({ replicas: n, fullyLabeledReplicas: n, readyReplicas: n, availableReplicas: n });
const lines = (actions: readonly Action[]) => plannedEvents(actions).map((e) => `${e.type} ${e.reason}: ${e.message}`);
const failures = (actions: readonly Action[]) =>
  actions.flatMap((a) =>
    (a.type === 'create' || a.type === 'delete') && a.events?.onFailure
      ? [`${a.events.onFailure.type} ${a.events.onFailure.reason}: ${a.events.onFailure.message}`]
      : [],
  );

describe('ReplicaSet plan events', () => {
  it.each([
    {
      name: 'scale up: one SuccessfulCreate per pod (name from the create), FailedCreate if refused',
      o: observed(aReplicaSet({ replicas: 3, status: steady(1) }), readyPods(1)),
      want: ['Normal SuccessfulCreate: Created pod: ', 'Normal SuccessfulCreate: Created pod: '],
      failed: ['Warning FailedCreate: Error creating: ', 'Warning FailedCreate: Error creating: '],
    },
    {
      name: 'scale down: one SuccessfulDelete per pod, FailedDelete if refused',
      o: observed(aReplicaSet({ replicas: 1, status: steady(3) }), [
        aPod('ready', { readyFor: 600 }),
        aPod('pending', { phase: 'Pending' }),
        aPod('not-ready'),
      ]),
      want: ['Normal SuccessfulDelete: Deleted pod: pending', 'Normal SuccessfulDelete: Deleted pod: not-ready'],
      failed: ['Warning FailedDelete: Error deleting: ', 'Warning FailedDelete: Error deleting: '],
    },
    {
      name: 'adopting an orphan records nothing',
      o: observed(aReplicaSet({ replicas: 2, status: steady(1) }), [
        ...readyPods(1),
        aPod('orphan', { owner: 'none', readyFor: 600 }),
      ]),
      want: [],
      failed: [],
    },
    {
      name: 'releasing a pod that no longer matches records nothing',
      o: observed(aReplicaSet({ replicas: 1, status: steady(1) }), [
        ...readyPods(1),
        aPod('relabelled', { labels: { app: 'elsewhere' }, readyFor: 600 }),
      ]),
      want: [],
      failed: [],
    },
    {
      name: 'status only: nothing',
      o: observed(aReplicaSet({ replicas: 2, status: steady(1) }), readyPods(2)),
      want: [],
      failed: [],
    },
  ])('$name', ({ o, want, failed }) => {
    const r = planReplicaSet(o, NOW);
    expect(lines(r.actions)).toEqual(want);
    expect(failures(r.actions)).toEqual(failed);
  });

  it('events are on the ReplicaSet, from replicaset-controller; the writer appends the name or the error', () => {
    const r = planReplicaSet(observed(aReplicaSet({ replicas: 1 }), []), NOW);
    const create = r.actions.find((a) => a.type === 'create');
    if (create?.type !== 'create') throw new Error('no create planned');
    const [success] = create.events?.onSuccess ?? [];
    expect(success).toMatchObject({
      regarding: { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', uid: 'uid-rs' },
      source: 'replicaset-controller',
      detail: 'createdName',
    });
    expect(resolveEvent(success!, 'web-x7k2p').message).toBe('Created pod: web-x7k2p');
    const failure = create.events?.onFailure;
    const quota = 'pods "web-" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1';
    expect(resolveEvent(failure!, quota).message).toBe(`Error creating: ${quota}`);
  });
});
