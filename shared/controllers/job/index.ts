// The Job controller: kube-controller-manager's job-controller (1.37) as observe + pure plan, without
// expectations (reads wait for the key's own writes) and without in-memory state (the pod re-creation backoff
// comes from the pods' finish times, pod tracking from the status and the pods' finalizers: tracking.ts).
import type { Controller } from '../controller.js';
import { observeJob } from './observe.js';
import { planJob } from './plan.js';
import { FLEETQ_MANAGER, JOB_KIND, type ObservedJob } from './types.js';

export const jobController: Controller<ObservedJob> = {
  kind: JOB_KIND,
  observe: observeJob,
  plan: planJob,
  // On a cluster whose job-controller stays on (registry handOver: [Job]): only the Jobs that name fleetq in
  // spec.managedBy, which the built-in controller skips (KEP-4368). A gone Job's pods are the built-in one's.
  handedOver: (o) => o.job?.spec.managedBy === FLEETQ_MANAGER,
};

export type { ObservedJob } from './types.js';
