// One reconcile: observe → pure plan → apply through the one writer → done (with requeueAfter) / retry.
// Errors are classified once (kube/errors.ts): a conflict re-reads after the key's conflict backoff (client-go's
// rate-limited requeue; never at full speed against a persistent 409), a terminal error parks the key in the
// dead-letter list, anything else retries with the key's backoff, without end. A lost lease stops the run
// before its next write (the fence, lease-fence.ts) and touches nothing in the queue.
// Reads from the cache: each run reads through its key's view (it first waits until the cache has passed the
// key's previous writes), and what this run writes is recorded for the next one (cache/write-tracker.ts).
// Kubernetes Events: the writer hands the events of the plan's writes to the cluster's recorder (one per
// cluster and process, kube/events/recorders.ts), which writes them in the background; deps without `events`
// record none.
// A key of a cluster the registry does not know waits for the registry (deps.unknownCluster): a cluster just
// added reaches the forwarders before every worker has re-read the registry. The run asks for a re-read, then
// retries the key with its backoff while the backoff's total stays under waitMs, and dead-letters it after that.
import type { CachedClusterView } from '../cache/cached-cluster-view.js';
import { WriteTracker, trackWrites } from '../cache/write-tracker.js';
import {
  REMOTE_RETRY_MS,
  type Controller,
  type FleetAccess,
  type GaugeSample,
  type PlanResult,
  type RemoteActions,
} from '../controllers/controller.js';
import { countByType } from '../kube/actions.js';
import { ApiError, GuardRefusedError, ReconcileError, TerminalError, classify } from '../kube/errors.js';
import { keyString, type ReconcileKey } from '../kube/key.js';
import type { EventRecorders } from '../kube/events/recorders.js';
import { isAccessDenied } from '../kube/events/status-cause.js';
import { forController } from '../kube/request-controller.js';
import type { KubeRest } from '../kube/rest.js';
import type { ClusterView } from '../kube/view.js';
import { applyActions } from '../kube/writer.js';
import { backoffDelay, DEFAULT_QUEUE_OPTIONS, type Lease, type WorkQueue } from '../queue/work-queue.js';
import type { Logger } from './logger.js';
import { errorFields } from './logger.js';
import { LeaseFence } from './lease-fence.js';
import { summarizePlan } from './plan-summary.js';
import type { RegistryLookup } from './registry-watch.js';
import { currentPhaseClock, PhaseClock, timedPhase, withPhaseClock, type Phase } from './reconcile-phases.js';

export type ClusterClients = {
  readonly rest: KubeRest;
  readonly view: ClusterView;
  /** With reads from the cache: the view each key's run reads through (read-your-writes). */
  readonly cached?: CachedClusterView;
};

export type ReconcileDeps = {
  readonly registry: RegistryLookup;
  /**
   * Keys of a cluster the registry does not know: `refresh` re-reads the registry (true when it changed); the
   * key is retried with its backoff while the backoff's total is under `waitMs`, then dead-lettered. Absent:
   * dead-lettered at once (a registry that never changes).
   */
  readonly unknownCluster?: { readonly waitMs: number; readonly refresh?: () => boolean; readonly source?: string };
  readonly clients: (cluster: string) => ClusterClients;
  readonly controllers: ReadonlyMap<string, Controller>;
  readonly queue: WorkQueue;
  readonly logger: Logger;
  readonly now: () => Date;
  /** The event recorders of this process (one per cluster); absent: no Kubernetes Events are recorded. */
  readonly events?: EventRecorders;
  /** The queue's lease duration, for the local fence deadline; default 30 000. */
  readonly leaseMs?: number;
  /** A successful run's gauges (PlanResult.gauges); absent: not exported. */
  readonly onGauges?: (samples: readonly GaugeSample[]) => void;
  readonly onOutcome?: (e: {
    cluster: string;
    kind: string;
    outcome: Outcome;
    seconds: number;
    /** ms per phase of the run (reconcile-phases.ts). */
    phases?: Partial<Record<Phase, number>>;
  }) => void;
};

export type Outcome = 'done' | 'requeued' | 'conflict' | 'retried' | 'dead-lettered' | 'lease-lost';

export type ReconcileOneOptions = {
  /**
   * Asked when the run releases its key: true when the caller will get() its next key at once (a worker slot
   * still running), so the queue may hand it out in the release's own round trip (WorkQueue DoneOptions).
   */
  readonly thenGet?: () => boolean;
};

/**
 * `fence`: the lease's fence, renewed by the caller (loop.ts); without one, a fence with the queue's lease
 * duration counted from the lease's grant is used.
 */
export function reconcileOne(
  deps: ReconcileDeps,
  lease: Lease,
  fence?: LeaseFence,
  options: ReconcileOneOptions = {},
): Promise<Outcome> {
  // Where the run's time goes (reconcile-phases.ts): the code inside it adds to this run's clock. Its requests
  // take from its controller's API budget (kube/request-controller.ts).
  const clock = new PhaseClock();
  return withPhaseClock(clock, () =>
    forController(lease.key.kind, () => reconcileTimed(deps, lease, clock, fence, options)),
  );
}

async function reconcileTimed(
  deps: ReconcileDeps,
  lease: Lease,
  clock: PhaseClock,
  fence: LeaseFence | undefined,
  options: ReconcileOneOptions,
): Promise<Outcome> {
  const { key } = lease;
  const { queue } = deps;
  const started = Date.now();
  if (lease.readyAt > 0 && lease.readyAt <= started) clock.add('queued', started - lease.readyAt);
  const leaseFence = fence ?? new LeaseFence(queue, lease, { leaseMs: deps.leaseMs ?? 30_000 });
  // A child logger per reconcile: several reconciles run at once in one process, so keys appended to a
  // shared logger would leak between them.
  const logger = deps.logger.child({ cluster: key.cluster, kind: key.kind, namespace: key.namespace, name: key.name });
  // When the run's work ended: just before the queue is told (done, retry or dead letter). Once that call is
  // sent the key may be handed to another holder, and this run acts on it no more; its reply can come back
  // later on a loaded machine, so the time after it would overstate how long the key was held.
  const work = { endedAt: 0 };
  let outcome: Outcome;
  try {
    outcome = await run(deps, lease, logger, leaseFence, work, options);
  } catch (err) {
    work.endedAt = Date.now();
    const e = classify(err, `reconcile ${keyString(key)}`);
    if (e.code === 'LeaseLost') {
      logger.warn('Lease lost; stopped before writing', { error: errorFields(e), token: lease.token });
      outcome = 'lease-lost';
    } else if (e.code === 'Conflict') {
      const r = await clock.time('release', () => queue.retry(lease, e, { conflict: true }));
      if (r.outcome === 'retried')
        logger.info('Conflict; re-reading after backoff', {
          delayMs: r.delayMs,
          conflicts: (lease.conflicts ?? 0) + 1,
          error: e,
        });
      outcome = r.outcome === 'retried' ? 'conflict' : 'lease-lost';
    } else if (!e.retryable) {
      logger.error('Key dead-lettered', { code: e.code, error: errorFields(e) });
      await clock.time('release', () => queue.deadLetter(lease, `${e.code}: ${e.message}`));
      outcome = 'dead-lettered';
    } else {
      const r = await clock.time('release', () => queue.retry(lease, e));
      const fields = { code: e.code, failures: lease.failures + 1, error: errorFields(e) };
      // A guard refusal means a read path undercounted: an error, with the counts that broke the bound.
      if (e instanceof GuardRefusedError)
        logger.error('Guard refused the plan', {
          ...fields,
          ...e.fields,
          ...(r.outcome === 'retried' && { delayMs: r.delayMs }),
        });
      // Refused by the cluster's authorization: a deployment error (its role lacks a rule) an operator must see.
      else if (isAccessDenied(e.cause) && r.outcome === 'retried')
        logger.error('Reconcile forbidden (403); retrying', { ...fields, delayMs: r.delayMs });
      else if (r.outcome === 'retried') logger.warn('Reconcile failed; retrying', { ...fields, delayMs: r.delayMs });
      outcome = r.outcome;
    }
  }
  const ended = work.endedAt || Date.now();
  clock.add('total', Date.now() - started);
  const phases = clock.fields();
  // One line per run with its fencing token and times: the chaos suite's run log (no two runs of a key overlap).
  // endedAt is when the work ended (before the queue call); releasedAt when the queue's reply came back.
  logger.info('Reconcile finished', {
    token: lease.token,
    startedAt: started,
    endedAt: ended,
    releasedAt: Date.now(),
    outcome,
    phases,
    requests: clock.requests,
  });
  deps.onOutcome?.({ cluster: key.cluster, kind: key.kind, outcome, seconds: (ended - started) / 1000, phases });
  return outcome;
}

async function run(
  deps: ReconcileDeps,
  lease: Lease,
  logger: Logger,
  fence: LeaseFence,
  work: { endedAt: number },
  options: ReconcileOneOptions,
): Promise<Outcome> {
  const { key } = lease;
  logger.debug('Reconcile started', { token: lease.token, failures: lease.failures });
  if (!deps.registry.get(key.cluster)) unknownCluster(deps, lease);
  const controller = deps.controllers.get(key.kind);
  if (!controller) throw new TerminalError('UnknownKind', `no controller for kind ${key.kind}`);
  const owned = deps.registry.owns(key.cluster, key.kind);
  if (!owned && !(deps.registry.handsOver(key.cluster, key.kind) && controller.handedOver)) {
    throw new TerminalError('NotOwned', `fleetq does not own ${key.kind} in cluster ${key.cluster}`);
  }
  const clients = deps.clients(key.cluster);
  const keyView = clients.cached?.forKey(keyString(key));
  const tracker = new WriteTracker();
  let result: PlanResult;
  try {
    result = await trackWrites(tracker, () =>
      observeAndApply(deps, controller, key, clients.rest, keyView ?? clients.view, fence, logger, owned),
    );
  } finally {
    // Before done(): the key's next run must find this run's writes recorded, or it could read a cache that
    // has not seen them yet (and create again what this run created).
    if (keyView) await timedPhase('settle', () => keyView.settle(tracker.record()));
  }
  // A fleet controller's writes to other clusters, after its own writes were applied and settled.
  if (result.remote !== undefined && result.remote.length > 0) {
    const failed = await timedPhase('apply', () => applyRemote(deps, result.remote ?? [], fence, logger));
    if (failed > 0)
      result = { ...result, requeueAfter: Math.min(result.requeueAfter ?? REMOTE_RETRY_MS, REMOTE_RETRY_MS) };
  }
  if (result.gauges !== undefined && result.gauges.length > 0) deps.onGauges?.(result.gauges);
  // Release and requeue in one atomic step: a crash between the two cannot lose the requeue.
  work.endedAt = Date.now();
  const thenGet = options.thenGet?.() ?? false;
  const released = await timedPhase('release', () => deps.queue.done(lease, result.requeueAfter, { thenGet }));
  if (released.outcome === 'lease-lost') {
    // The work was applied, but another holder may have the key by now: its requeue was not scheduled here.
    logger.warn('Lease lost before done; the key was not released by this run', { token: lease.token });
    return 'lease-lost';
  }
  return result.requeueAfter === undefined ? 'done' : 'requeued';
}

/** The registry's clusters and their views, for a fleet controller's observe. */
function fleetAccess(deps: ReconcileDeps): FleetAccess {
  return {
    clusters: () => deps.registry.clusters.map((c) => ({ name: c.name, ...(c.labels && { labels: c.labels }) })),
    view: (cluster) => deps.clients(cluster).view,
  };
}

/**
 * Each cluster's writes on their own, at once: a lost lease stops them all (the fence), any other failure is
 * logged and counted. Returns how many clusters' writes failed.
 */
async function applyRemote(
  deps: ReconcileDeps,
  remote: readonly RemoteActions[],
  fence: LeaseFence,
  logger: Logger,
): Promise<number> {
  const results = await Promise.allSettled(
    remote.map(async ({ cluster, actions }) => {
      if (!deps.registry.get(cluster))
        throw new ReconcileError('UnknownCluster', `cluster ${cluster} is not in the registry`);
      const { rest } = deps.clients(cluster);
      const events = deps.events?.for(cluster, rest);
      await applyActions(rest, actions, fence, events ? { events } : {});
    }),
  );
  let failed = 0;
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') return;
    const e = classify(r.reason, `write to cluster ${remote[i]?.cluster ?? ''}`);
    if (e.code === 'LeaseLost') throw e;
    failed += 1;
    logger.warn('Write to another cluster failed; looking again soon', {
      target: remote[i]?.cluster,
      code: e.code,
      error: errorFields(e),
      retryMs: REMOTE_RETRY_MS,
    });
  });
  return failed;
}

/** The registry has no such cluster (after a re-read): retryable while the key's wait is under the bound. */
function unknownCluster(deps: ReconcileDeps, lease: Lease): void {
  const { cluster } = lease.key;
  const wait = deps.unknownCluster;
  if (wait?.refresh?.() && deps.registry.get(cluster)) return;
  const where = wait?.source === undefined ? 'the registry' : `the registry ${wait.source}`;
  const { baseDelayMs, maxDelayMs } = DEFAULT_QUEUE_OPTIONS;
  let waitedMs = 0;
  for (let i = 0; i < lease.failures; i++) waitedMs += backoffDelay(i, baseDelayMs, maxDelayMs);
  if (wait && waitedMs < wait.waitMs)
    throw new ReconcileError(
      'UnknownCluster',
      `cluster ${cluster} is not in ${where} yet; waiting for it (about ${Math.round(waitedMs / 1000)} s of ${Math.round(wait.waitMs / 1000)} s)`,
    );
  throw new TerminalError(
    'UnknownCluster',
    `cluster ${cluster} is not in ${where}` +
      (wait ? ` (waited about ${Math.round(waitedMs / 1000)} s)` : '') +
      `: add it to the registry every worker and forwarder reads (or remove what enqueues its keys), then redrive this key (fleetq dlq redrive --cluster ${cluster})`,
  );
}

/** observe → plan → preflight → apply; returns the plan. */
async function observeAndApply(
  deps: ReconcileDeps,
  controller: Controller,
  key: ReconcileKey,
  rest: KubeRest,
  view: ClusterView,
  fence: LeaseFence,
  logger: Logger,
  owned: boolean,
): Promise<PlanResult> {
  const observed = await timedPhase('observe', () => controller.observe(view, key, deps.now(), fleetAccess(deps)));
  // A kind handed over one object at a time: an object not handed to fleetq is its cluster's own controller's.
  if (!owned && !controller.handedOver?.(observed)) {
    logger.debug('Not handed over to fleetq; left to the cluster', {});
    return { actions: [] };
  }
  const planStarted = performance.now();
  const result = controller.plan(observed, deps.now());
  currentPhaseClock()?.add('plan', performance.now() - planStarted);
  logger.info('Plan computed', { actions: countByType(result.actions), requeueAfter: result.requeueAfter });
  // Refs and reasons only: the objects a plan writes carry ConfigMap data and env values (plan-summary.ts).
  logger.debug('Plan', { plan: summarizePlan(result) });
  const { preflight } = controller;
  if (preflight) await timedPhase('preflight', () => preflight(view, key, observed, result));
  const events = deps.events?.for(key.cluster, rest);
  const apply = {
    ...(events && { events }),
    ...(controller.createParallelism !== undefined && { createParallelism: controller.createParallelism }),
  };
  // What the controller says this pass must undo, read fresh after its writes (nothing without afterApply).
  const undo = async (): Promise<void> => {
    const { afterApply } = controller;
    if (!afterApply) return;
    const actions = await timedPhase('observe', () => afterApply(view, key, observed, result));
    if (actions.length === 0) return;
    logger.info('Undoing writes after a fresh read', { actions: countByType(actions) });
    await timedPhase('apply', () => applyActions(rest, actions, fence, apply));
  };
  try {
    await timedPhase('apply', () => applyActions(rest, result.actions, fence, apply));
  } catch (err) {
    // A failed create or delete may itself be status (ReplicaFailure, ReplicaSetCreateError): write it, then retry.
    if (err instanceof ApiError && (err.method === 'POST' || err.method === 'DELETE') && controller.planWriteFailure) {
      const failure = { message: apiMessage(err), method: err.method };
      const follow = controller.planWriteFailure(observed, deps.now(), failure);
      await applyActions(rest, follow.actions, fence, apply).catch((e: unknown) =>
        logger.warn('Failure status not written', { error: errorFields(e) }),
      );
    }
    // The writes that went through before the failure are undone as well (a JobSet gone after its Jobs were
    // created also refuses their status write); a lost lease writes nothing more.
    if (!(err instanceof ReconcileError && err.code === 'LeaseLost')) {
      await undo().catch((e: unknown) => logger.warn('Writes not undone', { error: errorFields(e) }));
    }
    throw err;
  }
  await undo();
  return result;
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
