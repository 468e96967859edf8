// The API resources fleetq reads and writes, by kind: where each lives in the REST API.
export type ResourceInfo = {
  readonly kind: string;
  readonly apiVersion: string;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
};

const r = (kind: string, group: string, version: string, plural: string, namespaced = true): ResourceInfo => ({
  kind,
  apiVersion: group === '' ? version : `${group}/${version}`,
  group,
  version,
  plural,
  namespaced,
});

export const RESOURCES: Readonly<Record<string, ResourceInfo>> = {
  Pod: r('Pod', '', 'v1', 'pods'),
  ConfigMap: r('ConfigMap', '', 'v1', 'configmaps'),
  PersistentVolumeClaim: r('PersistentVolumeClaim', '', 'v1', 'persistentvolumeclaims'),
  Event: r('Event', '', 'v1', 'events'),
  Namespace: r('Namespace', '', 'v1', 'namespaces', false),
  Node: r('Node', '', 'v1', 'nodes', false),
  Deployment: r('Deployment', 'apps', 'v1', 'deployments'),
  ReplicaSet: r('ReplicaSet', 'apps', 'v1', 'replicasets'),
  StatefulSet: r('StatefulSet', 'apps', 'v1', 'statefulsets'),
  DaemonSet: r('DaemonSet', 'apps', 'v1', 'daemonsets'),
  ControllerRevision: r('ControllerRevision', 'apps', 'v1', 'controllerrevisions'),
  Job: r('Job', 'batch', 'v1', 'jobs'),
  CronJob: r('CronJob', 'batch', 'v1', 'cronjobs'),
};

export function resourceOf(kind: string): ResourceInfo {
  const info = RESOURCES[kind];
  if (!info) throw new Error(`fleetq does not know the API resource of kind ${kind}`);
  return info;
}

/** /api/v1/namespaces/ns/pods[/name[/status]] or /apis/apps/v1/... ; namespace undefined = all namespaces. */
export function resourcePath(info: ResourceInfo, namespace?: string, name?: string, subresource?: string): string {
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const ns =
    info.namespaced && namespace !== undefined && namespace !== ''
      ? `/namespaces/${encodeURIComponent(namespace)}`
      : '';
  const obj = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${base}${ns}/${info.plural}${obj}${sub}`;
}
