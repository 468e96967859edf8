// Manifests, template changes and the common steps the scenarios are written with. Pods run on the kwok nodes (kwok makes
// them Running and Ready); a "stuck" template selects no node, so its pods stay Pending and never ready.
import type {
  Check,
  Deployment,
  IntOrString,
  Labels,
  Mutate,
  Pod,
  PodTemplate,
  ReplicaSet,
  Snapshot,
  Step,
} from '../../helpers/conformance/types.js';
import { kwokPodTemplate } from '../../helpers/sandbox/clusters.js';

export const image = (v: number): string => `registry.example/app:${v}`;

/** Compare both sides' normalized state here, under `label`. */
export const compare = (label: string): Step => ({ do: 'compare', label });

/** Wait (on each side) until `until` holds, within `timeoutMs` or the runner's default. */
export const wait = (what: string, until: (s: Snapshot) => Check, timeoutMs?: number): Step => ({
  do: 'waitFor',
  what,
  until,
  ...(timeoutMs !== undefined && { timeoutMs }),
});

export function podTemplate(labels: Labels, img = image(1)): PodTemplate {
  const t = JSON.parse(JSON.stringify(kwokPodTemplate(labels))) as PodTemplate;
  containersOf(t)[0]!.image = img;
  return t;
}

type Container = { name: string; image: string };

function containersOf(t: PodTemplate): Container[] {
  return (t.spec?.containers ?? []) as Container[];
}

export type DeploymentOptions = {
  readonly replicas?: number;
  readonly strategy?: 'RollingUpdate' | 'Recreate';
  readonly maxSurge?: IntOrString;
  readonly maxUnavailable?: IntOrString;
  readonly minReadySeconds?: number;
  readonly revisionHistoryLimit?: number;
  readonly progressDeadlineSeconds?: number;
  readonly paused?: boolean;
  readonly image?: string;
};

export function deployment(name: string, o: DeploymentOptions = {}): Deployment {
  const labels = { app: name };
  const rolling =
    o.maxSurge !== undefined || o.maxUnavailable !== undefined
      ? {
          rollingUpdate: {
            ...(o.maxSurge !== undefined && { maxSurge: o.maxSurge }),
            ...(o.maxUnavailable !== undefined && { maxUnavailable: o.maxUnavailable }),
          },
        }
      : {};
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: o.replicas ?? 1,
      selector: { matchLabels: labels },
      template: podTemplate(labels, o.image),
      strategy: o.strategy === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', ...rolling },
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
      ...(o.revisionHistoryLimit !== undefined && { revisionHistoryLimit: o.revisionHistoryLimit }),
      ...(o.progressDeadlineSeconds !== undefined && { progressDeadlineSeconds: o.progressDeadlineSeconds }),
      ...(o.paused !== undefined && { paused: o.paused }),
    },
  };
}

export function replicaSet(
  name: string,
  o: { replicas?: number; minReadySeconds?: number; labels?: Labels; image?: string } = {},
): ReplicaSet {
  const labels = o.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, labels },
    spec: {
      replicas: o.replicas ?? 1,
      selector: { matchLabels: labels },
      template: podTemplate(labels, o.image),
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
    },
  };
}

/** A pod with no owner whose labels match a workload's selector. */
export function orphanPod(name: string, labels: Labels): Pod {
  const t = podTemplate(labels);
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: t.spec ?? {} };
}

/** Template change: a new image (schedulable, so the rollout completes). */
export const setImage =
  (v: number): Mutate =>
  (o) => {
    const t = o.spec.template;
    containersOf(t)[0]!.image = image(v);
    if (t.spec) t.spec.nodeSelector = kwokPodTemplate({}).spec?.nodeSelector;
  };

/** Template change whose pods no node accepts: they stay Pending, so the rollout is stuck. */
export const setStuckImage =
  (v: number): Mutate =>
  (o) => {
    const t = o.spec.template;
    containersOf(t)[0]!.image = image(v);
    if (t.spec) t.spec.nodeSelector = { ...(t.spec.nodeSelector as Labels), 'fleetq.dev/conformance': 'no-such-node' };
  };
