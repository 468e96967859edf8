// LeaderWorkerSet revisions: byte-for-byte goldens from upstream's own NewRevision (fixtures/revision-golden.json),
// and upstream's TestApplyRevision, TestEqualRevision, TestSetMatchesRevision, TestGetHighestRevision and
// TestGetUpdatedRevision (revision_utils_test.go, leaderworkerset_controller_test.go, v0.9.0).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision } from '../../../../shared/kube/api/objects.js';
import {
  applyRevision,
  currentRevision,
  equalRevision,
  hashRevision,
  highestRevision,
  newRevision,
  revisionData,
  revisionName,
  revisionPatchData,
  revisionsToTruncate,
  revisionWithKey,
  setMatchesRevision,
  updatedRevision,
} from '../../../../shared/controllers/leaderworkerset/revision.js';
import { typedLeaderWorkerTemplate } from '../../../../shared/controllers/leaderworkerset/typed-json.js';
import type { LeaderWorkerSet } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, LWS, LWS_UID, workerPodSpec } from './builders.js';

type GoldenCase = { name: string; lws: LeaderWorkerSet; revisionName: string; key: string; data: string };
const golden = JSON.parse(readFileSync(new URL('./fixtures/revision-golden.json', import.meta.url), 'utf8')) as {
  cases: GoldenCase[];
};

describe('revision data, hash and name (golden: upstream NewRevision)', () => {
  it.each(golden.cases)('$name', ({ lws, revisionName: name, key, data }) => {
    expect(revisionPatchData(lws)).toBe(data);
    const cr = newRevision(lws, [], '');
    expect(cr.metadata?.name).toBe(name);
    expect(cr.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash']).toBe(key);
    expect(revisionData(cr)).toBe(data);
  });
});

describe('newRevision', () => {
  it('is numbered one past the highest revision it owns, labelled and owned by the LeaderWorkerSet', () => {
    const lws = anLws();
    const first = newRevision(lws, [], '');
    const second = newRevision(lws, [{ ...first, revision: 4 }], '');
    const hash = hashRevision(revisionPatchData(lws));
    expect(second).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${LWS}-${hash}-5`,
        namespace: 'default',
        labels: {
          'leaderworkerset.sigs.k8s.io/name': LWS,
          'leaderworkerset.sigs.k8s.io/template-revision-hash': hash,
        },
        ownerReferences: [
          {
            apiVersion: 'leaderworkerset.x-k8s.io/v1',
            kind: 'LeaderWorkerSet',
            name: LWS,
            uid: LWS_UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: JSON.parse(revisionPatchData(lws)) as object,
      revision: 5,
    });
  });

  it('ignores revisions of another owner or another set', () => {
    const lws = anLws();
    const other = newRevision({ ...lws, metadata: { ...lws.metadata, uid: 'other' } }, [], '');
    const otherSet = newRevision({ ...lws, metadata: { ...lws.metadata, name: 'other' } }, [], '');
    expect(
      newRevision(
        lws,
        [
          { ...other, revision: 7 },
          { ...otherSet, revision: 9 },
        ],
        '',
      ).revision,
    ).toBe(1);
  });

  it('keeps a key it is given (a leader StatefulSet made before revisions existed)', () => {
    const cr = newRevision(anLws(), [], 'oldhash');
    expect(cr.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash']).toBe('oldhash');
    expect(cr.metadata?.name).toBe(`${LWS}-${hashRevision(revisionPatchData(anLws()))}-1`);
  });

  it('cuts the name prefix to 220 characters', () => {
    expect(revisionName('x'.repeat(230), 'h', 3)).toBe(`${'x'.repeat(220)}-h-3`);
  });
});

describe('applyRevision (upstream TestApplyRevision)', () => {
  it('restores leaderWorkerTemplate and networkConfig and nothing else', () => {
    const lws = anLws();
    const revision = newRevision(lws, [], '');
    const changed = anLws({
      spec: {
        networkConfig: { subdomainPolicy: 'UniquePerReplica' },
        rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxUnavailable: 2, maxSurge: 1 } },
      },
    });
    changed.spec.leaderWorkerTemplate.leaderTemplate!.spec!.containers[0]!.name = 'update-name';
    const restored = applyRevision(changed, revision);
    expect(equalRevision(newRevision(restored, [], ''), revision)).toBe(true);
    // Equal as Go types: the data holds Go's encoding (`metadata: {}`, `resources: {}` are zero values).
    expect(typedLeaderWorkerTemplate(restored.spec.leaderWorkerTemplate)).toEqual(
      typedLeaderWorkerTemplate(lws.spec.leaderWorkerTemplate),
    );
    expect(restored.spec.networkConfig).toEqual(lws.spec.networkConfig);
    expect(restored.spec.rolloutStrategy).toEqual(changed.spec.rolloutStrategy);
  });
});

describe('equalRevision (upstream TestEqualRevision)', () => {
  const withVolume = (volume: object) =>
    anLws({
      spec: {
        leaderWorkerTemplate: {
          ...anLws().spec.leaderWorkerTemplate,
          workerTemplate: {
            spec: { containers: [{ ...workerPodSpec().containers[0]!, name: 'leader' }], volumes: [volume as never] },
          },
        },
      },
    });
  const rev = (lws: LeaderWorkerSet | null, key = '') => (lws === null ? null : newRevision(lws, [], key));
  it.each([
    { name: 'same template and networkConfig', left: anLws(), right: anLws(), equal: true },
    {
      name: 'same template and networkConfig, another key',
      left: anLws(),
      right: anLws(),
      rightKey: 'templateHash',
      equal: true,
    },
    {
      name: 'Shared subdomainPolicy and no networkConfig',
      left: anLws(),
      right: { ...anLws(), spec: { ...anLws().spec, networkConfig: undefined } },
      equal: true,
    },
    { name: 'both absent', left: null, right: null, equal: true },
    {
      name: 'a volume with a nil image source and one without: the same template',
      left: withVolume({ name: 'dshm', image: null }),
      right: withVolume({ name: 'dshm' }),
      equal: true,
    },
    { name: 'one absent', left: null, right: anLws(), equal: false },
    {
      name: 'another networkConfig',
      left: anLws({ spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } }),
      right: anLws(),
      equal: false,
    },
    {
      name: 'another template',
      left: anLws(),
      right: anLws({
        spec: {
          leaderWorkerTemplate: {
            ...anLws().spec.leaderWorkerTemplate,
            workerTemplate: { spec: anLws().spec.leaderWorkerTemplate.leaderTemplate!.spec! },
          },
        },
      }),
      equal: false,
    },
  ] as {
    name: string;
    left: LeaderWorkerSet | null;
    right: LeaderWorkerSet | null;
    rightKey?: string;
    equal: boolean;
  }[])('$name: $equal', ({ left, right, rightKey, equal }) => {
    expect(equalRevision(rev(left), rev(right, rightKey))).toBe(equal);
  });
});

describe('setMatchesRevision (upstream TestSetMatchesRevision)', () => {
  it('matches the revision of the same set and not a different proposal', () => {
    const lws = anLws();
    const revision = newRevision(lws, [], '');
    expect(setMatchesRevision(lws, revisionPatchData(lws), revision)).toBe(true);
    expect(setMatchesRevision(lws, '{"spec":{"leaderWorkerTemplate":{"$patch":"replace"}}}', revision)).toBe(false);
  });
});

describe('highestRevision (upstream TestGetHighestRevision)', () => {
  const r = (n: number, name = `r${n}`): ControllerRevision => ({ metadata: { name }, revision: n });
  it.each([
    { name: 'none', revisions: [], want: null },
    { name: 'one', revisions: [r(1)], want: 1 },
    { name: 'the highest number', revisions: [r(2), r(3), r(2)], want: 3 },
  ])('$name', ({ revisions, want }) => {
    expect(highestRevision(revisions)?.revision ?? null).toBe(want);
  });
  it('takes the last of equals', () => {
    expect(highestRevision([r(2, 'a'), r(2, 'b')])?.metadata?.name).toBe('b');
  });
});

describe('updatedRevision (upstream TestGetUpdatedRevision)', () => {
  const lws = anLws();
  const current = newRevision(lws, [], '');
  const modified = (f: (raw: string) => string): ControllerRevision => ({
    ...current,
    data: JSON.parse(f(revisionData(current))) as object,
  });
  it.each([
    { name: 'no leader StatefulSet: none', hasSts: false, revision: current, update: false },
    { name: 'the revision holds the current template: none', hasSts: true, revision: current, update: false },
    {
      name: 'an older serialisation (creationTimestamp null) of the same template: none',
      hasSts: true,
      revision: modified((raw) => raw.replaceAll('"metadata":{}', '"metadata":{"creationTimestamp":null}')),
      update: false,
    },
    {
      name: 'another template: a new revision',
      hasSts: true,
      revision: modified((raw) => raw.replaceAll('"name":"leader"', '"name":"changed"')),
      update: true,
    },
  ])('$name', ({ hasSts, revision, update }) => {
    const got = updatedRevision(lws, hasSts, revision, [revision]);
    expect(got !== null).toBe(update);
    if (got !== null) expect(got.revision).toBe(2);
  });
});

describe('currentRevision (getOrCreateRevisionIfNonExist)', () => {
  const lws = anLws();
  const stsWithKey = (key: string) => ({
    metadata: { labels: { 'leaderworkerset.sigs.k8s.io/template-revision-hash': key } },
  });
  it('a new LeaderWorkerSet: a revision to create, with the event upstream records', () => {
    const got = currentRevision(lws, null, []);
    const key = hashRevision(revisionPatchData(lws));
    expect(got.revision.metadata?.name).toBe(`${LWS}-${key}-1`);
    expect(got.create?.event).toEqual({
      type: 'Normal',
      reason: 'CreatingRevision',
      action: 'Create',
      note: `Creating revision with key ${key} for a newly created LeaderWorkerSet`,
      related: { kind: 'ControllerRevision', name: `${LWS}-${key}-1` },
    });
  });
  it('the revision the leader StatefulSet names: found, nothing to create', () => {
    const existing = newRevision(lws, [], '');
    const key = hashRevision(revisionPatchData(lws));
    expect(currentRevision(lws, stsWithKey(key), [existing])).toEqual({ revision: existing });
  });
  it('a leader StatefulSet whose revision is missing: created under its key', () => {
    const got = currentRevision(lws, stsWithKey('legacy'), []);
    expect(got.revision.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash']).toBe('legacy');
    expect(got.create?.event.note).toBe('Creating missing revision with key legacy for existing LeaderWorkerSet');
  });
});

describe('revisionWithKey and revisionsToTruncate', () => {
  const lws = anLws();
  const a = newRevision(lws, [], 'a');
  const b = { ...newRevision(lws, [a], 'b') };
  const b2 = { ...b, metadata: { ...b.metadata, name: 'b-later' }, revision: 3 };
  it('GetRevision: none for the key "", the highest of several with the key', () => {
    expect(revisionWithKey(lws, [a, b], '')).toBeNull();
    expect(revisionWithKey(lws, [a, b, b2], 'b')?.metadata?.name).toBe('b-later');
    expect(revisionWithKey(lws, [a], 'c')).toBeNull();
  });
  it('TruncateRevisions: every revision of the set with another key', () => {
    expect(revisionsToTruncate(lws, [a, b, b2], 'b')).toEqual([a]);
  });
});
