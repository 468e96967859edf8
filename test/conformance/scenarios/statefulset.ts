// StatefulSet scenarios: each runs on both sides (upstream-1 under kube-controller-manager, fleetq-1 under fleetq)
// and ends with a comparison of the normalized state. Pods tolerate the kwok taint (podTemplate). Claims: the
// sandbox has no provisioner, so a scenario with volumeClaimTemplates first applies PersistentVolumes of a class of
// its own (random per run, so scenarios in flight at once and leftovers of a failed run never share a volume), which
// kube-controller-manager's PV binder (on in both sandbox modes) binds; its claims are compared through a recorded
// `kubectl get pvc` (name, phase, labels, ownerReferences), and its volumes removed before its last comparison.
import { randomUUID } from 'node:crypto';
import {
  contiguousOrdinalsInvariant,
  maxUnavailableInvariant,
  minReadyInvariant,
  orderedReadyInvariant,
  partitionInvariant,
  persistentVolumesFile,
  PV_LABEL,
  statefulSetAvailable,
  statefulSetGone,
  statefulSetRolledOut,
  statefulSetStatusIs,
} from '../../helpers/conformance/statefulset.js';
import type { Check, Invariant, Pod, Scenario, Snapshot, StatefulSet, Step } from '../../helpers/conformance/types.js';
import { compare, image, orphanPod, podTemplate, wait } from './builders.js';

const STS = 'web';

type Retention = 'Retain' | 'Delete';

type Options = {
  readonly replicas?: number;
  readonly parallel?: boolean;
  readonly partition?: number;
  readonly maxUnavailable?: number | string;
  readonly onDelete?: boolean;
  readonly start?: number;
  readonly minReadySeconds?: number;
  readonly revisionHistoryLimit?: number;
  /** One volumeClaimTemplate, `data`, of this class. */
  readonly storageClass?: string;
  readonly retention?: { readonly whenDeleted: Retention; readonly whenScaled: Retention };
};

/** The StatefulSet fields the harness type leaves out: claims and their retention policy. */
type StatefulSetWithClaims = StatefulSet & {
  spec: StatefulSet['spec'] & {
    volumeClaimTemplates?: unknown[];
    persistentVolumeClaimRetentionPolicy?: { whenDeleted: Retention; whenScaled: Retention };
  };
};

function statefulSet(o: Options = {}): StatefulSetWithClaims {
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
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
      ...(o.revisionHistoryLimit !== undefined && { revisionHistoryLimit: o.revisionHistoryLimit }),
      ...(o.storageClass !== undefined && {
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', labels: { tier: 'storage' } },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: o.storageClass,
              resources: { requests: { storage: '1Mi' } },
            },
          },
        ],
      }),
      ...(o.retention !== undefined && { persistentVolumeClaimRetentionPolicy: { ...o.retention } }),
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
const arm = (invariant: Invariant): Step => ({ do: 'arm', invariant });
const minReady = minReadyInvariant(STS, 4);

/** A kubectl command that must succeed (`{ns}`: the side's namespace), its output recorded when `record` names it. */
const kubectl = (args: string[], record?: string): Step => ({
  do: 'kubectl',
  args,
  expectFailure: false,
  ...(record !== undefined && { record, lines: 'all' as const }),
});

/** This run's storage: a class per scenario, random per run (see the header). */
const RUN = randomUUID().slice(0, 6);
const storageClass = (scenario: string): string => `fleetq-sts-${RUN}-${scenario}`;

/** Applies `count` PersistentVolumes of the class (twice what one side needs: both sides may share a cluster). */
const volumes = (cls: string, count: number): Step => kubectl(['apply', '-f', persistentVolumesFile(cls, 2 * count)]);
/** Marks the class's volumes for deletion; each goes once its claim is gone (the namespace's removal). */
const removeVolumes = (cls: string): Step => kubectl(['delete', 'pv', '-l', `${PV_LABEL}=${cls}`, '--wait=false']);
const claimsBound = (): Step =>
  kubectl(['wait', '--for=jsonpath={.status.phase}=Bound', 'pvc', '--all', '-n', '{ns}', '--timeout=90s']);
const claimGone = (name: string): Step =>
  kubectl(['wait', '--for=delete', `pvc/${name}`, '-n', '{ns}', '--timeout=90s']);
/** Waits until every claim names `kind` as its (first) owner: the retention policy's ownerReferences are set. */
const claimsOwnedBy = (kind: 'StatefulSet' | 'Pod'): Step =>
  kubectl([
    'wait',
    `--for=jsonpath={.metadata.ownerReferences[0].kind}=${kind}`,
    'pvc',
    '--all',
    '-n',
    '{ns}',
    '--timeout=90s',
  ]);
/** The claims as compared: name, phase, labels, and each ownerReference's kind, name, controller, blockOwnerDeletion. */
const recordClaims = (label: string): Step =>
  kubectl(
    [
      'get',
      'pvc',
      '-n',
      '{ns}',
      '--sort-by=.metadata.name',
      '-o',
      'custom-columns=NAME:.metadata.name,PHASE:.status.phase,LABELS:.metadata.labels,' +
        'OWNER:.metadata.ownerReferences[*].kind,OWNER_NAME:.metadata.ownerReferences[*].name,' +
        'CONTROLLER:.metadata.ownerReferences[*].controller,BLOCK:.metadata.ownerReferences[*].blockOwnerDeletion',
    ],
    `claims ${label}`,
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
  sts(
    'sts-claims-retain',
    'volumeClaimTemplates (Retain): a claim per ordinal, bound, before its pod; scaled 3→1 the claims stay, ' +
      'scaled back to 2 web-1 mounts its old claim',
    claimScenario('retain', 3, {}, [
      scale(1),
      rolledOut(1),
      recordClaims('after scale-down'),
      compare('one pod, three claims'),
      scale(2),
      rolledOut(2),
      recordClaims('after scale-up'),
    ]),
    [orderedReadyInvariant(STS), contiguousOrdinalsInvariant(STS)],
  ),
  sts(
    'sts-claims-when-scaled-delete',
    'whenScaled Delete: claims unowned in range; scaled 3→1, the claims of web-2 and web-1 name their pod and go',
    claimScenario('scaled', 3, { atCreation: { whenDeleted: 'Retain', whenScaled: 'Delete' } }, [
      scale(1),
      rolledOut(1),
      claimGone('data-web-2'),
      claimGone('data-web-1'),
      recordClaims('after scale-down'),
    ]),
    [orderedReadyInvariant(STS), contiguousOrdinalsInvariant(STS)],
  ),
  sts(
    'sts-claims-when-deleted-delete',
    'whenDeleted Delete (set on the rolled-out set): the set owns its claims; deleting it takes its pods and claims',
    claimScenario('deleted', 2, { later: { whenDeleted: 'Delete', whenScaled: 'Retain' } }, [
      kubectl(['delete', 'statefulset', STS, '-n', '{ns}', '--wait=false']),
      wait('the set and its pods gone', statefulSetGone(STS)),
      claimGone('data-web-0'),
      claimGone('data-web-1'),
      recordClaims('after the set is deleted'),
    ]),
  ),
  sts(
    'sts-claims-both-delete',
    'whenDeleted and whenScaled Delete (set on the rolled-out set): the set owns claims in range; scaled 3→2, the pod owns ' +
      'data-web-2 and the claim goes with it',
    claimScenario('both', 3, { later: { whenDeleted: 'Delete', whenScaled: 'Delete' } }, [
      scale(2),
      rolledOut(2),
      claimGone('data-web-2'),
      recordClaims('after scale-down'),
    ]),
  ),
  sts(
    'sts-max-unavailable-2',
    'OrderedReady RollingUpdate with maxUnavailable 2 over 5 replicas: two ordinals at a time from the highest',
    [
      create({ replicas: 5, maxUnavailable: 2 }),
      rolledOut(5),
      arm(maxUnavailableInvariant(STS, 2)),
      setImage(2),
      rolledOut(5, 2),
      compare('all updated'),
    ],
    [orderedReadyInvariant(STS)],
  ),
  sts(
    'sts-max-unavailable-percent',
    'Parallel, maxUnavailable 50% of 5 (rounded down: 2), partition 2: ordinals 4..2 updated, 0 and 1 kept; ' +
      'partition 0 finishes it',
    [
      create({ replicas: 5, parallel: true, maxUnavailable: '50%', partition: 2 }),
      rolledOut(5),
      arm(maxUnavailableInvariant(STS, 2)),
      setImage(2),
      wait('three updated', statefulSetStatusIs(STS, { replicas: 5, ready: 5, updated: 3 })),
      compare('partitioned'),
      update(
        (set) =>
          (set.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '50%' } }),
      ),
      rolledOut(5, 2),
      compare('all updated'),
    ],
    [partitionInvariant(STS)],
  ),
  sts(
    'sts-min-ready',
    'minReadySeconds 4, OrderedReady: each pod waits for its predecessor to be available; availableReplicas lags',
    [
      create({ replicas: 3, minReadySeconds: 4 }),
      rolledOut(3),
      wait('3 available', statefulSetAvailable(STS, 3), 60_000),
      compare('available'),
      // A pod the update deletes leaves availableReplicas one high until the next status write: the invariant is
      // about creation only.
      { do: 'disarm', invariant: minReady },
      setImage(2),
      rolledOut(3, 2),
      wait('3 available at image 2', statefulSetAvailable(STS, 3), 60_000),
      compare('updated and available'),
    ],
    [orderedReadyInvariant(STS), minReady],
  ),
  sts('sts-failed-pod', 'a Failed pod is deleted and created again under its name', [
    create(),
    rolledOut(3),
    { do: 'failPods', filter: { owner: STS, pick: 'newest' } },
    wait('the failed pod replaced', failedReplaced),
    rolledOut(3),
    compare('recreated'),
  ]),
  sts(
    'sts-rollback-history',
    'revisionHistoryLimit 1: image 1→2→1 raises revision 1 to 3 (rollback), then image 3 deletes revision 2',
    [
      create({ revisionHistoryLimit: 1 }),
      rolledOut(3),
      setImage(2),
      rolledOut(3, 2),
      compare('image 2'),
      setImage(1),
      rolledOut(3, 1),
      compare('rolled back'),
      setImage(3),
      rolledOut(3, 3),
      compare('history truncated'),
    ],
  ),
  sts(
    'sts-orphans',
    'an orphan web-0 is adopted (then replaced: it has no revision); relabelled, web-0 is released and holds ' +
      'its name (the create fails: AlreadyExists) until it is deleted',
    [
      { do: 'create', objects: [orphanPod(`${STS}-0`, { app: STS })] },
      wait('the orphan running', orphanRunning),
      create({ replicas: 2 }),
      rolledOut(2),
      compare('adopted'),
      kubectl(['label', 'pod', `${STS}-0`, 'app=released', '--overwrite', '-n', '{ns}']),
      wait('web-0 released', released),
      compare('released'),
      { do: 'deletePods', filter: { owner: 'orphan' } },
      rolledOut(2),
      compare('recreated'),
    ],
  ),
  sts(
    'sts-ordered-halt',
    'OrderedReady halts on an unready pod: scaled 3→5 with web-0 unready, no pod is created until it is Ready',
    [
      create(),
      rolledOut(3),
      { do: 'setPodsReady', filter: { owner: STS }, ready: false },
      scale(5),
      wait('halted: 3 pods, 2 ready', statefulSetStatusIs(STS, { replicas: 3, ready: 2, updated: 3 })),
      compare('halted'),
      { do: 'setPodsReady', filter: { owner: STS }, ready: true },
      rolledOut(5),
      compare('resumed'),
    ],
    [orderedReadyInvariant(STS), contiguousOrdinalsInvariant(STS)],
  ),
  sts('sts-parallel-scale', 'Parallel: scaled 4→1 at once, then back to 3', [
    create({ replicas: 4, parallel: true }),
    rolledOut(4),
    compare('four'),
    scale(1),
    rolledOut(1),
    compare('one'),
    scale(3),
    rolledOut(3),
    compare('three'),
  ]),
];

/**
 * A scenario with one claim per pod: volumes applied, the set created, rolled out, claims bound; a policy that puts
 * the set on its claims (`later`) is set only then, and the claims owned by it; compared; then `rest`; the volumes
 * removed; compared. Why later: set at creation, the retention update of a new claim races whatever else writes
 * new claims, and upstream records FailedUpdate when it loses (seen on upstream-1: "could not update claim
 * data-web-0 for delete policy ownerRefs: … the object has been modified"), timing one side cannot mirror. Set on
 * a rolled-out set, each Running pod's claims are updated once, with the pod (SuccessfulUpdate), on both sides.
 */
function claimScenario(
  short: string,
  replicas: number,
  o: { atCreation?: Options['retention']; later?: Options['retention'] },
  rest: Step[],
): Step[] {
  const cls = storageClass(short);
  const retention = o.atCreation;
  const later = o.later;
  return [
    volumes(cls, replicas),
    create({ replicas, storageClass: cls, ...(retention && { retention }) }),
    rolledOut(replicas),
    claimsBound(),
    ...(later
      ? [
          update((set) => {
            (set as StatefulSetWithClaims).spec.persistentVolumeClaimRetentionPolicy = { ...later };
          }),
          wait('policy observed', statefulSetStatusIs(STS, { replicas, ready: replicas, updated: replicas })),
          claimsOwnedBy('StatefulSet'),
        ]
      : []),
    recordClaims('rolled out'),
    compare('rolled out'),
    ...rest,
    removeVolumes(cls),
    compare('end'),
  ];
}

const ordinalPod = (s: Snapshot, name: string): Pod | undefined => s.pods.find((p) => p.metadata.name === name);

/** The failed pod (the newest, web-2) is gone and a new web-2 runs. */
function failedReplaced(s: Snapshot): Check {
  const pod = ordinalPod(s, `${STS}-2`);
  if (pod === undefined) return 'web-2 absent';
  return pod.status?.phase === 'Running' ? true : `web-2 ${pod.status?.phase ?? 'no phase'}`;
}

function orphanRunning(s: Snapshot): Check {
  const pod = ordinalPod(s, `${STS}-0`);
  return pod?.status?.phase === 'Running' ? true : `orphan ${pod?.status?.phase ?? 'absent'}`;
}

/** web-0 has no controller; the status counts one replica. */
function released(s: Snapshot): Check {
  const pod = ordinalPod(s, `${STS}-0`);
  if (pod === undefined || pod.metadata.ownerReferences?.some((r) => r.controller)) return 'web-0 still owned';
  return statefulSetStatusIs(STS, { replicas: 1, ready: 1, updated: 1 })(s);
}
