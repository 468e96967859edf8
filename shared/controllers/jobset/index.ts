// The JobSet controller (sigs.k8s.io/jobset v0.12.0's JobSetReconciler) as observe + pure plan, with upstream's
// feature gates at their defaults (RestartJob, ElasticJobSet, InPlaceRestart off). Registered by its descriptor
// (descriptor.ts) in controllers/index.ts.
import type { Controller } from '../controller.js';
import { observeJobSet } from './observe.js';
import { planJobSet } from './plan.js';
import { undoCreatesForGoneJobSet } from './undo-orphaned-creates.js';
import { JOBSET_KIND, type ObservedJobSet } from './types.js';

/** sigs.k8s.io/jobset pkg/constants MaxParallelism: Job creates and deletes in flight at once. */
export const JOBSET_CREATE_PARALLELISM = 50;

export const jobSetController: Controller<ObservedJobSet> = {
  kind: JOBSET_KIND,
  observe: observeJobSet,
  plan: (observed, now) => planJobSet(observed, now),
  // Upstream's createJobs sends every Job at once (constants.MaxParallelism): one round trip between the fresh
  // read of a JobSet and its Jobs, not slow start's 1, 2, 4, … batches.
  createParallelism: JOBSET_CREATE_PARALLELISM,
  afterApply: undoCreatesForGoneJobSet,
};

export type { ObservedJobSet } from './types.js';
