// DaemonSet scenarios: each runs on both sides (upstream-1 under kube-controller-manager, fleetq-1 under fleetq)
// and ends with a comparison of the normalized state. The sandbox clusters have the same kwok nodes
// (kwok-node-0, kwok-node-1, tainted kwok.x-k8s.io/node:NoSchedule); the scenarios never change a node: node
// subsets come from the nodes' own hostname labels, and the kwok taint is the untolerated one.
import {
  daemonSetOnePodPerRevision,
  daemonSetPodsWithImage,
  daemonSetRolledOut,
  daemonSetUnavailableBound,
} from '../../helpers/conformance/daemonset.js';
import type { DaemonSet, Invariant, IntOrString, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, image, orphanPod, podTemplate, wait } from './builders.js';

const DS = 'agent';
const NODES = 2;
const HOSTNAME = 'kubernetes.io/hostname';

type Options = {
  readonly strategy?: 'OnDelete' | { maxUnavailable?: IntOrString; maxSurge?: IntOrString };
  readonly minReadySeconds?: number;
  readonly revisionHistoryLimit?: number;
  readonly nodeSelector?: Record<string, string>;
  readonly tolerateKwok?: boolean;
  /** A required node-affinity term: hostname In these nodes. */
  readonly onlyNodes?: readonly string[];
};

function daemonSet(o: Options = {}): DaemonSet {
  const template = podTemplate({ app: DS });
  const spec = template.spec as { nodeSelector?: Record<string, string>; tolerations?: unknown[] };
  if (o.nodeSelector) spec.nodeSelector = { ...spec.nodeSelector, ...o.nodeSelector };
  if (o.tolerateKwok === false) delete spec.tolerations;
  if (o.onlyNodes) {
    const term = { matchExpressions: [{ key: HOSTNAME, operator: 'In', values: [...o.onlyNodes] }] };
    (spec as { affinity?: unknown }).affinity = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } },
    };
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: DS },
    spec: {
      selector: { matchLabels: { app: DS } },
      template,
      updateStrategy:
        o.strategy === 'OnDelete'
          ? { type: 'OnDelete' }
          : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0, ...o.strategy } },
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
      ...(o.revisionHistoryLimit !== undefined && { revisionHistoryLimit: o.revisionHistoryLimit }),
    },
  };
}

const create = (o: Options = {}): Step => ({ do: 'create', objects: [daemonSet(o)] });
const update = (mutate: (ds: DaemonSet) => void): Step => ({ do: 'updateDaemonSet', name: DS, mutate });
const setImage = (v: number): Step =>
  update((ds) => {
    ((ds.spec.template.spec?.containers ?? []) as Array<{ image: string }>)[0]!.image = image(v);
  });
const rolledOut = (nodes = NODES, v?: number): Step =>
  wait(`${nodes} pods rolled out${v ? ` at image ${v}` : ''}`, daemonSetRolledOut(DS, nodes, v ? image(v) : undefined));
const arm = (invariant: Invariant): Step => ({ do: 'arm', invariant });

/** Status observed, with the given counts (no pod is expected to change). */
const statusIs =
  (want: { desired: number; updated: number }) =>
  (s: Snapshot): true | string => {
    const ds = s.daemonSets?.find((d) => d.metadata.name === DS);
    const st = ds?.status;
    if (!ds || (st?.observedGeneration ?? 0) < (ds.metadata.generation ?? 0)) return 'generation not observed';
    const got = { desired: st?.desiredNumberScheduled ?? 0, updated: st?.updatedNumberScheduled ?? 0 };
    return JSON.stringify(got) === JSON.stringify(want) ? true : `status ${JSON.stringify(got)}`;
  };

function ds(name: string, description: string, steps: Step[], invariants: Invariant[] = []): Scenario {
  return { name, kind: 'DaemonSet', description, steps, invariants: [daemonSetOnePodPerRevision(DS), ...invariants] };
}

/** A pod of the DaemonSet's labels, owned by nothing, pinned to kwok-node-0 by its hostname. */
function orphanOnNode0(): Step {
  const pod = orphanPod('stray', { app: DS });
  pod.spec.nodeSelector = { ...(pod.spec.nodeSelector as Record<string, string>), [HOSTNAME]: 'kwok-node-0' };
  return { do: 'create', objects: [pod] };
}

const orphanRunning = (s: Snapshot): true | string => {
  const pod = s.pods.find((p) => p.metadata.name === 'stray');
  return pod?.status?.phase === 'Running' ? true : `orphan pod ${pod?.status?.phase ?? 'absent'}`;
};

/**
 * The one node change the scenarios make: a label of their own on kwok-node-1 (no other test selects on it, so no
 * other pod moves), removed again as the scenario's last change; removed first too, should a failed run have left
 * it. The Node event must wake the DaemonSet (descriptor.ts) and the pass must read the node anew from the cache.
 */
const NODE_LABEL = 'conformance.fleetq.dev/ds-node-change';
const labelNode1 = (on: boolean): Step => ({
  do: 'kubectl',
  args: ['label', 'node', 'kwok-node-1', on ? `${NODE_LABEL}=on` : `${NODE_LABEL}-`, '--overwrite'],
  expectFailure: false,
});

export const DAEMONSET_SCENARIOS: readonly Scenario[] = [
  ds('ds-create-all-nodes', 'a DaemonSet tolerating the kwok taint runs one pod on each of the 2 nodes', [
    create(),
    rolledOut(),
    compare('on every node'),
  ]),
  ds('ds-node-selector-subset', 'nodeSelector on one hostname, then both nodes, then the other hostname', [
    create({ nodeSelector: { [HOSTNAME]: 'kwok-node-0' } }),
    rolledOut(1),
    compare('one node'),
    update((d) => {
      delete (d.spec.template.spec as { nodeSelector?: Record<string, string> }).nodeSelector?.[HOSTNAME];
    }),
    rolledOut(2),
    compare('both nodes'),
    update((d) => {
      const spec = d.spec.template.spec as { nodeSelector?: Record<string, string> };
      spec.nodeSelector = { ...spec.nodeSelector, [HOSTNAME]: 'kwok-node-1' };
    }),
    rolledOut(1),
    compare('the other node'),
  ]),
  ds('ds-taint-not-tolerated', 'without the kwok toleration no node fits; adding it runs a pod on each', [
    create({ tolerateKwok: false }),
    wait('status observed: 0 nodes desired', statusIs({ desired: 0, updated: 0 })),
    compare('no node tolerated'),
    update((d) => {
      (d.spec.template.spec as { tolerations?: unknown[] }).tolerations = [
        { key: 'kwok.x-k8s.io/node', operator: 'Exists', effect: 'NoSchedule' },
      ];
    }),
    rolledOut(),
    compare('tolerated'),
  ]),
  ds('ds-rolling-max-unavailable', 'RollingUpdate maxUnavailable 1: image 1 → 2 → 3, one node at a time', [
    create({ strategy: { maxUnavailable: 1 } }),
    rolledOut(),
    arm(daemonSetUnavailableBound(DS, 1)),
    setImage(2),
    rolledOut(NODES, 2),
    compare('image 2'),
    setImage(3),
    rolledOut(NODES, 3),
    compare('image 3'),
  ]),
  ds('ds-rolling-max-unavailable-percent', 'RollingUpdate maxUnavailable 50% of 2 nodes (rounds up to 1)', [
    create({ strategy: { maxUnavailable: '50%' } }),
    rolledOut(),
    arm(daemonSetUnavailableBound(DS, 1)),
    setImage(2),
    rolledOut(NODES, 2),
    compare('image 2'),
  ]),
  ds('ds-rolling-max-surge', 'RollingUpdate maxSurge 1, maxUnavailable 0: the new pod starts beside the old', [
    create({ strategy: { maxUnavailable: 0, maxSurge: 1 } }),
    rolledOut(),
    arm(daemonSetUnavailableBound(DS, 0, 2_000)),
    setImage(2),
    rolledOut(NODES, 2),
    compare('image 2'),
  ]),
  ds('ds-on-delete', 'OnDelete: a new template replaces nothing until a pod is deleted', [
    create({ strategy: 'OnDelete' }),
    rolledOut(),
    setImage(2),
    wait('new template observed, no pod updated', statusIs({ desired: NODES, updated: 0 })),
    compare('template changed, pods kept'),
    { do: 'deletePods', filter: { owner: DS, node: 'kwok-node-1', count: 1 } },
    wait('the deleted pod replaced at image 2', daemonSetPodsWithImage(DS, image(2), 1)),
    wait('and the other still at image 1', daemonSetPodsWithImage(DS, image(1), 1)),
    compare('one pod replaced'),
  ]),
  ds('ds-failed-pod-replaced', 'a daemon pod that fails is deleted (FailedDaemonPod) and replaced', [
    create(),
    rolledOut(),
    { do: 'failPods', filter: { owner: DS, node: 'kwok-node-0', count: 1 } },
    rolledOut(),
    compare('replaced'),
  ]),
  ds('ds-status-min-ready', 'minReadySeconds 5: pods count as available only after 5 s ready', [
    create({ minReadySeconds: 5 }),
    rolledOut(),
    compare('available'),
  ]),
  ds('ds-history-limit-rollback', 'revisionHistoryLimit 1 over images 1 → 2 → 3 → 1 (the old revision reused)', [
    create({ revisionHistoryLimit: 1 }),
    rolledOut(),
    setImage(2),
    rolledOut(NODES, 2),
    setImage(3),
    rolledOut(NODES, 3),
    compare('image 3, one old revision kept'),
    setImage(1),
    rolledOut(NODES, 1),
    compare('back to image 1'),
  ]),
  ds('ds-required-node-affinity', 'a required node-affinity term on one hostname: one pod, on that node', [
    create({ onlyNodes: ['kwok-node-1'] }),
    rolledOut(1),
    compare('one node by affinity'),
  ]),
  ds('ds-rollback', 'images 1 → 2 → 1: the first revision is reused and raised to revision 3', [
    create(),
    rolledOut(),
    setImage(2),
    rolledOut(NODES, 2),
    setImage(1),
    rolledOut(NODES, 1),
    compare('rolled back'),
  ]),
  ds('ds-adopt-orphan', 'an orphan pod matching the selector on a node is adopted, then replaced as outdated', [
    orphanOnNode0(),
    wait('the orphan pod running', orphanRunning),
    create(),
    rolledOut(),
    compare('adopted and updated'),
  ]),
  ds('ds-surge-old-unready', 'maxSurge 1: an outdated pod that is not ready gets its new pod at once', [
    create({ strategy: { maxUnavailable: 0, maxSurge: 1 } }),
    rolledOut(),
    { do: 'setPodsReady', filter: { owner: DS, node: 'kwok-node-0' }, ready: false },
    setImage(2),
    rolledOut(NODES, 2),
    compare('image 2'),
  ]),
  ds('ds-node-label-change', 'a node gains the selected label (a pod starts there), then loses it (the pod goes)', [
    labelNode1(false),
    create({ nodeSelector: { [NODE_LABEL]: 'on' } }),
    wait('status observed: 0 nodes desired', statusIs({ desired: 0, updated: 0 })),
    labelNode1(true),
    rolledOut(1),
    compare('node labelled'),
    labelNode1(false),
    wait('status observed: 0 nodes desired, the pod gone', (s) => {
      const st = statusIs({ desired: 0, updated: 0 })(s);
      if (st !== true) return st;
      const live = s.pods.filter((p) => p.metadata.deletionTimestamp === undefined);
      return live.length === 0 ? true : `${live.length} pods left`;
    }),
    compare('label removed'),
  ]),
];
