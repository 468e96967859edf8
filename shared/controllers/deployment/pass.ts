// One sync pass: the working copy of the Deployment that upstream mutates in place (annotations, status),
// and the ReplicaSet writes the pass decided. Upstream writes as it goes; we collect, so several writes to one
// ReplicaSet in a pass fold into one update (each applied on top of the last), and the Deployment's status and
// revision annotation go out once, at the end, if they differ from what was observed.
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Action } from '../../kube/actions.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from './types.js';

export type RSReason = 'ScalingReplicaSet' | 'UpdatedReplicaSet' | 'AdoptedReplicaSet' | 'ReleasedReplicaSet';

/** Thrown to end a pass early, as upstream returns an error (e.g. after a hash collision). */
export class SyncAborted extends Error {}

export class Pass {
  readonly d: Deployment;
  private readonly writes = new Map<string, { object: ReplicaSet; reason: RSReason }>();
  private readonly creates = new Map<string, ReplicaSet>();
  private readonly deletes: ReplicaSet[] = [];
  requeueAfter: number | undefined;

  constructor(
    readonly original: Deployment,
    /** Every ReplicaSet of the namespace, as observed (name collisions are checked against these). */
    readonly namespaceRSs: readonly ReplicaSet[],
    readonly now: Date,
  ) {
    this.d = deepCopy(original);
    this.d.status ??= {};
  }

  get status(): DeploymentStatus {
    return (this.d.status ??= {});
  }

  /** Applies mutate to the latest state of rs in this pass and returns that state (upstream: Update's result). */
  update(rs: ReplicaSet, reason: RSReason, mutate: (copy: ReplicaSet) => void): ReplicaSet {
    const name = rs.metadata.name ?? '';
    const pending = this.creates.get(name);
    if (pending) {
      mutate(pending);
      return deepCopy(pending);
    }
    const prior = this.writes.get(name);
    const object = prior?.object ?? deepCopy(rs);
    mutate(object);
    const keep = prior?.reason === 'ScalingReplicaSet' ? prior.reason : reason;
    this.writes.set(name, { object, reason: keep });
    return deepCopy(object);
  }

  create(rs: ReplicaSet): void {
    this.creates.set(rs.metadata.name ?? '', deepCopy(rs));
  }

  delete(rs: ReplicaSet): void {
    this.deletes.push(rs);
  }

  actions(): Action[] {
    const actions: Action[] = [];
    for (const rs of this.creates.values())
      actions.push({ type: 'create', object: asObject(rs), reason: 'SuccessfulCreate' });
    for (const { object, reason } of this.writes.values())
      actions.push({ type: 'update', object: asObject(object), reason });
    for (const rs of this.deletes) {
      actions.push({
        type: 'delete',
        target: { kind: 'ReplicaSet', namespace: rs.metadata.namespace ?? '', name: rs.metadata.name ?? '' },
        uid: rs.metadata.uid ?? '',
        reason: 'CleanedUpReplicaSet',
      });
    }
    const status = canonicalStatus(this.d.status);
    const annotations = this.d.metadata.annotations ?? {};
    const changed =
      !sameStatus(status, this.original.status) ||
      !isDeepStrictEqual(annotations, this.original.metadata.annotations ?? {});
    if (changed) {
      const object: Deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { ...this.original.metadata, annotations },
        spec: this.original.spec,
        status,
      };
      actions.push({ type: 'updateStatus', object: asObject(object) });
    }
    return actions;
  }
}

/** Status as the apiserver stores it: no undefined fields, no empty condition list. */
export function canonicalStatus(status: DeploymentStatus | undefined): DeploymentStatus {
  const out = JSON.parse(JSON.stringify(status ?? {})) as DeploymentStatus;
  if (out.conditions?.length === 0) delete out.conditions;
  return out;
}

/** Our JSON types carry timestamps as strings; the shared Action type uses client-node's shapes. */
export function asObject(o: Deployment | ReplicaSet): KubernetesObject {
  return o as unknown as KubernetesObject;
}

/** The status in the working Deployment, compared the way the apiserver would store it. */
export function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return isDeepStrictEqual(canonicalStatus(zeroed(a)), canonicalStatus(zeroed(b)));
}

/** Go's zero values: absent counters are 0 (status fields are omitempty ints). */
function zeroed(s: DeploymentStatus | undefined): DeploymentStatus {
  return {
    observedGeneration: 0,
    replicas: 0,
    updatedReplicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    unavailableReplicas: 0,
    ...s,
  };
}

/**
 * A deep copy of JSON data. Not structuredClone: its copies come from the host realm, which breaks deep
 * equality against objects of another realm (as under Jest's module VM).
 */
export function deepCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
