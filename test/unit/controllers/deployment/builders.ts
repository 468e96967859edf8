// Builders for Deployment planner tests: a Deployment, its ReplicaSets and what a plan did to them.
import type { PodTemplateSpec } from '../../../../shared/kube/api/objects.js';
import type { Action } from '../../../../shared/kube/actions.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import type {
  Condition,
  Deployment,
  DeploymentStatus,
  IntOrString,
  ObservedDeployment,
  Pod,
  ReplicaSet,
} from '../../../../shared/controllers/deployment/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const T0 = '2025-12-31T23:00:00Z';
export const UID = 'uid-web';

export function template(image = 'app:1', labels: Record<string, string> = { app: 'web' }): PodTemplateSpec {
  return { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } };
}

export type DeploymentOptions = {
  replicas?: number;
  image?: string;
  strategy?: 'RollingUpdate' | 'Recreate';
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
  paused?: boolean;
  progressDeadlineSeconds?: number | null;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  generation?: number;
  annotations?: Record<string, string>;
  status?: DeploymentStatus;
  deleting?: boolean;
};

export function aDeployment(o: DeploymentOptions = {}): Deployment {
  const strategy = o.strategy ?? 'RollingUpdate';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'ns',
      uid: UID,
      resourceVersion: '100',
      generation: o.generation ?? 1,
      creationTimestamp: T0,
      ...(o.annotations && { annotations: o.annotations }),
      ...(o.deleting === true && { deletionTimestamp: NOW.toISOString() }),
    },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      template: template(o.image),
      strategy:
        strategy === 'RollingUpdate'
          ? {
              type: strategy,
              rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%' },
            }
          : { type: strategy },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      progressDeadlineSeconds: o.progressDeadlineSeconds === null ? undefined : (o.progressDeadlineSeconds ?? 600),
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
      ...(o.paused !== undefined && { paused: o.paused }),
    },
    ...(o.status && { status: o.status }),
  };
}

export type RSOptions = {
  image?: string;
  replicas: number;
  /** status.replicas (default: replicas) */
  actual?: number;
  available?: number;
  ready?: number;
  terminating?: number;
  revision?: number;
  /** minutes after T0 */
  createdAt?: number;
  desired?: number;
  max?: number;
  owned?: boolean;
  labels?: Record<string, string>;
  conditions?: Condition[];
  generation?: number;
  observedGeneration?: number;
  minReadySeconds?: number;
};

export function anRS(name: string, o: RSOptions): ReplicaSet {
  const t = template(o.image, { app: 'web', 'pod-template-hash': name, ...o.labels });
  const annotations: Record<string, string> = {};
  if (o.revision !== undefined) annotations['deployment.kubernetes.io/revision'] = String(o.revision);
  if (o.desired !== undefined) annotations['deployment.kubernetes.io/desired-replicas'] = String(o.desired);
  if (o.max !== undefined) annotations['deployment.kubernetes.io/max-replicas'] = String(o.max);
  const minutes = o.createdAt ?? 0;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: `rv-${name}`,
      generation: o.generation ?? 1,
      creationTimestamp: new Date(Date.parse(T0) + minutes * 60_000).toISOString().replace('.000Z', 'Z'),
      labels: t.metadata?.labels ?? {},
      annotations,
      ...(o.owned !== false && {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      }),
    },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': name } },
      template: t,
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
    },
    status: {
      replicas: o.actual ?? o.replicas,
      availableReplicas: o.available ?? 0,
      readyReplicas: o.ready ?? o.available ?? 0,
      observedGeneration: o.observedGeneration ?? o.generation ?? 1,
      terminatingReplicas: o.terminating ?? 0,
      ...(o.conditions && { conditions: o.conditions }),
    },
  };
}

export function observed(d: Deployment | null, rss: ReplicaSet[], pods: Pod[] | null = null): ObservedDeployment {
  return { namespace: 'ns', name: 'web', deployment: d, replicaSets: rss, pods, reads: 2 };
}

export function aPod(name: string, ownerRS: string, phase = 'Running'): Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: ownerRS, uid: `uid-${ownerRS}`, controller: true },
      ],
    },
    status: { phase },
  };
}

type Obj = { metadata: { name: string; annotations?: Record<string, string> }; spec: { replicas: number } };

/** name → spec.replicas of every ReplicaSet the plan updates. */
export function scaled(r: PlanResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of r.actions)
    if (a.type === 'update')
      out[(a.object as unknown as Obj).metadata.name] = (a.object as unknown as Obj).spec.replicas;
  return out;
}

export function updated(r: PlanResult, name: string): ReplicaSet | undefined {
  const a = r.actions.find((x) => x.type === 'update' && x.object.metadata?.name === name);
  return a && a.type === 'update' ? (a.object as unknown as ReplicaSet) : undefined;
}

export function created(r: PlanResult): ReplicaSet[] {
  return r.actions
    .filter((a): a is Extract<Action, { type: 'create' }> => a.type === 'create')
    .map((a) => a.object as unknown as ReplicaSet);
}

export function deleted(r: PlanResult): string[] {
  return r.actions
    .filter((a): a is Extract<Action, { type: 'delete' }> => a.type === 'delete')
    .map((a) => a.target.name);
}

export function written(r: PlanResult): Deployment | undefined {
  const a = r.actions.find((x) => x.type === 'updateStatus');
  return a ? (a.object as unknown as Deployment) : undefined;
}

export function condition(d: Deployment | undefined, type: string): Condition | undefined {
  return d?.status?.conditions?.find((c) => c.type === type);
}
