// The objects the controller makes: upstream's TestGetPVCApplyConfiguration (controller_utils_test.go), named cases
// of TestLeaderStatefulSetApplyConfig and TestConstructWorkerStatefulSetApplyConfiguration (the full objects are
// compared with upstream's in upstream-golden.test.ts), and the headless Services.
import { describe, expect, it } from '@jest/globals';
import {
  groupHeadlessService,
  sharedHeadlessService,
} from '../../../../shared/controllers/leaderworkerset/headless-service.js';
import {
  claimTemplates,
  leaderStatefulSet,
} from '../../../../shared/controllers/leaderworkerset/leader-statefulset.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { workerStatefulSet } from '../../../../shared/controllers/leaderworkerset/worker-statefulset.js';
import type { PersistentVolumeClaim } from '../../../../shared/controllers/leaderworkerset/types.js';
import { anLws, aPod, LWS, LWS_UID } from './builders.js';

describe('claimTemplates (upstream TestGetPVCApplyConfiguration)', () => {
  const withClaims = (claims: PersistentVolumeClaim[]) =>
    anLws({ spec: { leaderWorkerTemplate: { ...anLws().spec.leaderWorkerTemplate, volumeClaimTemplates: claims } } });
  it('none', () => expect(claimTemplates(anLws())).toEqual([]));
  it('one with every field: only name, access modes, class, mode and resources are kept', () => {
    const lws = withClaims([
      {
        metadata: { name: 'pvc1', labels: { dropped: 'yes' } },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
          selector: { matchLabels: { dropped: 'yes' } },
        },
      },
    ]);
    expect(claimTemplates(lws)).toEqual([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'pvc1', namespace: 'default' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
        },
      },
    ]);
  });
  it('several with some fields', () => {
    const lws = withClaims([
      { metadata: { name: 'pvc1' }, spec: { accessModes: ['ReadWriteOnce'] } },
      { metadata: { name: 'pvc2' }, spec: { accessModes: ['ReadWriteMany'], storageClassName: 'fast' } },
    ]);
    expect(claimTemplates(lws).map((c) => c.spec)).toEqual([
      { accessModes: ['ReadWriteOnce'] },
      { accessModes: ['ReadWriteMany'], storageClassName: 'fast' },
    ]);
  });
});

describe('leaderStatefulSet (constructLeaderStatefulSetApplyConfiguration)', () => {
  it('names, selects and labels the leaders, sized by replicas, partitioned, owned by the LeaderWorkerSet', () => {
    const sts = leaderStatefulSet(anLws({ replicas: 3, maxUnavailable: 1, maxSurge: 1 }), 2, 4, 'key1');
    expect(sts.metadata).toEqual({
      name: LWS,
      namespace: 'default',
      labels: { 'leaderworkerset.sigs.k8s.io/name': LWS, 'leaderworkerset.sigs.k8s.io/template-revision-hash': 'key1' },
      annotations: { 'leaderworkerset.sigs.k8s.io/replicas': '3' },
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
    });
    expect(sts.spec).toMatchObject({
      serviceName: LWS,
      replicas: 4,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 2 } },
      selector: {
        matchLabels: { 'leaderworkerset.sigs.k8s.io/name': LWS, 'leaderworkerset.sigs.k8s.io/worker-index': '0' },
      },
    });
    expect(sts.spec?.template.metadata).toEqual({
      labels: {
        'leaderworkerset.sigs.k8s.io/worker-index': '0',
        'leaderworkerset.sigs.k8s.io/name': LWS,
        'leaderworkerset.sigs.k8s.io/template-revision-hash': 'key1',
      },
      annotations: { 'leaderworkerset.sigs.k8s.io/size': '2' },
    });
    expect(sts.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['leader']);
  });
  it('the worker template when there is no leader template; UniquePerReplica annotated', () => {
    const lws = anLws({ spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } });
    delete lws.spec.leaderWorkerTemplate.leaderTemplate;
    const sts = leaderStatefulSet(lws, 0, 2, 'k');
    expect(sts.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['worker']);
    expect(sts.spec?.template.metadata?.annotations?.['leaderworkerset.sigs.k8s.io/subdomainPolicy']).toBe(
      'UniquePerReplica',
    );
  });
});

describe('workerStatefulSet (constructWorkerStatefulSetApplyConfiguration)', () => {
  const leader = aPod(1, 0, {
    revision: 'old-key',
    extraLabels: { 'leaderworkerset.sigs.k8s.io/group-key': 'gk' },
  });
  it('named after the leader, owned by it, size - 1 workers from ordinal 1', () => {
    const lws = anLws({ size: 4 });
    const sts = workerStatefulSet(leader, lws, newRevision(lws, [], ''));
    expect(sts.metadata?.name).toBe(`${LWS}-1`);
    expect(sts.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: `${LWS}-1`,
        uid: `uid-${LWS}-1`,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(sts.spec).toMatchObject({
      replicas: 3,
      ordinals: { start: 1 },
      podManagementPolicy: 'Parallel',
      serviceName: LWS,
    });
    expect(sts.spec?.selector).toEqual({
      matchLabels: {
        'leaderworkerset.sigs.k8s.io/group-index': '1',
        'leaderworkerset.sigs.k8s.io/name': LWS,
        'leaderworkerset.sigs.k8s.io/group-key': 'gk',
      },
    });
    expect(sts.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash']).toBe('old-key');
  });
  it("takes the worker template of the leader's revision, not the LeaderWorkerSet's current one", () => {
    const before = anLws();
    const after = anLws();
    after.spec.leaderWorkerTemplate.workerTemplate.spec!.containers[0]!.image = 'new-image';
    const sts = workerStatefulSet(leader, after, newRevision(before, [], ''));
    expect(sts.spec?.template.spec?.containers[0]?.image).toBe('docker.io/nginxinc/nginx-unprivileged:1.27');
  });
  it('a leader requesting TPUs marks its workers', () => {
    const tpuLeader = aPod(0, 0, { revision: 'k' });
    tpuLeader.spec!.containers[0]!.resources = { requests: { 'google.com/tpu': '4' } };
    const sts = workerStatefulSet(tpuLeader, anLws(), newRevision(anLws(), [], ''));
    expect(sts.spec?.template.metadata?.annotations?.['leaderworkerset.sigs.k8s.io/leader-requests-tpus']).toBe('true');
  });
});

describe('headless Services (CreateHeadlessServiceIfNotExists)', () => {
  it('Shared: one for the set, selecting its pods, owned by it', () => {
    expect(sharedHeadlessService(anLws())).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: LWS,
        namespace: 'default',
        labels: { 'leaderworkerset.sigs.k8s.io/name': LWS },
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
      spec: {
        clusterIP: 'None',
        selector: { 'leaderworkerset.sigs.k8s.io/name': LWS },
        publishNotReadyAddresses: true,
      },
    });
    expect(groupHeadlessService(anLws(), aPod(0, 0))).toBeNull();
  });
  it('no networkConfig reads as Shared', () => {
    const lws = anLws();
    delete lws.spec.networkConfig;
    expect(sharedHeadlessService(lws)?.metadata.name).toBe(LWS);
  });
  it('UniquePerReplica: one per leader pod, selecting its group, owned by the pod', () => {
    const lws = anLws({ spec: { networkConfig: { subdomainPolicy: 'UniquePerReplica' } } });
    expect(sharedHeadlessService(lws)).toBeNull();
    const svc = groupHeadlessService(lws, aPod(2, 0));
    expect(svc?.metadata).toMatchObject({
      name: `${LWS}-2`,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: `${LWS}-2`, uid: `uid-${LWS}-2` }],
    });
    expect(svc?.spec?.selector).toEqual({
      'leaderworkerset.sigs.k8s.io/name': LWS,
      'leaderworkerset.sigs.k8s.io/group-index': '2',
    });
  });
});
