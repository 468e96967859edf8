// The ReplicaSet controller: observe by live reads, plan purely, and a preflight guard (guard.ts) that refuses a
// pass whose creates would take the ReplicaSet's pods past replicas + maxSurge by a fresh count.
//
// planWriteFailure: the runtime calls it after applyActions threw on a create (POST) or delete (DELETE) of a
// plan from this controller; it returns the status write that records ReplicaFailure (upstream writes status
// in the same sync with manageReplicasErr). The key is then retried with its backoff; the condition is removed
// by the next successful pass.
import type { Controller, PlanResult } from '../controller.js';
import { preflightReplicaSet } from './guard.js';
import { observeReplicaSet } from './observe.js';
import { planManageFailure, planReplicaSet } from './plan.js';
import { RS_KIND, type ManageFailure, type ObservedReplicaSet } from './types.js';

export type ReplicaSetController = Controller<ObservedReplicaSet> & {
  planWriteFailure(observed: ObservedReplicaSet, now: Date, failure: ManageFailure): PlanResult;
};

export const replicaSetController: ReplicaSetController = {
  kind: RS_KIND,
  observe: observeReplicaSet,
  plan: planReplicaSet,
  preflight: preflightReplicaSet,
  planWriteFailure: planManageFailure,
};

export type { ManageFailure, ObservedReplicaSet } from './types.js';
