import type { Controller } from '../controller.js';
import { observeMirror } from './observe.js';
import { planMirror } from './plan.js';
import type { ObservedMirror } from './types.js';

export const configMapMirror: Controller<ObservedMirror> = {
  kind: 'ConfigMap',
  observe: observeMirror,
  plan: planMirror,
};
