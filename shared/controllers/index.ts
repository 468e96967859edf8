// Every controller fleetq ships, by the kind of its reconcile key.
import type { ClusterRegistry } from '../kube/registry.js';
import { configMapMirror, configMapMirrorController } from './configmap-mirror/index.js';
import type { Controller } from './controller.js';
import { deploymentController } from './deployment/index.js';
import { replicaSetController } from './replicaset/index.js';

/** The controllers bound to a registry (the ConfigMap mirror writes only where each cluster's entry allows). */
export function controllersFor(registry: Pick<ClusterRegistry, 'get'>): ReadonlyMap<string, Controller> {
  const mirror = configMapMirrorController((cluster) => registry.get(cluster)?.mirror);
  return new Map<string, Controller>([
    [mirror.kind, mirror as Controller],
    [replicaSetController.kind, replicaSetController as Controller],
    [deploymentController.kind, deploymentController as Controller],
  ]);
}

/** The same kinds without a registry: the mirror here has no policy and writes nowhere. */
export const CONTROLLERS: ReadonlyMap<string, Controller> = new Map<string, Controller>([
  [configMapMirror.kind, configMapMirror as Controller],
  [replicaSetController.kind, replicaSetController as Controller],
  [deploymentController.kind, deploymentController as Controller],
]);
