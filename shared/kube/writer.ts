// The one writer: applies a plan's actions with their preconditions. Creates go in slow-start batches
// (1, 2, 4, …) and stop at the first failing batch, so a failing admission costs one object, not a
// thousand, as upstream's ReplicaSet, Job, StatefulSet and DaemonSet controllers do; a controller whose upstream
// creates everything at once (JobSet: ParallelizeUntil over its Jobs, at most 50 in flight, every create tried
// whatever the others did) asks for that instead (`createParallelism`). Status is written last.
//
// Fencing (a holder that lost its lease must not write): two checks.
// - fence.held(), synchronous and local, before EVERY request is issued and again inside KubeRest right before
//   it is sent (after the client-side rate limiter, which can wait seconds): false once a renewal was refused
//   or the lease's local deadline (monotonic clock, counted from the request that last granted or renewed
//   it; see runtime/lease-fence.ts) has passed. A process paused past its lease (SIGSTOP, a long GC) fails
//   this check on resume, before it sends anything.
// - fence.confirm(), a round trip to the queue (a renewal), for each batch: the lease is still ours
//   fleet-wide, not only by our clock. It is started as the batch starts and each request of the batch waits
//   for its answer after the rate limiter's take and before it is sent (KubeRest's beforeSend), so the queue's
//   round trip and the API budget's (Redis, fleet-wide) overlap instead of adding up; nothing is sent unconfirmed.
//   A refused confirm fails every request of the batch before its send (the tokens they took are spent).
// What remains: the apiserver cannot check our token, so a request that passed held() can still be sent
// and applied after the lease is gone if the process stalls between the check and the send, or the request
// is slow in flight (bounded by the local deadline's safety margin plus network/apiserver latency). Updates
// and deletes carry resourceVersion/uid preconditions, so such a late write fails with 409 if the new holder
// wrote first. Creates have no precondition (upstream relies on expectations + leader election): a late
// create of a generateName object (a pod) is one surplus object the next reconcile removes, a late create of
// a fixed name (a ReplicaSet) gets 409 AlreadyExists. Slow start keeps a batch small (1, 2, 4, …).
//
// Updates, patches, server-side applies and deletes go out together after the creates; an apply that creates its
// object counts as an update in the result (the response does not say which it was).
//
// Events (Kubernetes Events, as upstream records them): a write's `onSuccess` events are recorded once it
// succeeded (a pod's name comes from the create response), its `onFailure` event when the apiserver refused it
// (not for a 404 on delete, nor a namespace being terminated: upstream records none then), and `event` actions
// unconditionally. They are handed to the recorder at the end of the apply, after the status write, in the
// order of the actions, and also when the apply fails part-way: a write that was done keeps its event. The
// recorder only buffers (kube/events/recorder.ts): recording never blocks or fails a reconcile.
import type { Action, WriteEvents } from './actions.js';
import { applyRequest } from './apply-request.js';
import { ApiError, ReconcileError, isAlreadyExists, isNotFound } from './errors.js';
import { resolveEvent } from './events/make-event.js';
import type { EventSink } from './events/recorder.js';
import { errorText, hasStatusCause, NAMESPACE_TERMINATING } from './events/status-cause.js';
import type { ResolvedEvent } from './events/types.js';
import { droppedAnnotationsOf, restoredFrom, withoutDroppedMarker } from './meta/dropped-annotations.js';
import type { ApiObject } from './meta/object.js';
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
  /** Kubernetes Events handed to the recorder. */
  readonly events: number;
};

export type ApplyOptions = {
  /** The cluster's event recorder; without one, no events are recorded. */
  readonly events?: EventSink;
  /**
   * Creates in batches of this many at once, every batch sent whatever the earlier ones met, the first failure
   * thrown after the last batch (upstream JobSet's createJobs). Absent: slow start.
   */
  readonly createParallelism?: number;
};

const SLOW_START_INITIAL = 1;

export async function applyActions(
  rest: KubeRest,
  actions: readonly Action[],
  fence: Fence,
  o: ApplyOptions = {},
): Promise<ApplyResult> {
  const result = { created: 0, updated: 0, deleted: 0, statusWritten: false, events: 0 };
  // The events of each action, by its index: recorded in the order of the actions, whatever order the
  // writes of a batch finished in.
  const recorded: ResolvedEvent[][] = actions.map((a) => (a.type === 'event' ? [resolveEvent(a.event)] : []));
  let lost = false;
  const indexed = actions.map((action, i) => ({ action, i }));
  const ofType = <T extends Action['type']>(...types: T[]) =>
    indexed.filter((x): x is { action: Extract<Action, { type: T }>; i: number } =>
      (types as string[]).includes(x.action.type),
    );

  try {
    const creates = ofType('create');
    const parallel = o.createParallelism;
    let createFailure: { reason: unknown } | undefined;
    const next = (size: number): number => (parallel === undefined ? size * 2 : size);
    for (
      let start = 0, size = parallel ?? SLOW_START_INITIAL;
      start < creates.length;
      start += size, size = next(size)
    ) {
      const confirmed = confirmFence(fence);
      const batch = creates.slice(start, start + size);
      const outcomes = await Promise.allSettled(
        batch.map(({ action }) => create(rest, action.object, fence, confirmed)),
      );
      await confirmed;
      outcomes.forEach((out, j) => {
        const { action, i } = batch[j]!;
        if (out.status === 'fulfilled') result.created++;
        recorded[i] = outcomeEvents(action.events, out, out.status === 'fulfilled' ? out.value.metadata?.name : '');
      });
      const failed = outcomes.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed && parallel === undefined) throw failed.reason;
      // A lost lease ends the apply at once in either mode: nothing more may be sent.
      if (failed && failed.reason instanceof ReconcileError && failed.reason.code === 'LeaseLost') throw failed.reason;
      if (failed) createFailure ??= { reason: failed.reason };
    }
    if (createFailure) throw createFailure.reason;
    const others = ofType('update', 'patch', 'apply', 'delete');
    if (others.length > 0) {
      const confirmed = confirmFence(fence);
      const outcomes = await Promise.allSettled(others.map(({ action }) => applyOne(rest, action, fence, confirmed)));
      await confirmed;
      outcomes.forEach((out, j) => {
        const { action, i } = others[j]!;
        if (out.status === 'fulfilled') {
          if (action.type === 'delete') result.deleted++;
          else if (out.value === 'written') result.updated++;
        }
        // A delete that found the object gone did nothing: upstream records no event for it.
        recorded[i] = out.status === 'fulfilled' && out.value === 'absent' ? [] : outcomeEvents(action.events, out);
      });
      const failed = outcomes.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed) throw failed.reason;
    }
    for (const { action, i } of ofType('updateStatus')) {
      const confirmed = confirmFence(fence);
      await applyOne(rest, action, fence, confirmed);
      await confirmed;
      result.statusWritten = true;
      recorded[i] = (action.events?.onSuccess ?? []).map((e) => resolveEvent(e));
    }
  } catch (err) {
    lost = err instanceof ReconcileError && err.code === 'LeaseLost';
    throw err;
  } finally {
    // A holder that lost its lease records no event of its own (`event` actions); the new holder's pass will.
    if (lost) actions.forEach((a, i) => a.type === 'event' && (recorded[i] = []));
    for (const e of o.events ? recorded.flat() : []) {
      o.events?.record(e);
      result.events++;
    }
  }
  return result;
}

/** The events one write records: its success events (the created name appended where asked), or its failure. */
function outcomeEvents(
  events: WriteEvents | undefined,
  out: PromiseSettledResult<unknown>,
  createdName = '',
): ResolvedEvent[] {
  if (events === undefined) return [];
  if (out.status === 'fulfilled') return (events.onSuccess ?? []).map((e) => resolveEvent(e, createdName));
  const failure = events.onFailure;
  if (failure === undefined || !recordsFailure(out.reason, failure.quietOn ?? [])) return [];
  const { quietOn: _quiet, ...spec } = failure;
  return [resolveEvent(spec, errorText(out.reason))];
}

/**
 * Upstream records a failure event for an error the apiserver answered (here: an ApiError), except a
 * namespace being terminated and the refusals a write lists as quiet. A request not sent (the fence, an open
 * circuit) or not answered records nothing: the write will be retried.
 */
function recordsFailure(err: unknown, quietOn: readonly string[]): boolean {
  if (!(err instanceof ApiError)) return false;
  if (hasStatusCause(err, NAMESPACE_TERMINATING)) return false;
  return !(quietOn.includes('AlreadyExists') && isAlreadyExists(err));
}

function leaseLost(): ReconcileError {
  return new ReconcileError('LeaseLost', 'the lease on this key was lost; not writing', false);
}

/**
 * Checks the lease locally (throws at once when it is gone) and starts its confirmation round trip: the returned
 * promise rejects with LeaseLost when the queue refuses. A batch's requests wait for it before they are sent.
 */
function confirmFence(fence: Fence): Promise<void> {
  guard(fence);
  const confirmed = fence.confirm().then((ok) => {
    if (!ok) throw leaseLost();
  });
  // Awaited by the batch after its requests; a request that failed before its send never awaits it.
  confirmed.catch(() => undefined);
  return confirmed;
}

/** The local check before a request is issued. */
function guard(fence: Fence): void {
  if (!fence.held()) throw leaseLost();
}

/**
 * What KubeRest waits for and checks after its rate limiter's wait: the batch's confirmation, then, synchronously
 * right before the send, the local check once more.
 */
function guarded(fence: Fence, confirmed: Promise<void>): { sendAfter: Promise<void>; beforeSend: () => void } {
  return { sendAfter: confirmed, beforeSend: () => guard(fence) };
}

async function create(rest: KubeRest, object: ApiObject, fence: Fence, confirmed: Promise<void>): Promise<ApiObject> {
  const info = resourceOf(object.kind ?? '');
  guard(fence);
  return rest.request<ApiObject>('POST', resourcePath(info, object.metadata?.namespace), {
    body: withoutDroppedMarker(object),
    ...guarded(fence, confirmed),
  });
}

/**
 * The object a PUT sends: when the forwarder or the cache trimmed annotations off the observed copy it was built
 * from, their values are read live and put back, so that the PUT (which replaces metadata.annotations, on the
 * status subresource too) leaves them in the cluster (kube/meta/dropped-annotations.ts). Costs one GET, only for
 * an object that was trimmed; a live copy of another version is left to the PUT's precondition (409).
 */
async function restoreDroppedAnnotations<T extends ApiObject>(rest: KubeRest, object: T): Promise<T> {
  if (droppedAnnotationsOf(object).length === 0) return withoutDroppedMarker(object);
  const info = resourceOf(object.kind ?? '');
  const live = await rest.request<ApiObject>(
    'GET',
    resourcePath(info, object.metadata?.namespace, object.metadata?.name),
  );
  return restoredFrom(object, live);
}

/** 'absent': a delete found the object already gone (the goal is met, nothing was written). */
async function applyOne(
  rest: KubeRest,
  action: Action,
  fence: Fence,
  confirmed: Promise<void>,
): Promise<'written' | 'absent'> {
  switch (action.type) {
    case 'create':
      await create(rest, action.object, fence, confirmed);
      return 'written';
    case 'update': {
      const object = await restoreDroppedAnnotations(rest, action.object);
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      guard(fence);
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name), {
        body: object,
        ...guarded(fence, confirmed),
      });
      return 'written';
    }
    case 'patch': {
      const { target } = action;
      const info = resourceOf(target.kind);
      guard(fence);
      try {
        await rest.request('PATCH', resourcePath(info, target.namespace, target.name), {
          body: action.patch,
          contentType: 'application/strategic-merge-patch+json',
          ...guarded(fence, confirmed),
        });
      } catch (err) {
        const refusal = isNotFound(err)
          ? 'NotFound'
          : err instanceof ApiError && err.code === 422
            ? 'Invalid'
            : undefined;
        if (refusal !== undefined && action.ignore?.includes(refusal)) return 'absent';
        throw err;
      }
      return 'written';
    }
    case 'apply': {
      // Server-side apply (apply-request.ts). Sent whole every time: a configuration equal to what the manager
      // applied last changes nothing on the server (no new resourceVersion).
      const { method, path, ...o } = applyRequest(action);
      guard(fence);
      await rest.request(method, path, { ...o, ...guarded(fence, confirmed) });
      return 'written';
    }
    case 'updateStatus': {
      const object = await restoreDroppedAnnotations(rest, action.object);
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      guard(fence);
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name, 'status'), {
        body: object,
        ...guarded(fence, confirmed),
      });
      return 'written';
    }
    case 'delete': {
      const { target, uid } = action;
      const info = resourceOf(target.kind);
      const propagationPolicy = action.propagationPolicy ?? 'Background';
      guard(fence);
      try {
        await rest.request('DELETE', resourcePath(info, target.namespace, target.name), {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid }, propagationPolicy },
          ...guarded(fence, confirmed),
        });
      } catch (err) {
        if (isNotFound(err)) return 'absent'; // already gone: the goal is met
        throw err;
      }
      return 'written';
    }
    case 'event':
      return 'absent'; // recorded by applyActions, no write
    default:
      return assertNever(action);
  }
}

function requireResourceVersion(o: ApiObject): void {
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
