// The compact case descriptions of fixtures/upstream-golden.json, expanded into objects exactly as the generator
// expanded them for upstream's Go code.
import { readFileSync } from 'node:fs';
import type { Pod, StatefulSet } from '../../../../shared/kube/api/objects.js';
import type {
  Condition,
  LeaderWorkerSet,
  LeaderWorkerSetStatus,
} from '../../../../shared/controllers/leaderworkerset/types.js';

const NS = 'default';
const NAME = 'test-sample';
const LBL = 'leaderworkerset.sigs.k8s.io/';
export const LEADERS_SELECTOR = `${LBL}name=${NAME},${LBL}worker-index=0`;
const CONDITION_TIME = '2026-03-10T09:00:00Z';

export type CompactStatus = {
  conditions?: string[];
  readyReplicas?: number;
  updatedReplicas?: number;
  replicas?: number;
  hpaPodSelector?: string;
  observedGeneration?: number;
};

export type CompactLws = {
  replicas?: number;
  size?: number;
  mu?: number | string;
  ms?: number | string;
  partition?: number;
  policy?: string;
  annotations?: Record<string, string>;
  generation?: number;
  status?: CompactStatus;
  subdomain?: string | null;
  leader?: boolean;
  subgroup?: { subGroupSize?: number; subGroupPolicyType?: string };
  claims?: boolean;
  workerImage?: string;
};

export type CompactPod = {
  g: number;
  w: number;
  ready?: boolean;
  phase?: string;
  key?: string;
  restarts?: number;
  initRestarts?: number;
  deleting?: boolean;
  owner?: [string, string, string];
  /** spec.nodeName */
  node?: string;
  /** The workers-only leader-name annotation (on a leader: upstream's misconfiguration check). */
  leaderNameAnn?: boolean;
};

export type CompactSts = {
  g: number;
  ready?: boolean;
  key?: string;
  replicas?: number;
  updateRevision?: string;
  uid?: string;
  owner?: [string, string, string];
};

export type GoldenEvent = { type: string; reason: string; action: string; note: string; related?: string };

export type GoldenCase = {
  name: string;
  fn:
    | 'rollingUpdateParameters'
    | 'updateStatus'
    | 'leaderStatefulSet'
    | 'workerStatefulSet'
    | 'restartPolicy'
    | 'reconcile';
  /** reconcile: the leader StatefulSet's revision key. */
  stsKey?: string;
  /** reconcile: revisions that exist (NewRevision of each LeaderWorkerSet, with this number). */
  revisions?: { lws: CompactLws; revision: number }[];
  serviceExists?: boolean;
  /** podReconcile: the pod reconciled, spec.startupPolicy, revisions' keys, Services by name, Node n1's labels. */
  target?: CompactPod;
  startup?: string;
  revisionKeys?: string[];
  services?: string[];
  nodeLabels?: Record<string, string> | null;
  lws: CompactLws;
  sts?: [number, number, number, number];
  updated?: boolean;
  revisionKey?: string;
  pods?: CompactPod[];
  statefulSets?: CompactSts[];
  pod?: CompactPod;
  groupKey?: string;
  tpu?: boolean;
  revisionLws?: CompactLws;
  partition?: number;
  replicas?: number;
  want: {
    events: GoldenEvent[];
    error?: string;
    partition?: number;
    replicas?: number;
    written?: boolean;
    updateDone?: boolean;
    status?: CompactStatus;
    object?: Record<string, unknown>;
    leaderDeleted?: boolean;
    remainingPods?: string[];
    requeueAfterMs?: number;
    revisions?: string[];
    leaderStatefulSet?: Record<string, unknown>;
    serviceExists?: boolean;
    pods?: string[];
    statefulSets?: Record<string, unknown>;
    services?: string[];
  };
};

export function loadGolden(file = 'upstream-golden.json'): GoldenCase[] {
  const doc = JSON.parse(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8')) as {
    cases: GoldenCase[];
  };
  return doc.cases;
}

const MESSAGES: Record<string, [string, string]> = {
  Available: ['AllGroupsReady', 'All replicas are ready'],
  Progressing: ['GroupsProgressing', 'Replicas are progressing'],
  UpdateInProgress: ['GroupsUpdating', 'Rolling Upgrade is in progress'],
};

/** `Type=Status@generation` as a condition with makeCondition's reason and message. */
export function expandCondition(s: string): Condition {
  const m = /^(\w+)=(\w+)@(\d+)$/.exec(s);
  if (m === null) throw new Error(`bad condition ${s}`);
  const [reason, message] = MESSAGES[m[1]!]!;
  return {
    type: m[1]!,
    status: m[2] as Condition['status'],
    reason,
    message,
    observedGeneration: Number(m[3]),
    lastTransitionTime: CONDITION_TIME,
  };
}

export function expandStatus(s: CompactStatus): LeaderWorkerSetStatus {
  const { conditions: _compact, ...counts } = s;
  const out: LeaderWorkerSetStatus = { ...counts };
  if (s.conditions !== undefined) out.conditions = s.conditions.map(expandCondition);
  if (s.hpaPodSelector !== undefined) {
    out.hpaPodSelector = s.hpaPodSelector === '<leaders>' ? LEADERS_SELECTOR : s.hpaPodSelector;
  }
  return out;
}

/** A status as the fixture writes it (conditions compacted, zero counts absent as Go's omitempty leaves them). */
export function compactStatus(s: LeaderWorkerSetStatus): CompactStatus {
  const out: CompactStatus = {};
  const conditions = (s.conditions ?? []).map((c) => `${c.type}=${c.status}@${c.observedGeneration ?? 0}`);
  if (conditions.length > 0) out.conditions = conditions;
  for (const k of ['readyReplicas', 'updatedReplicas', 'replicas', 'observedGeneration'] as const) {
    const v = s[k];
    if (typeof v === 'number' && v !== 0) out[k] = v;
  }
  if (s.hpaPodSelector !== undefined && s.hpaPodSelector !== '') {
    out.hpaPodSelector = s.hpaPodSelector === LEADERS_SELECTOR ? '<leaders>' : s.hpaPodSelector;
  }
  return out;
}

export function expandLws(c: CompactLws): LeaderWorkerSet {
  const lws: LeaderWorkerSet = {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: NAME, namespace: NS, uid: 'uid-lws', generation: c.generation ?? 1 },
    spec: {
      replicas: c.replicas ?? 2,
      leaderWorkerTemplate: {
        size: c.size ?? 2,
        restartPolicy: c.policy ?? 'RecreateGroupOnPodRestart',
        workerTemplate: {
          metadata: { labels: { app: 'w' } },
          spec: {
            containers: [
              { name: 'worker', image: c.workerImage ?? 'w:1', ports: [{ containerPort: 8080, protocol: 'TCP' }] },
            ],
          },
        },
      },
      rolloutStrategy: {
        type: 'RollingUpdate',
        rollingUpdateConfiguration: { partition: c.partition ?? 0, maxUnavailable: c.mu ?? 1, maxSurge: c.ms ?? 0 },
      },
      startupPolicy: 'LeaderCreated',
    },
  };
  const subdomain = c.subdomain === undefined ? 'Shared' : c.subdomain;
  if (subdomain !== null) lws.spec.networkConfig = { subdomainPolicy: subdomain };
  if (c.leader ?? true)
    lws.spec.leaderWorkerTemplate.leaderTemplate = { spec: { containers: [{ name: 'leader', image: 'l:1' }] } };
  if (c.subgroup !== undefined) lws.spec.leaderWorkerTemplate.subGroupPolicy = c.subgroup;
  if (c.claims === true) {
    lws.spec.leaderWorkerTemplate.volumeClaimTemplates = [
      {
        metadata: { name: 'pvc1', labels: { x: 'y' } },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
        },
      },
    ];
    lws.spec.leaderWorkerTemplate.persistentVolumeClaimRetentionPolicy = {
      whenDeleted: 'Retain',
      whenScaled: 'Delete',
    };
  }
  if (c.annotations !== undefined) lws.metadata.annotations = c.annotations;
  if (c.status !== undefined) lws.status = expandStatus(c.status);
  return lws;
}

export function expandLeaderSts([replicas, partition, annotation, statusReplicas]: [
  number,
  number,
  number,
  number,
]): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: NAME,
      namespace: NS,
      uid: 'uid-leader-sts',
      labels: { [`${LBL}name`]: NAME, [`${LBL}template-revision-hash`]: 'new' },
      annotations: { [`${LBL}replicas`]: String(annotation) },
    },
    spec: {
      replicas,
      selector: { matchLabels: { a: 'b' } },
      serviceName: NAME,
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } },
    },
    status: { replicas: statusReplicas },
  };
}

function ownerRef([kind, name, uid]: [string, string, string]) {
  return { apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1', kind, name, uid, controller: true, blockOwnerDeletion: true };
}

export function expandPod(c: CompactPod): Pod {
  const name = c.w === 0 ? `${NAME}-${c.g}` : `${NAME}-${c.g}-${c.w}`;
  const ready = c.ready ?? true;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      labels: {
        [`${LBL}name`]: NAME,
        [`${LBL}group-index`]: String(c.g),
        [`${LBL}worker-index`]: String(c.w),
        [`${LBL}template-revision-hash`]: c.key ?? 'new',
      },
    },
    spec: { containers: [{ name: 'c', image: 'i' }] },
    status: {
      phase: c.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready, restartCount: c.restarts ?? 0 }],
    },
  };
  if ((c.initRestarts ?? 0) > 0) {
    pod.status!.initContainerStatuses = [
      { name: 'init', image: 'i', imageID: '', ready: true, restartCount: c.initRestarts ?? 0 },
    ];
  }
  if (c.deleting === true) {
    pod.metadata!.deletionTimestamp = '2026-03-10T10:00:00Z';
    pod.metadata!.finalizers = ['test/hold'];
  }
  if (c.owner !== undefined) pod.metadata!.ownerReferences = [ownerRef(c.owner)];
  if (c.node !== undefined) pod.spec!.nodeName = c.node;
  if (c.leaderNameAnn === true) pod.metadata!.annotations = { [`${LBL}leader-name`]: 'x' };
  return pod;
}

export function expandSts(c: CompactSts): StatefulSet {
  const replicas = c.replicas ?? 1;
  const ready = c.ready ?? true;
  const sts: StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: `${NAME}-${c.g}`,
      namespace: NS,
      uid: c.uid ?? `uid-sts-${c.g}`,
      labels: {
        [`${LBL}name`]: NAME,
        [`${LBL}group-index`]: String(c.g),
        [`${LBL}template-revision-hash`]: c.key ?? 'new',
      },
    },
    spec: {
      replicas,
      selector: { matchLabels: { a: 'b' } },
      serviceName: NAME,
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
    status: {
      replicas,
      availableReplicas: ready ? replicas : 0,
      currentRevision: 'r1',
      updateRevision: c.updateRevision ?? 'r1',
    },
  };
  if (c.owner !== undefined) sts.metadata!.ownerReferences = [ownerRef(c.owner)];
  return sts;
}

/** The case's pod (leader pods get the group-key label and, for `tpu`, a TPU limit). */
export function expandCasePod(c: GoldenCase): Pod {
  const pod = expandPod(c.pod!);
  if (c.groupKey !== undefined) pod.metadata!.labels![`${LBL}group-key`] = c.groupKey;
  if (c.tpu === true) pod.spec!.containers[0]!.resources = { limits: { 'google.com/tpu': '4' } };
  return pod;
}
