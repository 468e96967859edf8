// What the TTL-after-finished controller observes, and the names it shares with kube-controller-manager's
// ttl-after-finished-controller (pkg/controller/ttlafterfinished, 1.37). The Job is the apiserver's JSON as read,
// typed by common/job-api.ts (only metadata, spec.ttlSecondsAfterFinished and the conditions are read).
import type { Job } from '../common/job-api.js';

export type { Job };

/**
 * The kind of its reconcile keys. Not `Job`: keys carry the controller's kind, and this is a controller of its
 * own that reconciles Jobs (upstream runs it apart from job-controller, and a cluster may hand fleetq one without
 * the other), so a Job's two keys, `…/Job/ns/name` and `…/TTLAfterFinished/ns/name`, are queued and leased apart.
 */
export const TTL_AFTER_FINISHED_KIND = 'TTLAfterFinished';
export const JOB_KIND = 'Job';

export type ObservedTtlJob = {
  readonly namespace: string;
  readonly name: string;
  /** The Job as the view has it (the cache's copy, or live); null when it is gone. */
  readonly job: Job | null;
  /**
   * The Job read again from the apiserver (uncached: processJob's `client.Get` before the delete), only when
   * `job` is due for deletion by observe's clock, or observe was given no clock; null when it is gone by then.
   */
  readonly fresh?: Job | null;
};

/** The reason a delete action carries (for logs: upstream records no Kubernetes Event for it). */
export const TTL_EXPIRED = 'TTLExpired';
