// The one writer: applies a plan's actions with their preconditions. Creates go in slow-start batches
// (1, 2, 4, …) and stop at the first failing batch, so a failing admission costs one object, not a
// thousand; status is written last.
//
// Fencing (a holder that lost its lease must not write): two checks.
// - fence.held(), synchronous and local, before EVERY request is issued and again inside KubeRest right before
//   it is sent (after the client-side rate limiter, which can wait seconds): false once a renewal was refused
//   or the lease's local deadline (monotonic clock, counted from the request that last granted or renewed
//   it; see runtime/lease-fence.ts) has passed. A process paused past its lease (SIGSTOP, a long GC) fails
//   this check on resume, before it sends anything.
// - fence.confirm(), a round trip to the queue (a renewal), before each batch: the lease is still ours
//   fleet-wide, not only by our clock.
// What remains: the apiserver cannot check our token, so a request that passed held() can still be sent
// and applied after the lease is gone if the process stalls between the check and the send, or the request
// is slow in flight (bounded by the local deadline's safety margin plus network/apiserver latency). Updates
// and deletes carry resourceVersion/uid preconditions, so such a late write fails with 409 if the new holder
// wrote first. Creates have no precondition (upstream relies on expectations + leader election): a late
// create of a generateName object (a pod) is one surplus object the next reconcile removes, a late create of
// a fixed name (a ReplicaSet) gets 409 AlreadyExists. Slow start keeps a batch small (1, 2, 4, …).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Action } from './actions.js';
import { ReconcileError, isNotFound } from './errors.js';
import type { KubeRest } from './rest.js';
import { resourceOf, resourcePath } from './resources.js';

export type Fence = {
  /** Local and synchronous: may this holder still write? Checked immediately before every request. */
  readonly held: () => boolean;
  /** A round trip to the queue (renewal): checked before each batch of writes. */
  readonly confirm: () => Promise<boolean>;
};

export type ApplyResult = {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly statusWritten: boolean;
};

const SLOW_START_INITIAL = 1;

export async function applyActions(rest: KubeRest, actions: readonly Action[], fence: Fence): Promise<ApplyResult> {
  const result = { created: 0, updated: 0, deleted: 0, statusWritten: false };
  const byType = <T extends Action['type']>(t: T) =>
    actions.filter((a): a is Extract<Action, { type: T }> => a.type === t);

  const creates = byType('create');
  for (let i = 0, size = SLOW_START_INITIAL; i < creates.length; i += size, size *= 2) {
    await checkFence(fence);
    const batch = creates.slice(i, i + size);
    const outcomes = await Promise.allSettled(batch.map((a) => create(rest, a.object, fence)));
    result.created += outcomes.filter((o) => o.status === 'fulfilled').length;
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }
  const others = actions.filter((a) => a.type === 'update' || a.type === 'delete');
  if (others.length > 0) {
    await checkFence(fence);
    await Promise.all(
      others.map(async (a) => {
        await applyOne(rest, a, fence);
        if (a.type === 'update') result.updated++;
        else result.deleted++;
      }),
    );
  }
  for (const a of byType('updateStatus')) {
    await checkFence(fence);
    await applyOne(rest, a, fence);
    result.statusWritten = true;
  }
  return result;
}

function leaseLost(): ReconcileError {
  return new ReconcileError('LeaseLost', 'the lease on this key was lost; not writing', false);
}

async function checkFence(fence: Fence): Promise<void> {
  if (!fence.held() || !(await fence.confirm())) throw leaseLost();
}

/** The local check before a request is issued. */
function guard(fence: Fence): void {
  if (!fence.held()) throw leaseLost();
}

/** The same check once more inside KubeRest, after its rate limiter's wait, right before the send. */
function guarded(fence: Fence): () => void {
  return () => guard(fence);
}

async function create(rest: KubeRest, object: KubernetesObject, fence: Fence): Promise<void> {
  const info = resourceOf(object.kind ?? '');
  guard(fence);
  await rest.request('POST', resourcePath(info, object.metadata?.namespace), {
    body: object,
    beforeSend: guarded(fence),
  });
}

async function applyOne(rest: KubeRest, action: Action, fence: Fence): Promise<void> {
  switch (action.type) {
    case 'create':
      return create(rest, action.object, fence);
    case 'update': {
      const { object } = action;
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      guard(fence);
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name), {
        body: object,
        beforeSend: guarded(fence),
      });
      return;
    }
    case 'updateStatus': {
      const { object } = action;
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      guard(fence);
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name, 'status'), {
        body: object,
        beforeSend: guarded(fence),
      });
      return;
    }
    case 'delete': {
      const { target, uid } = action;
      const info = resourceOf(target.kind);
      guard(fence);
      try {
        await rest.request('DELETE', resourcePath(info, target.namespace, target.name), {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid }, propagationPolicy: 'Background' },
          beforeSend: guarded(fence),
        });
      } catch (err) {
        if (isNotFound(err)) return; // already gone: the goal is met
        throw err;
      }
      return;
    }
    default:
      return assertNever(action);
  }
}

function requireResourceVersion(o: KubernetesObject): void {
  if (!o.metadata?.resourceVersion) {
    throw new ReconcileError(
      'PlanFailed',
      `update of ${o.kind} ${o.metadata?.namespace}/${o.metadata?.name} carries no resourceVersion`,
      false,
    );
  }
}

function assertNever(x: never): never {
  throw new Error(`unknown action ${JSON.stringify(x)}`);
}
