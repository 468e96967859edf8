// One page of a list of any API resource, built-in or custom (a CustomResourceDefinition's): GET <resource
// path>?limit=&continue= through the cluster's REST client, its JSON body taken as the apiserver sent it.
// Nothing is converted: timestamps stay RFC 3339 strings, fields fleetq has no model for are kept. Each item
// gets the resource's kind and apiVersion in front (a built-in kind's list items come without them), as a
// watch event's object carries them, so an object listed and the same object watched are the same value.
// The body is untrusted: a body that is not a list (a Status, an array, a string, items that are not an array) is
// an error saying what came back; `items: null` (an empty list, as some servers write it) is an empty page; an
// item that is not an object is passed on as it is, for the caller to skip and count.
import type { KubeRest } from './rest.js';
import { resourcePath, type ResourceInfo } from './resources.js';

export type ListPageRequest = {
  /** undefined or '': all namespaces (and a cluster-scoped resource ignores it). */
  readonly namespace?: string;
  readonly limit?: number;
  readonly continueToken?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** The request's own timeout; default the REST client's; 0: none (undici's idle timeouts still apply). */
  readonly timeoutMs?: number;
};

export type RawListPage = {
  /** Objects (with kind and apiVersion set) and, from a misbehaving server, whatever else the list held. */
  readonly items: unknown[];
  /** The list's metadata.resourceVersion ('' when it has none). */
  readonly resourceVersion: string;
  /** metadata.continue: absent on the last page. */
  readonly continueToken?: string;
};

export type ResourceKind = Pick<ResourceInfo, 'kind' | 'apiVersion'>;

export async function listPage(
  rest: KubeRest,
  info: ResourceInfo,
  request: ListPageRequest = {},
): Promise<RawListPage> {
  const body = await rest.request<unknown>('GET', resourcePath(info, request.namespace), {
    query: {
      labelSelector: request.labelSelector,
      fieldSelector: request.fieldSelector,
      limit: request.limit,
      continue: request.continueToken,
    },
    ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
  });
  return decodeListPage(body, info);
}

/** Thrown when a list response body is not a list: it says what came back instead. */
export class ListBodyError extends Error {
  override name = 'ListBodyError';
}

/**
 * A list response body (parsed JSON) as a page: items with kind and apiVersion, the resourceVersion, the token.
 * Throws ListBodyError when the body is not a list (`items: null` is an empty list).
 */
export function decodeListPage(body: unknown, info: ResourceKind): RawListPage {
  if (!isRecord(body) || !(body.items === null || Array.isArray(body.items)))
    throw new ListBodyError(
      `list of ${info.apiVersion} ${info.kind}: the response is not a list (${describeBody(body)})`,
    );
  const list = body;
  const metadata = isRecord(list.metadata) ? list.metadata : {};
  const items = Array.isArray(list.items) ? list.items.map((item: unknown) => withKind(item, info)) : [];
  const resourceVersion = typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '';
  const next = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
  return { items, resourceVersion, ...(next !== undefined && { continueToken: next }) };
}

/**
 * The object with the resource's kind and apiVersion (its values win over the object's own), where the apiserver
 * writes them: in front (kind, apiVersion) for a built-in kind, whose list items lack them; where the object has
 * them for a custom resource (the apiserver writes its keys sorted: apiVersion, kind). Anything that is not an
 * object is returned as it is.
 */
export function withKind<T>(object: T, info: ResourceKind): T {
  if (!isRecord(object)) return object;
  const own = 'kind' in object || 'apiVersion' in object;
  const out: Record<string, unknown> = own
    ? { ...object }
    : { kind: info.kind, apiVersion: info.apiVersion, ...object };
  out.kind = info.kind;
  out.apiVersion = info.apiVersion;
  return out as T;
}

/** What a body that is not a list is, for the error: its JSON type, or an object's kind and what its items are. */
function describeBody(body: unknown): string {
  if (body === null) return 'got null';
  if (Array.isArray(body)) return 'got an array';
  if (!isRecord(body)) return `got a ${typeof body}`;
  const kind = typeof body.kind === 'string' ? `kind ${JSON.stringify(body.kind.slice(0, 100))}` : 'no kind';
  const items =
    body.items === undefined ? 'no items' : `items ${Array.isArray(body.items) ? 'an array' : typeof body.items}`;
  const message = typeof body.message === 'string' ? `, message ${JSON.stringify(body.message.slice(0, 300))}` : '';
  return `got an object with ${kind} and ${items}${message}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
