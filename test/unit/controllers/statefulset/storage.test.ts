// volumeClaimTemplates: claims `<claim>-<set>-<ordinal>` created before their pod (the pod by the next pass that
// finds them), a pod mounting them; persistentVolumeClaimRetentionPolicy through the claims' ownerReferences.
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import { planStatefulSet } from '../../../../shared/controllers/statefulset/plan.js';
import { claimOwnerRefs, isClaimOwnerUpToDate } from '../../../../shared/controllers/statefulset/storage.js';
import { aClaim, aPod, aSet, DATA_TEMPLATE, NOW, observed, revOf, SET_UID, type SetOptions } from './builders.js';
import { eventsOf, summarize } from './summary.js';

const withData = (o: SetOptions = {}) => aSet({ volumeClaimTemplates: [DATA_TEMPLATE], ...o });
const policy = (whenScaled: string, whenDeleted: string) =>
  withData({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenScaled, whenDeleted } });
const SET = { kind: 'StatefulSet', name: 'web', uid: SET_UID };
const pod = (n: number) => ({ kind: 'Pod', name: `web-${n}`, uid: `uid-pod-${n}` });

describe('claims before pods', () => {
  const set = withData();
  const R1 = revOf(set);
  it.each([
    {
      name: 'no claim: the claim alone, looked at again at once',
      o: observed(set),
      want: {
        actions: ['create PersistentVolumeClaim data-web-0', expect.stringMatching(/^status /)],
        requeueAfter: 0,
      },
    },
    {
      name: 'the claim exists: the pod',
      o: observed(set, [], undefined, [aClaim('data-web-0')]),
      want: { actions: [`create Pod web-0 (${R1})`, expect.stringMatching(/^status /)] },
    },
    {
      name: 'the claim is being deleted: no pod, retried later',
      o: observed(set, [], undefined, [
        { ...aClaim('data-web-0'), metadata: { ...aClaim('data-web-0').metadata, deletionTimestamp: wireTime(NOW) } },
      ]),
      want: { actions: [expect.stringMatching(/^status /)], requeueAfter: 5000 },
    },
    {
      name: 'whenScaled Delete: a claim still owned by an earlier web-0 (stale) holds the pod back',
      o: observed(policy('Delete', 'Retain'), [], undefined, [aClaim('data-web-0', [{ ...pod(0), uid: 'old' }])]),
      want: { actions: [expect.stringMatching(/^status /)], requeueAfter: 5000 },
    },
    {
      name: 'a Pending pod whose claim went missing gets it again',
      o: observed(set, [aPod(set, 0, 'pending')]),
      want: { actions: ['create PersistentVolumeClaim data-web-0', expect.stringMatching(/^status /)] },
    },
  ])('$name', ({ o, want }) => expect(summarize(planStatefulSet(o, NOW))).toEqual(want));

  it('the pod mounts its claim; the claim carries the selector labels; events are upstream messages', () => {
    const created = planStatefulSet(observed(set, [], undefined, [aClaim('data-web-0')]), NOW).actions[0];
    expect(created).toMatchObject({
      object: { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } }] } },
    });
    const claim = planStatefulSet(observed(set), NOW);
    expect(claim.actions[0]).toMatchObject({
      object: { metadata: { name: 'data-web-0', namespace: 'ns', labels: { app: 'web' } }, spec: DATA_TEMPLATE.spec },
    });
    expect(eventsOf(claim)).toEqual(['SuccessfulCreate: Create Claim data-web-0 Pod web-0 in StatefulSet web success']);
  });
});

describe('retention policy', () => {
  it.each([
    { name: 'Retain/Retain: no owner', set: policy('Retain', 'Retain'), ordinal: 0, want: [] },
    { name: 'Retain/Delete: the set', set: policy('Retain', 'Delete'), ordinal: 0, want: ['StatefulSet/web'] },
    { name: 'Delete/Retain, in range: no owner', set: policy('Delete', 'Retain'), ordinal: 0, want: [] },
    { name: 'Delete/Retain, scaled down: the pod', set: policy('Delete', 'Retain'), ordinal: 1, want: ['Pod/web-1'] },
    {
      name: 'Delete/Delete, in range: the set',
      set: policy('Delete', 'Delete'),
      ordinal: 0,
      want: ['StatefulSet/web'],
    },
    { name: 'Delete/Delete, scaled down: the pod', set: policy('Delete', 'Delete'), ordinal: 1, want: ['Pod/web-1'] },
  ])('$name', ({ set, ordinal, want }) => {
    const p: Pod = aPod(set, ordinal);
    const refs = claimOwnerRefs(aClaim(`data-web-${ordinal}`), set, p);
    expect(refs.map((r) => `${r.kind}/${r.name}`)).toEqual(want);
    expect(refs.every((r) => r.controller === true && r.blockOwnerDeletion === true)).toBe(true);
    expect(
      isClaimOwnerUpToDate({ ...aClaim('c'), metadata: { ...aClaim('c').metadata, ownerReferences: refs } }, set, p),
    ).toBe(true);
  });

  it('another controller: left alone, with a ConflictingController event only when ours are on it too', () => {
    const set = policy('Retain', 'Delete');
    const other = { kind: 'Other', name: 'x', uid: 'uid-x' };
    expect(isClaimOwnerUpToDate(aClaim('data-web-0', [other]), set, aPod(set, 0))).toBe(true);
    expect(isClaimOwnerUpToDate(aClaim('data-web-0', [other, SET]), set, aPod(set, 0))).toBe(false);
    expect(claimOwnerRefs(aClaim('data-web-0', [other, SET]), set, aPod(set, 0)).map((r) => r.kind)).toEqual(['Other']);
  });

  it.each([
    {
      name: 'whenDeleted Delete: a Ready pod whose claim has no owner: the claim names the set, the pod is updated',
      set: policy('Retain', 'Delete'),
      pods: [0],
      claims: [aClaim('data-web-0')],
      want: ['update PersistentVolumeClaim data-web-0 owners [StatefulSet/web]', 'update Pod web-0'],
    },
    {
      name: "whenScaled Delete: the condemned pod's claim names the pod first, alone (the delete: next pass)",
      set: policy('Delete', 'Retain'),
      pods: [0, 1],
      claims: [aClaim('data-web-0'), aClaim('data-web-1')],
      want: ['update PersistentVolumeClaim data-web-1 owners [Pod/web-1]'],
    },
    {
      name: "Delete/Delete scaled down: the set's reference gives way to the pod's",
      set: policy('Delete', 'Delete'),
      pods: [0, 1],
      claims: [aClaim('data-web-0', [SET]), aClaim('data-web-1', [SET])],
      want: ['update PersistentVolumeClaim data-web-1 owners [Pod/web-1]'],
    },
    {
      name: 'Delete/Delete scaled down, the claim already the pod’s: the pod is deleted',
      set: policy('Delete', 'Delete'),
      pods: [0, 1],
      claims: [aClaim('data-web-0', [SET]), aClaim('data-web-1', [pod(1)])],
      want: ['delete Pod web-1'],
    },
  ])('$name', ({ set, pods, claims, want }) => {
    const result = summarize(
      planStatefulSet(
        observed(
          set,
          pods.map((n) => aPod(set, n)),
          undefined,
          claims,
        ),
        NOW,
      ),
    );
    expect(result.actions.filter((a) => !a.startsWith('status '))).toEqual(want);
  });
});

describe('refusals upstream records', () => {
  it('a retention update of a pod in range records FailedUpdate if refused; of a condemned pod, nothing', () => {
    const set = policy('Delete', 'Delete');
    const inRange = planStatefulSet(observed(set, [aPod(set, 0)], undefined, [aClaim('data-web-0')]), NOW);
    const update = inRange.actions.find((a) => a.type === 'update' && a.object.kind === 'PersistentVolumeClaim');
    expect(update).toMatchObject({
      events: { onFailure: { reason: 'FailedUpdate', message: 'Update Pod web-0 in StatefulSet web failed error: ' } },
    });
    const scaled = withData({ replicas: 0, persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' } });
    const condemned = planStatefulSet(
      observed(scaled, [aPod(scaled, 0)], undefined, [aClaim('data-web-0', [SET])]),
      NOW,
    );
    const claim = condemned.actions.find((a) => a.type === 'update' && a.object.kind === 'PersistentVolumeClaim');
    expect(claim).toBeDefined();
    expect(claim).not.toHaveProperty('events');
  });
});
