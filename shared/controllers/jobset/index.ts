// The JobSet controller (sigs.k8s.io/jobset v0.12.0's JobSetReconciler) as observe + pure plan, with upstream's
// feature gates at their defaults (RestartJob, ElasticJobSet, InPlaceRestart off). Registered by its descriptor
// (descriptor.ts) in controllers/index.ts.
import type { Controller } from '../controller.js';
import { observeJobSet } from './observe.js';
import { planJobSet } from './plan.js';
import { JOBSET_KIND, type ObservedJobSet } from './types.js';

export const jobSetController: Controller<ObservedJobSet> = {
  kind: JOBSET_KIND,
  observe: observeJobSet,
  plan: (observed, now) => planJobSet(observed, now),
};

export type { ObservedJobSet } from './types.js';
