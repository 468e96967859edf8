// Revision hashes must not change across refactors: a changed hash makes the StatefulSet and DaemonSet controllers
// create a new ControllerRevision (and roll every pod) on upgrade, and the Deployment controller a new ReplicaSet.
// The expected values were computed by the code before it moved to common/ (statefulset/history.ts revisionHash,
// deployment/hash.ts computeHash), for one template with HTML characters, é, U+2028 and quantities.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, PodTemplateSpec } from '../../../../shared/kube/api/objects.js';
import {
  controllerRevisionName,
  hasEqualData,
  hashControllerRevision,
  newControllerRevision,
  sortControllerRevisions,
  templatePatchData,
} from '../../../../shared/controllers/common/controller-history.js';
import { fnv32, fnv32a, safeEncodeString } from '../../../../shared/controllers/common/hash-encoding.js';
import { computeHash } from '../../../../shared/controllers/common/pod-template-hash.js';

const TEMPLATE: PodTemplateSpec = {
  metadata: { labels: { app: 'web', tier: 'a<b&c' } },
  spec: {
    containers: [
      {
        name: 'c',
        image: 'registry.k8s.io/pause:3.9',
        resources: { limits: { cpu: '500m', memory: '1Gi' } },
        env: [{ name: 'X', value: 'é\u2028' }],
      },
    ],
    terminationGracePeriodSeconds: 30,
  },
};

const DATA =
  '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web","tier":"a\\u003cb\\u0026c"}},' +
  '"spec":{"containers":[{"env":[{"name":"X","value":"é\\u2028"}],"image":"registry.k8s.io/pause:3.9","name":"c",' +
  '"resources":{"limits":{"cpu":"500m","memory":"1Gi"}}}],"terminationGracePeriodSeconds":30}}}}';

describe('revision data (getPatch)', () => {
  it('is the template under spec with $patch replace, keys sorted, Go escaping', () => {
    expect(templatePatchData(TEMPLATE)).toBe(DATA);
  });

  it('reads Dates as the JSON strings the apiserver sends', () => {
    const withDate = { metadata: { creationTimestamp: new Date('2025-01-01T00:00:00Z') } };
    expect(templatePatchData(withDate)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":"2025-01-01T00:00:00.000Z"}}}}',
    );
  });

  it('equal data: whatever key order the stored revision has', () => {
    const stored = JSON.parse(DATA) as { spec: { template: Record<string, unknown> } };
    const reordered = { spec: { template: { spec: stored.spec.template.spec, ...stored.spec.template } } };
    expect(hasEqualData({ data: reordered, revision: 1 }, DATA)).toBe(true);
    expect(hasEqualData({ data: { spec: { template: {} } }, revision: 1 }, DATA)).toBe(false);
    expect(hasEqualData({ revision: 1 }, DATA)).toBe(false);
  });
});

describe('hashes are what they were (values from the code before the move)', () => {
  it.each([
    { collisionCount: 0, want: '67df5844df' },
    { collisionCount: 1, want: '67df5844dd' },
    { collisionCount: 2, want: '67df5844f5' },
    { collisionCount: 7, want: '67df5844f8' },
    { collisionCount: 2147483647, want: '5b84d586c5' },
  ])('HashControllerRevision, collisionCount $collisionCount: $want', ({ collisionCount, want }) => {
    expect(hashControllerRevision(DATA, collisionCount)).toBe(want);
  });

  it.each([
    { collisionCount: undefined, want: '57978ddc48' },
    { collisionCount: 0, want: '76f896cd4d' },
    { collisionCount: 1, want: '9bb666f89' },
    { collisionCount: 7, want: '57cb6b6f95' },
    { collisionCount: 2147483647, want: '966c9774d' },
  ])('ComputeHash (pod-template-hash), collisionCount $collisionCount: $want', ({ collisionCount, want }) => {
    expect(computeHash(TEMPLATE, collisionCount)).toBe(want);
  });

  it('FNV-1 and FNV-1a differ, and SafeEncodeString maps each byte', () => {
    expect(fnv32(Buffer.from('hello'))).toBe(3069866343);
    expect(fnv32a(Buffer.from('hello'))).toBe(1335831723);
    expect(safeEncodeString('4294967295')).toBe('86f8fbc6f9');
  });
});

describe('names and order', () => {
  it('ControllerRevisionName cuts the prefix to 223 characters', () => {
    expect(controllerRevisionName('web', 'abc')).toBe('web-abc');
    expect(controllerRevisionName('x'.repeat(230), 'abc')).toBe(`${'x'.repeat(223)}-abc`);
  });

  it('SortControllerRevisions: revision, then creation time, then name', () => {
    const cr = (name: string, revision: number, created: string): ControllerRevision => ({
      metadata: { name, creationTimestamp: created },
      revision,
    });
    const sorted = sortControllerRevisions([
      cr('c', 2, '2025-01-01T00:00:00Z'),
      cr('b', 1, '2025-01-02T00:00:00Z'),
      cr('z', 1, '2025-01-01T00:00:00Z'),
      cr('a', 1, '2025-01-01T00:00:00Z'),
    ]);
    expect(sorted.map((r) => r.metadata?.name)).toEqual(['a', 'z', 'b', 'c']);
  });
});

describe('newControllerRevision', () => {
  const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web' };

  it('is the revision object both controllers write: labels, owner as controller, data parsed, revision', () => {
    expect(
      newControllerRevision({
        owner,
        namespace: 'ns',
        name: 'web-67df5844df',
        labels: { app: 'web', 'controller.kubernetes.io/hash': '67df5844df' },
        annotations: { a: 'b' },
        data: DATA,
        revision: 3,
      }),
    ).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'web-67df5844df',
        namespace: 'ns',
        labels: { app: 'web', 'controller.kubernetes.io/hash': '67df5844df' },
        annotations: { a: 'b' },
        ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }],
      },
      data: JSON.parse(DATA) as object,
      revision: 3,
    });
  });

  it('has no annotations field when the owner has none', () => {
    const cr = newControllerRevision({
      owner,
      namespace: 'ns',
      name: 'n',
      labels: {},
      annotations: {},
      data: '{}',
      revision: 1,
    });
    expect(cr.metadata).not.toHaveProperty('annotations');
  });
});
