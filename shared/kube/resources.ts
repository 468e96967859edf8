// The API resources fleetq reads and writes, by kind: where each lives in the REST API.
import { TerminalError } from './errors.js';
import { isDnsLabel, isDnsSubdomain } from './names.js';
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

/** In watch order: workloads before their dependents (the forwarder starts and lists them in this order). */
export const RESOURCES: Readonly<Record<string, ResourceInfo>> = {
  Deployment: r('Deployment', 'apps', 'v1', 'deployments'),
  ReplicaSet: r('ReplicaSet', 'apps', 'v1', 'replicasets'),
  StatefulSet: r('StatefulSet', 'apps', 'v1', 'statefulsets'),
  DaemonSet: r('DaemonSet', 'apps', 'v1', 'daemonsets'),
  Job: r('Job', 'batch', 'v1', 'jobs'),
  CronJob: r('CronJob', 'batch', 'v1', 'cronjobs'),
  Pod: r('Pod', '', 'v1', 'pods'),
  ControllerRevision: r('ControllerRevision', 'apps', 'v1', 'controllerrevisions'),
  PersistentVolumeClaim: r('PersistentVolumeClaim', '', 'v1', 'persistentvolumeclaims'),
  Node: r('Node', '', 'v1', 'nodes', false),
  ConfigMap: r('ConfigMap', '', 'v1', 'configmaps'),
  Event: r('Event', '', 'v1', 'events'),
  Namespace: r('Namespace', '', 'v1', 'namespaces', false),
};

export function resourceOf(kind: string): ResourceInfo {
  const info = RESOURCES[kind];
  if (!info) throw new Error(`fleetq does not know the API resource of kind ${kind}`);
  return info;
}

/** The subresources fleetq writes. */
const SUBRESOURCES: readonly string[] = ['status', 'scale'];

/** A name that may not be placed in a request path (thrown before any request is made). */
export class InvalidPathSegmentError extends TerminalError {
  constructor(what: string, value: unknown) {
    super('Invalid', `${what} ${JSON.stringify(String(value)).slice(0, 100)} is not a valid name; no request made`);
  }
}

/**
 * /api/v1/namespaces/ns/pods[/name[/status]] or /apis/apps/v1/... ; namespace undefined or '' = all namespaces.
 * Every segment that comes from data is checked first: a namespace must be a DNS-1123 label, a name a DNS-1123
 * subdomain (a label for a Namespace), a subresource one fleetq writes; anything else (`..`, `a/b`, `%2e`)
 * throws InvalidPathSegmentError (terminal), so no data-derived string can rewrite a request path. The checked
 * segments are still URI-encoded.
 */
export function resourcePath(info: ResourceInfo, namespace?: string, name?: string, subresource?: string): string {
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const inNamespace = info.namespaced && namespace !== undefined && namespace !== '';
  if (inNamespace && !isDnsLabel(namespace)) throw new InvalidPathSegmentError('namespace', namespace);
  if (name !== undefined && !(info.kind === 'Namespace' ? isDnsLabel(name) : isDnsSubdomain(name))) {
    throw new InvalidPathSegmentError(`${info.kind} name`, name);
  }
  if (subresource !== undefined && !SUBRESOURCES.includes(subresource)) {
    throw new InvalidPathSegmentError('subresource', subresource);
  }
  const ns = inNamespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${base}${ns}/${info.plural}${obj}${sub}`;
}
