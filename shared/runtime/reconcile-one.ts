// One reconcile: observe → pure plan → apply through the one writer → done / addAfter / retry.
// Errors are classified once (kube/errors.ts): a conflict re-reads (requeue now), a terminal error
// parks the key in the dead-letter list, anything else retries with the key's backoff.
import type { Controller } from '../controllers/controller.js';
import { countByType } from '../kube/actions.js';
import { ApiError, TerminalError, classify } from '../kube/errors.js';
import { keyString } from '../kube/key.js';
import type { ClusterRegistry } from '../kube/registry.js';
import type { KubeRest } from '../kube/rest.js';
import type { ClusterView } from '../kube/view.js';
import { applyActions } from '../kube/writer.js';
import type { Lease, WorkQueue } from '../queue/work-queue.js';
import type { Logger } from './logger.js';
import { errorFields } from './logger.js';

export type ClusterClients = { readonly rest: KubeRest; readonly view: ClusterView };

export type ReconcileDeps = {
  readonly registry: ClusterRegistry;
  readonly clients: (cluster: string) => ClusterClients;
  readonly controllers: ReadonlyMap<string, Controller>;
  readonly queue: WorkQueue;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly onOutcome?: (e: { cluster: string; kind: string; outcome: Outcome; seconds: number }) => void;
};

export type Outcome = 'done' | 'requeued' | 'conflict' | 'retried' | 'dead-lettered' | 'lease-lost';

export async function reconcileOne(deps: ReconcileDeps, lease: Lease): Promise<Outcome> {
  const { key } = lease;
  const { queue } = deps;
  const started = Date.now();
  // A child logger per reconcile: several reconciles run at once in one process, so keys appended to a
  // shared logger would leak between them.
  const logger = deps.logger.child({ cluster: key.cluster, kind: key.kind, namespace: key.namespace, name: key.name });
  let outcome: Outcome;
  try {
    outcome = await run(deps, lease, logger);
  } catch (err) {
    const e = classify(err, `reconcile ${keyString(key)}`);
    if (e.code === 'LeaseLost') {
      logger.warn('Lease lost; stopped before writing', { error: e });
      outcome = 'lease-lost';
    } else if (e.code === 'Conflict') {
      logger.info('Conflict; re-reading', { error: e });
      await queue.done(lease);
      await queue.add(key);
      outcome = 'conflict';
    } else if (!e.retryable) {
      logger.error('Key dead-lettered', { code: e.code, error: errorFields(e) });
      await queue.deadLetter(lease, `${e.code}: ${e.message}`);
      outcome = 'dead-lettered';
    } else {
      const r = await queue.retry(lease, e);
      const fields = { code: e.code, failures: lease.failures + 1, error: errorFields(e) };
      if (r.outcome === 'retried') logger.warn('Reconcile failed; retrying', { ...fields, delayMs: r.delayMs });
      else if (r.outcome === 'dead-lettered') logger.error('Key dead-lettered after repeated failures', fields);
      outcome = r.outcome === 'retried' ? 'retried' : r.outcome;
    }
  }
  const ended = Date.now();
  // One line per run with its fencing token and times: the chaos suite's run log (no two runs of a key overlap).
  logger.info('Reconcile finished', { token: lease.token, startedAt: started, endedAt: ended, outcome });
  deps.onOutcome?.({ cluster: key.cluster, kind: key.kind, outcome, seconds: (ended - started) / 1000 });
  return outcome;
}

async function run(deps: ReconcileDeps, lease: Lease, logger: Logger): Promise<Outcome> {
  const { key } = lease;
  logger.debug('Reconcile started', { token: lease.token, failures: lease.failures });
  if (!deps.registry.get(key.cluster))
    throw new TerminalError('UnknownCluster', `cluster ${key.cluster} is not in the registry`);
  const controller = deps.controllers.get(key.kind);
  if (!controller) throw new TerminalError('UnknownKind', `no controller for kind ${key.kind}`);
  if (!deps.registry.owns(key.cluster, key.kind)) {
    throw new TerminalError('NotOwned', `fleetq does not own ${key.kind} in cluster ${key.cluster}`);
  }
  const { rest, view } = deps.clients(key.cluster);
  const observed = await controller.observe(view, key);
  const result = controller.plan(observed, deps.now());
  logger.info('Plan computed', { actions: countByType(result.actions), requeueAfter: result.requeueAfter });
  logger.debug('Plan', { plan: result });
  if (controller.preflight) await controller.preflight(view, key, observed, result);
  const fence = () => deps.queue.renew(lease);
  try {
    await applyActions(rest, result.actions, fence);
  } catch (err) {
    // A failed create or delete may itself be status (ReplicaFailure, ReplicaSetCreateError): write it, then retry.
    if (err instanceof ApiError && (err.method === 'POST' || err.method === 'DELETE') && controller.planWriteFailure) {
      const failure = { message: apiMessage(err), method: err.method };
      const follow = controller.planWriteFailure(observed, deps.now(), failure);
      await applyActions(rest, follow.actions, fence).catch((e: unknown) =>
        logger.warn('Failure status not written', { error: errorFields(e) }),
      );
    }
    throw err;
  }
  await deps.queue.done(lease);
  if (result.requeueAfter === undefined) return 'done';
  await deps.queue.addAfter(key, result.requeueAfter);
  return 'requeued';
}

/** The apiserver's own message from a Status body (what upstream puts in a condition), else the error's. */
function apiMessage(err: ApiError): string {
  try {
    const status = JSON.parse(err.body) as { message?: unknown };
    if (typeof status.message === 'string' && status.message !== '') return status.message;
  } catch {
    // not a Status body
  }
  return err.message;
}
