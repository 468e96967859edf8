// StatefulSet scenarios: each runs on both sides (upstream-1 under kube-controller-manager, fleetq-1 under fleetq)
// and ends with a comparison of the normalized state. Pods tolerate the kwok taint (podTemplate); no claims here
// (volumeClaimTemplates are covered by the unit tables: the sandbox has no provisioner).
import {
  orderedReadyInvariant,
  statefulSetRolledOut,
  statefulSetStatusIs,
} from '../../helpers/conformance-statefulset.js';
import type { Invariant, Scenario, StatefulSet, Step } from '../../helpers/conformance-types.js';
import { compare, image, podTemplate, wait } from './builders.js';

const STS = 'web';

type Options = {
  readonly replicas?: number;
  readonly parallel?: boolean;
  readonly partition?: number;
  readonly maxUnavailable?: number | string;
  readonly onDelete?: boolean;
  readonly start?: number;
};

function statefulSet(o: Options = {}): StatefulSet {
  const rollingUpdate = {
    partition: o.partition ?? 0,
    ...(o.maxUnavailable !== undefined && { maxUnavailable: o.maxUnavailable }),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: STS },
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: STS,
      selector: { matchLabels: { app: STS } },
      template: podTemplate({ app: STS }),
      podManagementPolicy: o.parallel ? 'Parallel' : 'OrderedReady',
      updateStrategy: o.onDelete ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate },
      ...(o.start !== undefined && { ordinals: { start: o.start } }),
    },
  };
}

const create = (o: Options = {}): Step => ({ do: 'create', objects: [statefulSet(o)] });
const update = (mutate: (set: StatefulSet) => void): Step => ({ do: 'updateStatefulSet', name: STS, mutate });
const setImage = (v: number): Step =>
  update((set) => {
    ((set.spec.template.spec?.containers ?? []) as Array<{ image: string }>)[0]!.image = image(v);
  });
const scale = (replicas: number): Step => update((set) => (set.spec.replicas = replicas));
const rolledOut = (replicas: number, v?: number): Step =>
  wait(
    `${replicas} replicas rolled out${v ? ` at image ${v}` : ''}`,
    statefulSetRolledOut(STS, replicas, v ? image(v) : undefined),
  );

function sts(name: string, description: string, steps: Step[], invariants: Invariant[] = []): Scenario {
  return { name, kind: 'StatefulSet', description, steps, invariants };
}

export const STATEFULSET_SCENARIOS: readonly Scenario[] = [
  sts(
    'sts-ordered-scale',
    'OrderedReady: 3 pods one after another, scaled to 1 from the highest ordinal',
    [create(), rolledOut(3), compare('three'), scale(1), rolledOut(1), compare('one')],
    [orderedReadyInvariant(STS)],
  ),
  sts('sts-parallel-start', 'Parallel with ordinals.start 2: pods web-2..web-4', [
    create({ parallel: true, start: 2 }),
    rolledOut(3),
    compare('three from ordinal 2'),
  ]),
  sts(
    'sts-rolling-partition',
    'RollingUpdate with partition 1: ordinals 2 and 1 updated, 0 kept; partition 0 finishes it',
    [
      create(),
      rolledOut(3),
      update((set) => {
        set.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 1 } };
        ((set.spec.template.spec?.containers ?? []) as Array<{ image: string }>)[0]!.image = image(2);
      }),
      wait('two updated', statefulSetStatusIs(STS, { replicas: 3, ready: 3, updated: 2 })),
      compare('partitioned'),
      update((set) => (set.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } })),
      rolledOut(3, 2),
      compare('all updated'),
    ],
  ),
  sts('sts-on-delete', 'OnDelete: a new template changes no pod', [
    create({ onDelete: true }),
    rolledOut(3),
    setImage(2),
    wait('status observed', statefulSetStatusIs(STS, { replicas: 3, ready: 3, updated: 0 })),
    compare('none replaced'),
  ]),
];
