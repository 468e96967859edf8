// The API resources a simulated cluster serves: the workload kinds fleetq's Deployment and ReplicaSet controllers
// touch, the Events they record, and what the forwarder reads at start (namespaces: kube-system's uid).
export type SimResource = {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Has a status subresource: a PUT of the object keeps the old status, a PUT of /status only changes status. */
  readonly status: boolean;
  /** Has a scale subresource (autoscaling/v1 Scale over spec.replicas). */
  readonly scale: boolean;
  /** metadata.generation counts spec changes. */
  readonly generation: boolean;
};

const r = (
  group: string,
  version: string,
  plural: string,
  kind: string,
  o: Partial<Pick<SimResource, 'namespaced' | 'status' | 'scale' | 'generation'>> = {},
): SimResource => ({
  group,
  version,
  plural,
  kind,
  namespaced: o.namespaced ?? true,
  status: o.status ?? false,
  scale: o.scale ?? false,
  generation: o.generation ?? false,
});

export const SIM_RESOURCES: readonly SimResource[] = [
  r('', 'v1', 'namespaces', 'Namespace', { namespaced: false, status: true }),
  r('', 'v1', 'nodes', 'Node', { namespaced: false, status: true }),
  r('', 'v1', 'pods', 'Pod', { status: true, generation: true }),
  r('', 'v1', 'events', 'Event'),
  r('', 'v1', 'configmaps', 'ConfigMap'),
  r('apps', 'v1', 'deployments', 'Deployment', { status: true, scale: true, generation: true }),
  r('apps', 'v1', 'replicasets', 'ReplicaSet', { status: true, scale: true, generation: true }),
  r('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
  // Stored only (no Job controller): the conformance harness lists Jobs in every sample of a side.
  r('batch', 'v1', 'jobs', 'Job', { status: true, generation: true }),
  r('events.k8s.io', 'v1', 'events', 'Event'),
];

export function apiVersionOf(res: SimResource): string {
  return res.group === '' ? res.version : `${res.group}/${res.version}`;
}

/** The resource at `group/version/plural` ('' group: core). */
export function findResource(group: string, version: string, plural: string): SimResource | undefined {
  return SIM_RESOURCES.find((x) => x.group === group && x.version === version && x.plural === plural);
}

/** The key a resource's objects are stored under in a cluster (core and events.k8s.io Events apart). */
export function storeKey(res: SimResource): string {
  return `${res.group}/${res.plural}`;
}
