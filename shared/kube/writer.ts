// The one writer: applies a plan's actions with their preconditions. Creates go in slow-start batches
// (1, 2, 4, …) and stop at the first failing batch, so a failing admission costs one object, not a
// thousand; status is written last. Before each batch the holder's lease is checked (fencing).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Action } from './actions.js';
import { ReconcileError, isNotFound } from './errors.js';
import type { KubeRest } from './rest.js';
import { resourceOf, resourcePath } from './resources.js';

export type Fence = () => Promise<boolean>;

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
    const outcomes = await Promise.allSettled(batch.map((a) => create(rest, a.object)));
    result.created += outcomes.filter((o) => o.status === 'fulfilled').length;
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }
  const others = actions.filter((a) => a.type === 'update' || a.type === 'delete');
  if (others.length > 0) {
    await checkFence(fence);
    await Promise.all(
      others.map(async (a) => {
        await applyOne(rest, a);
        if (a.type === 'update') result.updated++;
        else result.deleted++;
      }),
    );
  }
  for (const a of byType('updateStatus')) {
    await checkFence(fence);
    await applyOne(rest, a);
    result.statusWritten = true;
  }
  return result;
}

async function checkFence(fence: Fence): Promise<void> {
  if (!(await fence())) throw new ReconcileError('LeaseLost', 'the lease on this key was lost; not writing', false);
}

async function create(rest: KubeRest, object: KubernetesObject): Promise<void> {
  const info = resourceOf(object.kind ?? '');
  await rest.request('POST', resourcePath(info, object.metadata?.namespace), { body: object });
}

async function applyOne(rest: KubeRest, action: Action): Promise<void> {
  switch (action.type) {
    case 'create':
      return create(rest, action.object);
    case 'update': {
      const { object } = action;
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name), {
        body: object,
      });
      return;
    }
    case 'updateStatus': {
      const { object } = action;
      requireResourceVersion(object);
      const info = resourceOf(object.kind ?? '');
      await rest.request('PUT', resourcePath(info, object.metadata?.namespace, object.metadata?.name, 'status'), {
        body: object,
      });
      return;
    }
    case 'delete': {
      const { target, uid } = action;
      const info = resourceOf(target.kind);
      try {
        await rest.request('DELETE', resourcePath(info, target.namespace, target.name), {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid }, propagationPolicy: 'Background' },
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
