// ReplicaSet scenarios: each runs on both sides and ends with a comparison of the normalized state.
import {
  minReadyRespected,
  replicaSetInvariants,
  replicaSetPodBound,
  statusOrdered,
} from '../../helpers/conformance/invariants.js';
import { all, gone, podsReady, replicaSetSettled, replicaSetStatus } from '../../helpers/conformance/predicates.js';
import type { Scenario, Step } from '../../helpers/conformance/types.js';
import { compare, orphanPod, replicaSet } from './builders.js';

const RS = 'frontend';
const settled = (what = 'replica set settled'): Step => ({ do: 'waitFor', what, until: replicaSetSettled(RS) });
const scale = (replicas: number): Step => ({ do: 'scale', kind: 'ReplicaSet', name: RS, replicas });

function rs(name: string, description: string, steps: Step[]): Scenario {
  return { name, kind: 'ReplicaSet', description, steps, invariants: replicaSetInvariants(RS) };
}

/**
 * More pods in one namespace than one list page holds (500, client-go's pager default): 11 ReplicaSets × 50.
 * A list that stops after its first page makes the ReplicaSets whose pods fall past it create without end.
 */
const MANY = Array.from({ length: 11 }, (_, i) => `many-${String(i).padStart(2, '0')}`);
const MANY_REPLICAS = 50;

function manyPods(): Scenario {
  return {
    name: 'rs-many-pods-paged',
    kind: 'ReplicaSet',
    description: `${MANY.length} ReplicaSets × ${MANY_REPLICAS} pods in one namespace (more than a 500-item list page)`,
    steps: [
      { do: 'create', objects: MANY.map((n) => replicaSet(n, { replicas: MANY_REPLICAS })) },
      {
        do: 'waitFor',
        what: `every ReplicaSet at exactly ${MANY_REPLICAS} ready pods`,
        until: all(...MANY.map((n) => replicaSetSettled(n))),
        timeoutMs: 180_000,
      },
      {
        do: 'waitFor',
        what: `${MANY.length * MANY_REPLICAS} pods, all ready`,
        until: podsReady(MANY.length * MANY_REPLICAS),
      },
      { do: 'compare', label: 'all converged', timeoutMs: 30_000 },
    ],
    invariants: [statusOrdered(), minReadyRespected(), ...MANY.map((n) => replicaSetPodBound(n))],
  };
}

export const REPLICASET_SCENARIOS: readonly Scenario[] = [
  rs('rs-create', 'a ReplicaSet of 3 creates 3 pods', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled(),
    compare('created'),
  ]),
  rs('rs-scale-up', 'scale 2 → 5', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 2 })] },
    settled(),
    scale(5),
    settled('scaled up'),
    compare('scaled up'),
  ]),
  rs('rs-scale-down', 'scale 5 → 2', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 5 })] },
    settled(),
    scale(2),
    settled('scaled down'),
    compare('scaled down'),
  ]),
  rs('rs-scale-to-zero', 'scale 3 → 0 → 2', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled(),
    scale(0),
    settled('no pods'),
    compare('at zero'),
    scale(2),
    settled('back to 2'),
    compare('back to 2'),
  ]),
  rs('rs-adopt-orphan', 'an orphan pod matching the selector is adopted and counted', [
    { do: 'create', objects: [orphanPod('stray', { app: RS })] },
    { do: 'waitFor', what: 'orphan ready', until: podsReady(1) },
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled('3 pods including the adopted one'),
    compare('adopted'),
  ]),
  rs('rs-replace-deleted-pod', 'a deleted pod is replaced', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled(),
    { do: 'deletePods', filter: { owner: RS } },
    settled('replacement ready'),
    compare('replaced'),
  ]),
  rs('rs-release-relabelled-pod', 'a pod relabelled out of the selector is released and replaced', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled(),
    { do: 'relabelPods', filter: { owner: RS }, labels: { app: 'elsewhere' } },
    settled('replacement for the released pod'),
    { do: 'waitFor', what: 'released pod orphaned and 4 pods ready', until: podsReady(4) },
    compare('released'),
  ]),
  rs('rs-min-ready-seconds', 'minReadySeconds 10: ready pods become available only after 10 s', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3, minReadySeconds: 10 })] },
    {
      do: 'waitFor',
      what: 'ready but not yet available',
      until: replicaSetStatus(RS, { replicas: 3, readyReplicas: 3, availableReplicas: 0 }),
    },
    { do: 'compare', label: 'ready, not available', timeoutMs: 6_000 },
    settled('available'),
    compare('available'),
  ]),
  rs('rs-unready-pod', 'an unready pod leaves ready/available and is the first deleted on scale-down', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 4 })] },
    settled(),
    { do: 'setPodsReady', filter: { owner: RS, pick: 'newest' }, ready: false },
    {
      do: 'waitFor',
      what: 'ready 3 of 4',
      until: replicaSetStatus(RS, { replicas: 4, readyReplicas: 3, availableReplicas: 3 }),
    },
    compare('one unready'),
    scale(3),
    settled('the unready pod deleted'),
    compare('scaled down'),
  ]),
  rs('rs-delete-cascade', 'deleting the ReplicaSet deletes its pods (garbage collector)', [
    { do: 'create', objects: [replicaSet(RS, { replicas: 3 })] },
    settled(),
    { do: 'delete', kind: 'ReplicaSet', name: RS },
    { do: 'waitFor', what: 'replica set and pods gone', until: gone('ReplicaSet', RS) },
    compare('deleted'),
  ]),
  manyPods(),
];
