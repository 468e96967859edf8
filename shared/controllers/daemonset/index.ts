// The DaemonSet controller (kube-controller-manager 1.37's daemonset-controller): observe through the cache or
// live reads, plan purely. No preflight guard: a surplus pod on a node is deleted by the next pass's core loop.
import type { Controller } from '../controller.js';
import { observeDaemonSet } from './observe.js';
import { planDaemonSet } from './plan.js';
import { DS_KIND, type ObservedDaemonSet } from './types.js';

export const daemonSetController: Controller<ObservedDaemonSet> = {
  kind: DS_KIND,
  observe: observeDaemonSet,
  plan: planDaemonSet,
};

export type { ObservedDaemonSet } from './types.js';
