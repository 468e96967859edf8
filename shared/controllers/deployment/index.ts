// The Deployment controller: kube-controller-manager's deployment-controller (1.37) as observe + pure plan.
import type { Controller } from '../controller.js';
import { planCreateFailure } from './create-failure.js';
import { observeDeployment } from './observe.js';
import { planDeployment } from './plan.js';
import type { ObservedDeployment } from './types.js';

export const deploymentController: Controller<ObservedDeployment> = {
  kind: 'Deployment',
  observe: observeDeployment,
  plan: planDeployment,
  planWriteFailure: planCreateFailure,
};

export { computeHash } from '../common/pod-template-hash.js';
export type { ObservedDeployment } from './types.js';
