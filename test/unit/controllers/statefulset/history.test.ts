// Revisions: the hash is history.HashControllerRevision (checked against a revision kube-controller-manager
// v1.37.2 wrote on upstream-1), a rollback raises the equal revision's number, a taken name with other data raises
// collisionCount, old revisions beyond revisionHistoryLimit go unless a pod still carries them.
import { describe, expect, it } from '@jest/globals';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import { hashControllerRevision as revisionHash } from '../../../../shared/controllers/common/controller-history.js';
import { revisionData, revisionName } from '../../../../shared/controllers/statefulset/history.js';
import { planStatefulSet } from '../../../../shared/controllers/statefulset/plan.js';
import { aPod, aRevision, aSet, NOW, observed, revOf } from './builders.js';
import { summarize } from './summary.js';

/** A StatefulSet as upstream-1 returned it (defaults applied) and the revision name it got there. */
const CAPTURED: StatefulSet = {
  metadata: { name: 'web', namespace: 'ns', annotations: { a: 'b<>&' } },
  spec: {
    replicas: 2,
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            env: [{ name: 'X', value: 'a<b' }],
            image: 'registry.k8s.io/pause:3.9',
            imagePullPolicy: 'IfNotPresent',
            name: 'c',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    },
  },
};

const v = (image: number, o = {}) => aSet({ image: `web:${image}`, ...o });
const R = (image: number) => revOf(v(image));

describe('revisions', () => {
  it('hash and name as kube-controller-manager v1.37.2 wrote them (captured on upstream-1)', () => {
    expect(revisionName(CAPTURED, revisionHash(revisionData(CAPTURED), 0))).toBe('web-7d4784cbb7');
    expect(revisionData(CAPTURED)).toContain('"value":"a\\u003cb"');
    // The revision carries its hash in controller.kubernetes.io/hash (seen on upstream-1); pods carry its name.
    expect(aRevision(aSet(), 1).metadata?.labels).toEqual({
      app: 'web',
      'controller.kubernetes.io/hash': revOf(aSet()).slice(4),
    });
  });

  it.each([
    {
      name: 'rollback: the older equal revision is raised to the next number',
      o: observed(v(1, { status: { currentRevision: R(2) } }), [], [aRevision(v(1), 1), aRevision(v(2), 2)]),
      want: [`update ControllerRevision ${R(1)} revision 3`],
    },
    {
      name: 'a new template: a new revision after the latest',
      o: observed(v(3, { status: { currentRevision: R(2) } }), [], [aRevision(v(1), 1), aRevision(v(2), 2)]),
      want: [`create ControllerRevision ${R(3)} revision 3`],
    },
    {
      name: 'revisionHistoryLimit 1: the oldest unused old revision goes',
      o: observed(
        v(3, { revisionHistoryLimit: 1, status: { currentRevision: R(3) } }),
        [],
        [aRevision(v(1), 1), aRevision(v(2), 2), aRevision(v(3), 3)],
      ),
      want: [`delete ControllerRevision ${R(1)}`],
    },
    {
      name: 'revisionHistoryLimit 0: an old revision a pod carries stays',
      o: observed(
        v(3, { replicas: 1, revisionHistoryLimit: 0, status: { currentRevision: R(3) } }),
        [aPod(v(1), 0)],
        [aRevision(v(1), 1), aRevision(v(2), 2), aRevision(v(3), 3)],
      ),
      want: [`delete ControllerRevision ${R(2)}`],
    },
  ])('$name', ({ o, want }) => {
    const lines = summarize(planStatefulSet(o, NOW)).actions.filter((a) => a.includes('ControllerRevision'));
    expect(lines).toEqual(want);
  });

  it('a taken name with other data: collisionCount raised alone, looked at again at once', () => {
    const set = v(2);
    const taken = { ...aRevision(v(1), 1, 'uid-other'), metadata: { ...aRevision(v(1), 1).metadata, name: R(2) } };
    const result = summarize(planStatefulSet({ ...observed(set, [], []), nameTaken: taken }, NOW));
    expect(result).toEqual({ actions: [`status r=0 ready=0 avail=0 cur=0 upd=0 -> gen=1 cc=1`], requeueAfter: 0 });
  });

  it('a taken name with the same data is the update revision (no create)', () => {
    const set = v(2);
    const result = summarize(planStatefulSet({ ...observed(set, [], []), nameTaken: aRevision(set, 4) }, NOW));
    expect(result.actions[0]).toBe(`create Pod web-0 (${R(2)})`);
  });

  it('collisionCount changes the hash', () => {
    const data = revisionData(v(1));
    expect(revisionHash(data, 1)).not.toBe(revisionHash(data, 0));
  });
});

describe('status', () => {
  it('minReadySeconds: ready but not yet available pods are counted apart and looked at again', () => {
    const set = aSet({ replicas: 1, minReadySeconds: 30 });
    const result = summarize(planStatefulSet(observed(set, [aPod(set, 0, { readyFor: 10 })]), NOW));
    expect(result).toEqual({
      actions: [`status r=1 ready=1 avail=0 cur=1 upd=1 ${revOf(set)}->${revOf(set)} gen=1 cc=0`],
      requeueAfter: 30_000,
    });
  });

  it('a newer generation alone is written', () => {
    const set = aSet({
      replicas: 0,
      generation: 2,
      status: { observedGeneration: 1, currentRevision: revOf(aSet()), updateRevision: revOf(aSet()) },
    });
    expect(summarize(planStatefulSet(observed(set), NOW)).actions).toEqual([
      `status r=0 ready=0 avail=0 cur=0 upd=0 ${revOf(set)}->${revOf(set)} gen=2 cc=0`,
    ]);
  });
});
