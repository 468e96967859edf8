// volumeClaimPolicies (volume_claim_policy.go, v0.12.0): the claims `<template>-<jobset>` created before the Jobs
// when missing, owned by the JobSet under whenDeleted Delete and not under Retain, and the claim volumes of the
// templates a Job's containers mount. Cases after upstream's volume_claim_policy_test.go.
import { describe, expect, it } from '@jest/globals';
import type { Action } from '../../../../shared/kube/actions.js';
import { ReconcileError } from '../../../../shared/kube/errors.js';
import { observeJobSet } from '../../../../shared/controllers/jobset/observe.js';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { JobSet, ReplicatedJob, VolumeClaimPolicy } from '../../../../shared/controllers/jobset/types.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';
import { aJobSet, aReplicatedJob, JS, NOW, NS, observed } from './builders.js';

const template = (name: string, labels?: Record<string, string>) => ({
  metadata: { name, ...(labels && { labels }), annotations: { 'example.com/tier': 'fast' } },
  spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
});

const policies: VolumeClaimPolicy[] = [
  { templates: [template('dataset', { team: 'ml' })], retentionPolicy: { whenDeleted: 'Delete' } },
  { templates: [template('checkpoints')], retentionPolicy: { whenDeleted: 'Retain' } },
];

/** A replicatedJob whose container mounts `mounts` (and an init container mounting `initMounts`). */
function mounting(name: string, mounts: string[], initMounts: string[] = []): ReplicatedJob {
  const rj = aReplicatedJob(name);
  const pod = rj.template.spec!.template!.spec!;
  pod.containers = [
    { name: 'c', image: 'busybox', volumeMounts: mounts.map((m) => ({ name: m, mountPath: `/${m}` })) },
  ];
  if (initMounts.length > 0)
    pod.initContainers = [
      { name: 'init', image: 'busybox', volumeMounts: initMounts.map((m) => ({ name: m, mountPath: `/${m}` })) },
    ];
  return rj;
}

const withClaims = (replicatedJobs: ReplicatedJob[] = [aReplicatedJob('a')]): JobSet =>
  aJobSet({ replicatedJobs, volumeClaimPolicies: policies });

const created = (actions: readonly Action[]) => actions.flatMap((a) => (a.type === 'create' ? [a.object] : []));

describe('volumeClaimPolicies', () => {
  it('missing claims are created before the Jobs: template labels + jobset-name, owned only under Delete', () => {
    const { actions } = planJobSet(
      observed(withClaims(), [], undefined, { [`dataset-${JS}`]: null, [`checkpoints-${JS}`]: null }),
      NOW,
    );
    const objects = created(actions);
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      `PersistentVolumeClaim/dataset-${JS}`,
      `PersistentVolumeClaim/checkpoints-${JS}`,
      `Job/${JS}-a-0`,
    ]);
    const [dataset, checkpoints] = objects;
    expect(dataset?.metadata).toEqual({
      name: `dataset-${JS}`,
      namespace: NS,
      labels: { team: 'ml', 'jobset.sigs.k8s.io/jobset-name': JS },
      annotations: { 'example.com/tier': 'fast' },
      ownerReferences: [
        {
          apiVersion: 'jobset.x-k8s.io/v1alpha2',
          kind: 'JobSet',
          name: JS,
          uid: 'uid-js',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect((dataset as { spec?: unknown }).spec).toEqual(template('dataset').spec);
    expect(checkpoints?.metadata?.ownerReferences).toBeUndefined();
  });

  it('a claim there already is not created again; a refused create records PVCCreationFailed, quiet on AlreadyExists', () => {
    const { actions } = planJobSet(
      observed(withClaims(), [], undefined, {
        [`dataset-${JS}`]: { metadata: { name: `dataset-${JS}` } },
        [`checkpoints-${JS}`]: null,
      }),
      NOW,
    );
    const claims = actions.filter((a) => a.type === 'create' && a.object.kind === 'PersistentVolumeClaim');
    expect(claims.map((a) => (a.type === 'create' ? a.object.metadata?.name : ''))).toEqual([`checkpoints-${JS}`]);
    const onFailure = claims[0]?.type === 'create' ? claims[0].events?.onFailure : undefined;
    expect(onFailure).toMatchObject({ reason: 'PVCCreationFailed', type: 'Warning', quietOn: ['AlreadyExists'] });
  });

  it('a plan without the claims read fails the pass rather than guess', () => {
    expect(() => planJobSet(observed(withClaims()), NOW)).toThrow(ReconcileError);
  });

  it('a Job gets the volumes of the templates its containers or init containers mount, and no others', () => {
    const js = withClaims([mounting('trainer', ['dataset', 'scratch']), mounting('loader', [], ['checkpoints'])]);
    const claims = { [`dataset-${JS}`]: null, [`checkpoints-${JS}`]: null };
    const jobs = created(planJobSet(observed(js, [], undefined, claims), NOW).actions).filter((o) => o.kind === 'Job');
    const volumes = (name: string) =>
      (jobs.find((j) => j.metadata?.name === name) as { spec: { template: { spec: { volumes?: unknown[] } } } }).spec
        .template.spec.volumes;
    expect(volumes(`${JS}-trainer-0`)).toEqual([
      { name: 'dataset', persistentVolumeClaim: { claimName: `dataset-${JS}` } },
    ]);
    expect(volumes(`${JS}-loader-0`)).toEqual([
      { name: 'checkpoints', persistentVolumeClaim: { claimName: `checkpoints-${JS}` } },
    ]);
  });

  it('observe reads each claim the policies name, null when missing', async () => {
    const js = withClaims();
    const existing = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `dataset-${JS}`, namespace: NS },
    };
    const requests: string[] = [];
    const objects: ApiObject[] = [js, existing];
    const view: ClusterView = {
      cluster: 'c',
      get: async <T extends ApiObject>(kind: string, _ns: string, name: string) => {
        requests.push(`GET ${kind} ${name}`);
        return (objects.find((o) => o.kind === kind && o.metadata?.name === name) ?? null) as T | null;
      },
      list: async <T extends ApiObject>(kind: string) => objects.filter((o) => o.kind === kind) as T[],
    };
    const got = await observeJobSet(view, { cluster: 'c', kind: 'JobSet', namespace: NS, name: JS });
    expect(got.claims).toEqual({ [`dataset-${JS}`]: existing, [`checkpoints-${JS}`]: null });
    expect(requests.filter((r) => r.includes('PersistentVolumeClaim'))).toEqual([
      `GET PersistentVolumeClaim dataset-${JS}`,
      `GET PersistentVolumeClaim checkpoints-${JS}`,
    ]);
  });
});
