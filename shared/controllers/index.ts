// Every controller fleetq ships, by the kind of its reconcile key.
import { configMapMirror } from './configmap-mirror/index.js';
import type { Controller } from './controller.js';
import { deploymentController } from './deployment/index.js';
import { replicaSetController } from './replicaset/index.js';

export const CONTROLLERS: ReadonlyMap<string, Controller> = new Map<string, Controller>([
  [configMapMirror.kind, configMapMirror as Controller],
  [replicaSetController.kind, replicaSetController as Controller],
  [deploymentController.kind, deploymentController as Controller],
]);
