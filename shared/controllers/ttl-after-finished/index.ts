// The TTL-after-finished controller: kube-controller-manager's ttl-after-finished-controller (1.37) as observe +
// pure plan. Its timer is the queue's: a finished Job not yet due is requeued after the time it has left.
import type { Controller } from '../controller.js';
import { observeTtlJob } from './observe.js';
import { planTtlJob } from './plan.js';
import { TTL_AFTER_FINISHED_KIND, type ObservedTtlJob } from './types.js';

export const ttlAfterFinishedController: Controller<ObservedTtlJob> = {
  kind: TTL_AFTER_FINISHED_KIND,
  observe: observeTtlJob,
  plan: planTtlJob,
};

export type { ObservedTtlJob } from './types.js';
