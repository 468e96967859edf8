// The FleetRollout controller: a fleet controller on the hub cluster. Its pass reads the rollout and its target
// in every cluster it selects (observe.ts), plans the waves and the pins (plan.ts), writes the ledger to the
// rollout's status and then the pins to the targets. Registered by its descriptor (descriptor.ts).
import type { Controller } from '../controller.js';
import { observeFleetRollout, type ObservedFleetRollout } from './observe.js';
import { planFleetRollout } from './plan.js';

export const fleetRolloutController: Controller<ObservedFleetRollout> = {
  kind: 'FleetRollout',
  observe: observeFleetRollout,
  plan: planFleetRollout,
};

export type { ObservedFleetRollout } from './observe.js';
