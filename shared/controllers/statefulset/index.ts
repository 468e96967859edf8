// The StatefulSet controller (kube-controller-manager 1.37's statefulset-controller): observe through the cache or
// live reads, plan purely.
import type { Controller } from '../controller.js';
import { observeStatefulSet } from './observe.js';
import { planStatefulSet } from './plan.js';
import { STS_KIND, type ObservedStatefulSet } from './types.js';

export const statefulSetController: Controller<ObservedStatefulSet> = {
  kind: STS_KIND,
  observe: observeStatefulSet,
  plan: planStatefulSet,
};

export type { ObservedStatefulSet } from './types.js';
