// Builders for LeaderWorkerSet tests, after upstream's test/wrappers (BuildLeaderWorkerSet, MakeLeaderPodSpec,
// MakeWorkerPodSpec, MakePodWithLabels): objects described by what the controller reads.
import type { Pod, PodSpec, StatefulSet } from '../../../../shared/kube/api/objects.js';
import {
  GROUP_INDEX_LABEL,
  REVISION_KEY_LABEL,
  SET_NAME_LABEL,
  WORKER_INDEX_LABEL,
  type LeaderWorkerSet,
  type LeaderWorkerSetSpec,
} from '../../../../shared/controllers/leaderworkerset/types.js';

export const NOW = new Date('2026-03-10T10:00:30Z');
export const NS = 'default';
export const LWS = 'test-sample';
export const LWS_UID = 'uid-lws';

export function leaderPodSpec(): PodSpec {
  return { containers: [{ name: 'leader', image: 'docker.io/nginxinc/nginx-unprivileged:1.27' }] };
}

export function workerPodSpec(): PodSpec {
  return {
    containers: [
      {
        name: 'worker',
        image: 'docker.io/nginxinc/nginx-unprivileged:1.27',
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
      },
    ],
  };
}

export type LwsOptions = {
  replicas?: number;
  size?: number;
  partition?: number;
  maxUnavailable?: number | string;
  maxSurge?: number | string;
  generation?: number;
  annotations?: Record<string, string>;
  spec?: Partial<LeaderWorkerSetSpec>;
  status?: LeaderWorkerSet['status'];
};

/** BuildLeaderWorkerSet: two groups of two, a leader template, RollingUpdate(partition 0, maxUnavailable 1, maxSurge 0), Shared. */
export function anLws(o: LwsOptions = {}): LeaderWorkerSet {
  const spec: LeaderWorkerSetSpec = {
    replicas: o.replicas ?? 2,
    leaderWorkerTemplate: {
      restartPolicy: 'RecreateGroupOnPodRestart',
      size: o.size ?? 2,
      leaderTemplate: { spec: leaderPodSpec() },
      workerTemplate: { spec: workerPodSpec() },
    },
    rolloutStrategy: {
      type: 'RollingUpdate',
      rollingUpdateConfiguration: {
        partition: o.partition ?? 0,
        maxUnavailable: o.maxUnavailable ?? 1,
        maxSurge: o.maxSurge ?? 0,
      },
    },
    startupPolicy: 'LeaderCreated',
    networkConfig: { subdomainPolicy: 'Shared' },
    ...o.spec,
  };
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: {
      name: LWS,
      namespace: NS,
      uid: LWS_UID,
      generation: o.generation ?? 1,
      ...(o.annotations !== undefined && { annotations: o.annotations }),
    },
    spec,
    ...(o.status !== undefined && { status: o.status }),
  };
}

export type PodOptions = {
  ready?: boolean;
  phase?: string;
  revision?: string;
  deleting?: boolean;
  restarts?: number;
  extraLabels?: Record<string, string>;
  annotations?: Record<string, string>;
  uid?: string;
  nodeName?: string;
  ownerReferences?: NonNullable<Pod['metadata']>['ownerReferences'];
};

/** A pod of group `group` with worker index `worker` (0: the leader, named `<lws>-<group>`). */
export function aPod(group: number, worker: number, o: PodOptions = {}): Pod {
  const name = worker === 0 ? `${LWS}-${group}` : `${LWS}-${group}-${worker}`;
  const phase = o.phase ?? 'Running';
  return {
    metadata: {
      name,
      namespace: NS,
      uid: o.uid ?? `uid-${name}`,
      labels: {
        [SET_NAME_LABEL]: LWS,
        [GROUP_INDEX_LABEL]: String(group),
        [WORKER_INDEX_LABEL]: String(worker),
        ...(o.revision !== undefined && { [REVISION_KEY_LABEL]: o.revision }),
        ...o.extraLabels,
      },
      ...(o.annotations !== undefined && { annotations: o.annotations }),
      ...(o.deleting === true && { deletionTimestamp: '2026-03-10T10:00:00Z' }),
      ...(o.ownerReferences !== undefined && { ownerReferences: o.ownerReferences }),
    },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(o.nodeName !== undefined && { nodeName: o.nodeName }) },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      containerStatuses: [
        {
          name: 'c',
          image: 'i',
          imageID: '',
          ready: o.ready !== false,
          restartCount: o.restarts ?? 0,
        },
      ],
    },
  };
}

/** The worker StatefulSet of group `group`: ready means available = replicas and current = update revision. */
export function aWorkerSts(
  group: number,
  o: { ready?: boolean; revision?: string; replicas?: number } = {},
): StatefulSet {
  const replicas = o.replicas ?? 1;
  return {
    metadata: {
      name: `${LWS}-${group}`,
      namespace: NS,
      uid: `uid-sts-${group}`,
      labels: {
        [SET_NAME_LABEL]: LWS,
        [GROUP_INDEX_LABEL]: String(group),
        ...(o.revision !== undefined && { [REVISION_KEY_LABEL]: o.revision }),
      },
    },
    spec: { replicas, selector: {}, serviceName: LWS, template: {} },
    status: {
      replicas,
      availableReplicas: o.ready === false ? 0 : replicas,
      currentRevision: 'r1',
      updateRevision: 'r1',
    },
  };
}
