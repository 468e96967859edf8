// The API resources fleetq reads and writes, by kind: where each lives in the REST API.
//
// Two sources: the resource each registered watch descriptor declares for its own kind (a CRD kind's the same
// way as a built-in one), which this layer reads from kinds-generated.ts (rendered from the descriptors by
// `npm run rbac:render`: kube/ imports nothing above it), and the built-in resources fleetq reads besides its
// kinds (pods, revisions, claims, services, nodes, events, namespaces: DEPENDENT_RESOURCES below).
import { TerminalError } from './errors.js';
import { REGISTERED_RESOURCES } from './kinds-generated.js';
import { isDnsLabel, isDnsSubdomain } from './names.js';
export type ResourceInfo = {
  readonly kind: string;
  readonly apiVersion: string;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** A registered kind's: it has a status subresource (its controller writes status there). */
  readonly status?: boolean;
};

/** A resource's table entry; `namespaced` defaults to true. */
export function apiResource(
  kind: string,
  group: string,
  version: string,
  plural: string,
  o: { readonly namespaced?: boolean; readonly status?: boolean } = {},
): ResourceInfo {
  return {
    kind,
    apiVersion: group === '' ? version : `${group}/${version}`,
    group,
    version,
    plural,
    namespaced: o.namespaced ?? true,
    ...(o.status !== undefined && { status: o.status }),
  };
}

/** The built-in resources fleetq reads as dependents of its kinds, or for itself; in watch order. */
export const DEPENDENT_RESOURCES: readonly ResourceInfo[] = [
  apiResource('Pod', '', 'v1', 'pods'),
  apiResource('ControllerRevision', 'apps', 'v1', 'controllerrevisions'),
  apiResource('PersistentVolumeClaim', '', 'v1', 'persistentvolumeclaims'),
  apiResource('Service', '', 'v1', 'services'),
  apiResource('Node', '', 'v1', 'nodes', { namespaced: false }),
  apiResource('ConfigMap', '', 'v1', 'configmaps'),
  apiResource('Event', '', 'v1', 'events'),
  apiResource('Namespace', '', 'v1', 'namespaces', { namespaced: false }),
];

/**
 * Every resource fleetq knows, by kind, in watch order: the registered kinds' own (workloads, in registration
 * order) before their dependents (the forwarder starts and lists them in this order).
 */
export const RESOURCES: Readonly<Record<string, ResourceInfo>> = Object.fromEntries(
  [...(REGISTERED_RESOURCES as readonly ResourceInfo[]), ...DEPENDENT_RESOURCES].map((r) => [r.kind, r]),
);

export function resourceOf(kind: string): ResourceInfo {
  const info = RESOURCES[kind];
  if (!info) {
    throw new Error(
      `fleetq does not know the API resource of kind ${kind} (a registered descriptor declares its kind's; npm run rbac:render writes it to kube/kinds-generated.ts)`,
    );
  }
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
