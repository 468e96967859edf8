// The Job controller: kube-controller-manager's job-controller (1.37) as observe + pure plan, without
// expectations (reads wait for the key's own writes) and without in-memory state (the pod re-creation backoff
// comes from the pods' finish times, pod tracking from the status and the pods' finalizers: tracking.ts).
import type { Controller } from '../controller.js';
import { observeJob } from './observe.js';
import { planJob } from './plan.js';
import { JOB_KIND, type ObservedJob } from './types.js';

export const jobController: Controller<ObservedJob> = {
  kind: JOB_KIND,
  observe: observeJob,
  plan: planJob,
};

export type { ObservedJob } from './types.js';
