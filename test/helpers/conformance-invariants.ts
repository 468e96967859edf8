// Properties sampled on every poll of both sides. Pod-level bounds get a grace period: the Deployment
// controller bounds ReplicaSet *specs*, and the ReplicaSet controller then deletes surplus pods a moment
// later, under upstream as under fleetq; a bound broken for longer than the grace is a real violation.
import {
  fenceposts,
  findDeployment,
  findReplicaSet,
  isActive,
  isPodAvailable,
  newReplicaSetOf,
  podsOfDeployment,
  podsOwnedBy,
  replicaSetsOf,
  controllerOf,
} from './conformance-model.js';
import type { Invariant, Snapshot } from './conformance-types.js';

const POD_GRACE_MS = 2_500;

/** Status counts are ordered: available ≤ ready ≤ replicas, updated ≤ replicas (Deployment and ReplicaSets). */
export function statusOrdered(): Invariant {
  return {
    name: 'status counts ordered (available ≤ ready ≤ replicas)',
    graceMs: 0,
    check: (s) => {
      for (const o of [...s.deployments, ...s.replicaSets]) {
        const st = o.status ?? {};
        const [r, ready, avail] = [st.replicas ?? 0, st.readyReplicas ?? 0, st.availableReplicas ?? 0];
        if (!(avail <= ready && ready <= r))
          return `${o.metadata.name}: available ${avail}, ready ${ready}, replicas ${r}`;
      }
      return null;
    },
  };
}

/**
 * Σ ReplicaSet spec.replicas ≤ replicas + maxSurge once the controller observed the current generation. A
 * sample lists Deployments before ReplicaSets, so a scale landing between the two lists looks like a
 * violation for one sample: hence a short grace.
 */
export function specSurgeBound(name: string): Invariant {
  return {
    name: `${name}: Σ replicaset spec.replicas ≤ replicas + maxSurge`,
    graceMs: 1_000,
    check: (s) => {
      const d = findDeployment(s, name);
      if (!d || (d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return null;
      const bound = (d.spec.replicas ?? 1) + fenceposts(d).maxSurge;
      const sum = replicaSetsOf(s, d).reduce((a, rs) => a + (rs.spec.replicas ?? 1), 0);
      return sum <= bound ? null : `Σ spec.replicas ${sum} > ${bound}`;
    },
  };
}

/** Active (non-terminating) pods ≤ replicas + maxSurge. */
export function podSurgeBound(name: string): Invariant {
  return {
    name: `${name}: active pods ≤ replicas + maxSurge`,
    graceMs: POD_GRACE_MS,
    check: (s) => {
      const d = findDeployment(s, name);
      if (!d) return null;
      const bound = (d.spec.replicas ?? 1) + fenceposts(d).maxSurge;
      const n = podsOfDeployment(s, d).filter(isActive).length;
      return n <= bound ? null : `${n} active pods > ${bound}`;
    },
  };
}

/**
 * Available pods ≥ replicas − maxUnavailable. Valid only while the Deployment is not scaled and no pod is
 * deleted or made unready by the test: arm it after a steady state, before a rollout.
 */
export function availabilityFloor(name: string): Invariant {
  return {
    name: `${name}: available pods ≥ replicas − maxUnavailable`,
    graceMs: 1_000,
    check: (s) => {
      const d = findDeployment(s, name);
      if (!d) return null;
      const floor = (d.spec.replicas ?? 1) - fenceposts(d).maxUnavailable;
      const n = podsOfDeployment(s, d).filter(
        (p) => isActive(p) && isPodAvailable(p, d.spec.minReadySeconds ?? 0, s.at),
      ).length;
      return n >= floor ? null : `${n} available pods < ${floor}`;
    },
  };
}

/** Recreate: pods of an old ReplicaSet (terminating or not) and running pods of the new one never coexist. */
export function recreateNoOverlap(name: string): Invariant {
  return {
    name: `${name}: Recreate never runs old and new pods together`,
    graceMs: 0,
    check: (s) => {
      const d = findDeployment(s, name);
      const fresh = d && newReplicaSetOf(s, d);
      if (!d || !fresh) return null;
      const pods = podsOfDeployment(s, d);
      const old = pods.filter(
        (p) => controllerOf(p.metadata)?.uid !== fresh.metadata.uid && p.status?.phase === 'Running',
      );
      const running = pods.filter(
        (p) => controllerOf(p.metadata)?.uid === fresh.metadata.uid && p.status?.phase === 'Running',
      );
      return old.length > 0 && running.length > 0 ? `${old.length} old and ${running.length} new pods running` : null;
    },
  };
}

/** A ReplicaSet never has more active pods than spec.replicas. */
export function replicaSetPodBound(name: string): Invariant {
  return {
    name: `${name}: active pods ≤ spec.replicas`,
    graceMs: POD_GRACE_MS,
    check: (s) => {
      const rs = findReplicaSet(s, name);
      if (!rs) return null;
      const n = podsOwnedBy(s, rs.metadata.uid).filter(isActive).length;
      return n <= (rs.spec.replicas ?? 1) ? null : `${n} active pods > spec.replicas ${rs.spec.replicas}`;
    },
  };
}

/** status.availableReplicas never counts a pod ready for less than minReadySeconds (every ReplicaSet). */
export function minReadyRespected(): Invariant {
  return {
    name: 'availableReplicas counts only pods ready for minReadySeconds',
    graceMs: POD_GRACE_MS,
    check: (s: Snapshot) => {
      for (const rs of s.replicaSets) {
        const min = rs.spec.minReadySeconds ?? 0;
        if (min === 0) continue;
        const eligible = podsOwnedBy(s, rs.metadata.uid).filter((p) => isPodAvailable(p, min, s.at + 500)).length;
        const claimed = rs.status?.availableReplicas ?? 0;
        if (claimed > eligible)
          return `${rs.metadata.name}: availableReplicas ${claimed} > ${eligible} pods ready ≥ ${min}s`;
      }
      return null;
    },
  };
}

export function deploymentInvariants(name: string, o: { recreate?: boolean } = {}): Invariant[] {
  return [
    statusOrdered(),
    specSurgeBound(name),
    podSurgeBound(name),
    minReadyRespected(),
    ...(o.recreate ? [recreateNoOverlap(name)] : []),
  ];
}

export function replicaSetInvariants(name: string): Invariant[] {
  return [statusOrdered(), replicaSetPodBound(name), minReadyRespected()];
}

/** Tracks each invariant over the samples of one side; a violation counts once it outlasts the grace. */
export class InvariantTracker {
  private readonly since = new Map<string, { at: number; message: string }>();
  readonly violations: string[] = [];
  readonly transient = new Map<string, number>();
  private readonly armed = new Map<string, Invariant>();

  constructor(invariants: readonly Invariant[]) {
    for (const i of invariants) this.armed.set(i.name, i);
  }

  arm(i: Invariant): void {
    this.armed.set(i.name, i);
  }

  disarm(i: Invariant): void {
    this.armed.delete(i.name);
    this.since.delete(i.name);
  }

  observe(s: Snapshot): void {
    for (const inv of this.armed.values()) {
      const message = inv.check(s);
      if (message === null) {
        this.since.delete(inv.name);
        continue;
      }
      this.transient.set(inv.name, (this.transient.get(inv.name) ?? 0) + 1);
      const first = this.since.get(inv.name) ?? { at: s.at, message };
      this.since.set(inv.name, first);
      if (s.at - first.at >= inv.graceMs) {
        this.violations.push(`${inv.name}: ${first.message} (held ${s.at - first.at} ms)`);
        this.armed.delete(inv.name); // report once
      }
    }
  }
}
