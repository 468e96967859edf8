// The CronJob controller: kube-controller-manager's cronjob-controller (1.37, the v2 controller) as observe + pure
// plan. Its timer is the queue's: after each pass the key comes back when the next run is due (requeueAfter: the
// time until it plus 100 ms), never by polling.
import type { Controller } from '../controller.js';
import { observeCronJob } from './observe.js';
import { planCronJob } from './plan.js';
import { CRONJOB_KIND, type ObservedCronJob } from './types.js';

export const cronJobController: Controller<ObservedCronJob> = {
  kind: CRONJOB_KIND,
  observe: observeCronJob,
  plan: planCronJob,
};

export type { ObservedCronJob } from './types.js';
