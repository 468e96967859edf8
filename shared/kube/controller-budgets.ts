// A cluster's API budget, per controller: each controller takes from a token bucket of its own (registry
// `limits.qps`/`limits.burst`), as kube-controller-manager gives each controller its own client (QPS 20,
// burst 30), and, when the registry sets `limits.clusterQps`, every request also takes from one cap bucket of
// the whole cluster. The buckets themselves (fleet-wide in Redis or in process) come from the caller; this
// decides which a request takes from.
//
// The controller is the reconcile's (request-controller.ts): the key kinds one upstream controller reconciles
// share its bucket (kinds.ts OWNED_TOGETHER: LeaderWorkerSet with LeaderWorkerSetPod). Requests made outside a
// reconcile (the event recorders' background writes, CLI commands) share one more bucket, OUTSIDE_RECONCILES.
//
// The controller's token comes first, then the cap's: a token of the cap is taken only when the request can go
// at once, so requests leave at the cap's pace at most. Taken the other way, or both at once, a controller
// behind its own bucket would hold cap tokens it does not use yet and then send them together with others'.
import { OWNED_TOGETHER } from './kinds.js';
import type { BudgetRate } from './registry.js';
import type { RateLimiter } from './rest.js';
import { currentController } from './request-controller.js';

/** The bucket of the requests made outside any reconcile. */
export const OUTSIDE_RECONCILES = 'outside-reconciles';

/** The bucket a request of `kind`'s reconcile takes from: the first kind of its group, else the kind itself. */
export function budgetName(kind: string | undefined, groups: readonly (readonly string[])[] = OWNED_TOGETHER): string {
  if (kind === undefined) return OUTSIDE_RECONCILES;
  return groups.find((g) => g.includes(kind))?.[0] ?? kind;
}

export type ControllerBudgetsOptions = {
  /** Each controller's rate. */
  readonly perController: BudgetRate;
  /** The cap on the cluster as a whole; absent: none. */
  readonly cluster?: BudgetRate;
  /** Makes a bucket: one per controller name, and one for the cap (`controller` undefined). */
  readonly bucket: (controller: string | undefined, rate: BudgetRate) => RateLimiter;
  /** The controller of the current request (default: the reconcile's, request-controller.ts). */
  readonly current?: () => string | undefined;
};

export class ControllerBudgets implements RateLimiter {
  private readonly buckets = new Map<string, RateLimiter>();
  private readonly cap: RateLimiter | undefined;

  constructor(private readonly o: ControllerBudgetsOptions) {
    this.cap = o.cluster && o.bucket(undefined, o.cluster);
  }

  async take(): Promise<void> {
    await this.controllerBucket(budgetName((this.o.current ?? currentController)())).take();
    await this.cap?.take();
  }

  private controllerBucket(name: string): RateLimiter {
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = this.o.bucket(name, this.o.perController);
      this.buckets.set(name, bucket);
    }
    return bucket;
  }
}
