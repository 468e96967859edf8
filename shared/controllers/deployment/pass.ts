// One sync pass: the working copy of the Deployment that upstream mutates in place (annotations, status),
// and the ReplicaSet writes the pass decided. Upstream writes as it goes; we collect, so several writes to one
// ReplicaSet in a pass fold into one update (each applied on top of the last), and the Deployment's status and
// revision annotation go out once, at the end, if they differ from what was observed.
//
// Events: every write of the pass carries the events upstream records after that write (newReplicaSetEvents,
// scaledEvent: one per resize, in order, also when resizes fold into one update); events with no write of their
// own (SelectingAll) are `event` actions. A rollback (rollback.ts) updates the Deployment itself, with its event.
import { isDeepStrictEqual } from 'node:util';
import { adoptAction, releaseAction, type Action, type WriteEvents } from '../../kube/actions.js';
import type { EventSpec } from '../../kube/events/types.js';
import { newReplicaSetEvents } from './events.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from './types.js';
import { jsonCopy } from '../common/json-copy.js';

export type RSReason = 'ScalingReplicaSet' | 'UpdatedReplicaSet' | 'AdoptedReplicaSet' | 'ReleasedReplicaSet';

/** Thrown to end a pass early, as upstream returns an error (e.g. after a hash collision). */
export class SyncAborted extends Error {}

export class Pass {
  readonly d: Deployment;
  private readonly writes = new Map<
    string,
    { object: ReplicaSet; observed: ReplicaSet; reason: RSReason; events: EventSpec[] }
  >();
  private readonly creates = new Map<string, { object: ReplicaSet; events: EventSpec[]; failure: WriteEvents }>();
  private readonly deletes: ReplicaSet[] = [];
  private readonly recorded: EventSpec[] = [];
  private deploymentUpdate: { object: Deployment; events: EventSpec[] } | undefined;
  requeueAfter: number | undefined;

  constructor(
    readonly original: Deployment,
    /** Every ReplicaSet of the namespace, as observed (name collisions are checked against these). */
    readonly namespaceRSs: readonly ReplicaSet[],
    readonly now: Date,
  ) {
    this.d = jsonCopy(original);
    this.d.status ??= {};
  }

  get status(): DeploymentStatus {
    return (this.d.status ??= {});
  }

  /**
   * Applies mutate to the latest state of rs in this pass and returns that state (upstream: Update's result);
   * `events` are recorded once the write succeeded, after those of earlier changes to rs in this pass.
   */
  update(rs: ReplicaSet, reason: RSReason, mutate: (copy: ReplicaSet) => void, events: EventSpec[] = []): ReplicaSet {
    const name = rs.metadata.name ?? '';
    const pending = this.creates.get(name);
    if (pending) {
      mutate(pending.object);
      pending.events.push(...events);
      return jsonCopy(pending.object);
    }
    const prior = this.writes.get(name);
    const object = prior?.object ?? jsonCopy(rs);
    mutate(object);
    const keep = prior?.reason === 'ScalingReplicaSet' ? prior.reason : reason;
    const observed = prior?.observed ?? jsonCopy(rs);
    this.writes.set(name, { object, observed, reason: keep, events: [...(prior?.events ?? []), ...events] });
    return jsonCopy(object);
  }

  /** The new ReplicaSet, with "Scaled up replica set <rs> from 0 to <n>" when n > 0 (and its failure event). */
  create(rs: ReplicaSet): void {
    const { onSuccess = [], onFailure } = newReplicaSetEvents(
      this.original,
      rs.metadata.name ?? '',
      rs.spec.replicas ?? 0,
    );
    this.creates.set(rs.metadata.name ?? '', {
      object: jsonCopy(rs),
      events: [...onSuccess],
      failure: onFailure ? { onFailure } : {},
    });
  }

  /** An event with no write of its own. */
  record(event: EventSpec): void {
    this.recorded.push(event);
  }

  /**
   * An update of the Deployment object itself (rollback: template, annotations, the rollback annotation
   * cleared), from the working copy; `events` once it succeeded. Its annotations go with it, so the pass then
   * writes no status (rollback.ts takes that path only when the status is unchanged).
   */
  updateDeployment(events: EventSpec[]): void {
    const object: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: jsonCopy(this.d.metadata),
      spec: jsonCopy(this.d.spec),
    };
    this.deploymentUpdate = { object, events };
  }

  /** The status (or the annotations written with it) differs from what was observed. */
  statusChanged(): boolean {
    const annotations = this.d.metadata.annotations ?? {};
    return (
      !sameStatus(canonicalStatus(this.d.status), this.original.status) ||
      !isDeepStrictEqual(annotations, this.original.metadata.annotations ?? {})
    );
  }

  delete(rs: ReplicaSet): void {
    this.deletes.push(rs);
  }

  actions(): Action[] {
    const actions: Action[] = this.recorded.map((event): Action => ({ type: 'event', event }));
    for (const { object, events, failure } of this.creates.values())
      actions.push({
        type: 'create',
        object,
        reason: 'SuccessfulCreate',
        events: { onSuccess: events, ...failure },
      });
    for (const { object, observed, reason, events } of this.writes.values()) {
      const claim = claimPatch(this.original, observed, object);
      actions.push(
        claim ?? {
          type: 'update',
          object,
          reason,
          ...(events.length > 0 && { events: { onSuccess: events } }),
        },
      );
    }
    for (const rs of this.deletes) {
      actions.push({
        type: 'delete',
        target: { kind: 'ReplicaSet', namespace: rs.metadata.namespace ?? '', name: rs.metadata.name ?? '' },
        uid: rs.metadata.uid ?? '',
        reason: 'CleanedUpReplicaSet',
      });
    }
    if (this.deploymentUpdate) {
      const { object, events } = this.deploymentUpdate;
      actions.push({
        type: 'update',
        object,
        reason: 'RollbackDeployment',
        events: { onSuccess: events },
      });
      return actions;
    }
    const status = canonicalStatus(this.d.status);
    const annotations = this.d.metadata.annotations ?? {};
    if (this.statusChanged()) {
      const object: Deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { ...this.original.metadata, annotations },
        spec: this.original.spec,
        status,
      };
      actions.push({ type: 'updateStatus', object });
    }
    return actions;
  }
}

/**
 * A write that only adopts or releases a ReplicaSet goes out as upstream's ControllerRefManager sends it: a
 * strategic merge patch of ownerReferences with the ReplicaSet's uid as precondition and no resourceVersion, so
 * it does not collide with the ReplicaSet controller's status writes. Adopting a ReplicaSet gone meanwhile, or
 * releasing one gone or recreated, is nothing left to do (upstream ignores both). A write that also changes
 * anything else (an adopted ReplicaSet scaled in the same pass) stays one update: a patch and then an update
 * from the observed resourceVersion would conflict with each other.
 */
function claimPatch(d: Deployment, observed: ReplicaSet, object: ReplicaSet): Action | undefined {
  const rest = (rs: ReplicaSet): ReplicaSet => ({ ...rs, metadata: { ...rs.metadata, ownerReferences: [] } });
  if (!isDeepStrictEqual(rest(observed), rest(object))) return undefined;
  const uid = d.metadata.uid ?? '';
  const before = (observed.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
  const after = (object.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
  const target = {
    kind: 'ReplicaSet',
    namespace: observed.metadata.namespace ?? '',
    name: observed.metadata.name ?? '',
  };
  const rsUid = observed.metadata.uid ?? '';
  if (!before && after) return adoptAction(target, rsUid, after, 'AdoptedReplicaSet');
  if (before && !after) return releaseAction(target, rsUid, uid, 'ReleasedReplicaSet');
  return undefined;
}

/** Status as the apiserver stores it: no undefined fields, no empty condition list. */
export function canonicalStatus(status: DeploymentStatus | undefined): DeploymentStatus {
  const out = JSON.parse(JSON.stringify(status ?? {})) as DeploymentStatus;
  if (out.conditions?.length === 0) delete out.conditions;
  return out;
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
