// Every kind fleetq knows, by its watch descriptor: one registration line per kind. The forwarder's watches
// and event → key mapping, the workload index and the controller map derive from this list, and so do fleetq's
// RBAC roles (controllers/roles.ts), the sandbox's kube-controller-manager flags, CRDs and add-on controllers
// (infra/sandbox/modes.ts, kind-options.ts), and what the lower layer reads from kube/kinds-generated.ts (the
// kinds a cluster registry accepts, the kinds' API resources), rendered from this list by npm run rbac:render.
import type { ClusterRegistry } from '../kube/registry.js';
import { configMapMirrorDescriptor } from './configmap-mirror/descriptor.js';
import type { Controller } from './controller.js';
import { cronJobDescriptor } from './cronjob/descriptor.js';
import { daemonSetDescriptor } from './daemonset/descriptor.js';
import { deploymentDescriptor } from './deployment/descriptor.js';
import { fleetRolloutDescriptor } from './fleetrollout/descriptor.js';
import { DescriptorRegistry } from './descriptor-registry.js';
import { jobDescriptor } from './job/descriptor.js';
import { jobSetDescriptor } from './jobset/descriptor.js';
import { leaderWorkerSetDescriptor, leaderWorkerSetPodDescriptor } from './leaderworkerset/descriptor.js';
import { replicaSetDescriptor } from './replicaset/descriptor.js';
import { statefulSetDescriptor } from './statefulset/descriptor.js';
import { ttlAfterFinishedDescriptor } from './ttl-after-finished/descriptor.js';

export const DESCRIPTORS = new DescriptorRegistry([
  deploymentDescriptor,
  replicaSetDescriptor,
  statefulSetDescriptor,
  daemonSetDescriptor,
  jobDescriptor,
  cronJobDescriptor,
  ttlAfterFinishedDescriptor,
  configMapMirrorDescriptor,
  jobSetDescriptor,
  fleetRolloutDescriptor,
  leaderWorkerSetDescriptor,
  leaderWorkerSetPodDescriptor,
]);

/** The controllers bound to a registry (the ConfigMap mirror writes only where each cluster's entry allows). */
export function controllersFor(registry: Pick<ClusterRegistry, 'get'>): ReadonlyMap<string, Controller> {
  return DESCRIPTORS.controllers(registry);
}

/** The same kinds without a registry: the mirror here has no policy and writes nowhere. */
export const CONTROLLERS: ReadonlyMap<string, Controller> = DESCRIPTORS.controllers();
