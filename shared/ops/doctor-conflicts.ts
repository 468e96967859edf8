// Doctor: is another controller writing a kind the cluster owns? Two controllers reconciling the same objects
// fight: each undoes the other's scaling and status. What the cluster shows of kube-controller-manager's
// controller of a kind, read-only:
//   - status writes: an object of the kind whose managedFields has kube-controller-manager's entry for an Update
//     of the status subresource (the controller writes status after every sync);
//   - Events its controller recorded (source component `replicaset-controller` and so on) that
//     kube-controller-manager created (the Event's own managedFields: fleetq records under the same component
//     name, as upstream does, but under its own field manager).
// What it cannot see: a cluster with no objects of the kind yet (and no Events in the last hour, their default
// TTL), a controller that writes no status (ttl-after-finished deletes Jobs), and objects past the first page it
// reads. `fleetq doctor --probe` creates a throwaway object to see (doctor-probe.ts).
import { DESCRIPTORS } from '../controllers/index.js';
import type { WatchDescriptor } from '../controllers/descriptor.js';
import type { ClusterConfig } from '../kube/registry.js';
import { resourcePath } from '../kube/resources.js';
import type { KubeRest } from '../kube/rest.js';
import { CheckStatus, type Check } from './doctor-check.js';

/** kube-controller-manager's field manager name (from its user agent). */
export const KCM_MANAGER = 'kube-controller-manager';
/** Objects and Events read per kind. */
const PAGE = 500;
/** A status write older than this may be a leftover from before the controller was turned off: a warning. */
export const RECENT_MS = 60 * 60 * 1000;

/** A managedFields entry, as JSON (time a string) or as client-node's type (time a Date). */
type ManagedField = { manager?: string; operation?: string; subresource?: string; time?: string | Date };
type Item = {
  metadata?: { namespace?: string; name?: string; managedFields?: ManagedField[] };
  involvedObject?: { kind?: string; namespace?: string; name?: string };
};

/** The latest time kube-controller-manager updated the object's status, if it ever did. */
export function kcmStatusWrite(item: { metadata?: { managedFields?: ManagedField[] } }): number | undefined {
  const times = (item.metadata?.managedFields ?? [])
    .filter((f) => f.manager === KCM_MANAGER && f.operation === 'Update' && f.subresource === 'status')
    .map((f) => new Date(f.time ?? '').getTime())
    .filter((t) => Number.isFinite(t));
  return times.length === 0 ? undefined : Math.max(...times);
}

/** kube-controller-manager created or updated the object (an Event it recorded). */
function byKcm(item: Item): boolean {
  return (item.metadata?.managedFields ?? []).some((f) => f.manager === KCM_MANAGER);
}

export function descriptorOf(kind: string): WatchDescriptor | undefined {
  return DESCRIPTORS.descriptors.find((d) => d.kind === kind);
}

/** What to do about a conflict on `kind` of `cluster`. */
export function conflictFix(cluster: string, kind: string, controller: string): string {
  return (
    `turn that controller off in ${cluster}'s kube-controller-manager (--controllers=*,-${controller}), ` +
    `or remove ${kind} from the cluster's owns in the registry`
  );
}

export async function checkConflicts(
  rest: KubeRest,
  c: ClusterConfig,
  timeoutMs: number,
  now = Date.now(),
): Promise<Check[]> {
  return Promise.all(c.owns.map((kind) => checkKind(rest, c.name, kind, timeoutMs, now)));
}

async function checkKind(
  rest: KubeRest,
  cluster: string,
  kind: string,
  timeoutMs: number,
  now: number,
): Promise<Check> {
  const name = `cluster ${cluster}: ${kind} has no other controller`;
  const base = { name, cluster, kind };
  const d = descriptorOf(kind);
  const upstream = d?.upstream;
  if (upstream === undefined)
    return { ...base, status: CheckStatus.ok, message: 'no upstream controller exists for it' };
  if (upstream.runs === 'add-on')
    return {
      ...base,
      status: CheckStatus.ok,
      message: `only the add-on ${upstream.name} would write it: make sure it is not installed on this cluster`,
    };
  if (d?.resource === undefined || d.resource.status !== true)
    return {
      ...base,
      status: CheckStatus.ok,
      message: `${upstream.name} writes no status a cluster shows: make sure kube-controller-manager runs without it (--controllers=*,-${upstream.name})`,
    };
  const fix = conflictFix(cluster, kind, upstream.name);
  try {
    const [objects, events] = await Promise.all([
      rest.request<{ items?: Item[] }>('GET', resourcePath(d.resource), { query: { limit: PAGE }, timeoutMs }),
      rest.request<{ items?: Item[] }>('GET', '/api/v1/events', {
        query: { fieldSelector: `source=${upstream.name}`, limit: PAGE },
        timeoutMs,
      }),
    ]);
    const written = (objects?.items ?? [])
      .map((item) => ({ item, at: kcmStatusWrite(item) }))
      .filter((w): w is { item: Item; at: number } => w.at !== undefined)
      .sort((a, b) => b.at - a.at);
    const recorded = (events?.items ?? []).filter((e) => e.involvedObject?.kind === kind && byKcm(e));
    const latest = written[0];
    if (recorded.length > 0 || (latest !== undefined && now - latest.at < RECENT_MS)) {
      const seen = [
        ...(latest === undefined
          ? []
          : [
              `${written.length} ${kind}(s) with status written by ${KCM_MANAGER} (latest ${refOf(latest.item)} at ${new Date(latest.at).toISOString()})`,
            ]),
        ...(recorded.length === 0
          ? []
          : [
              `${recorded.length} Event(s) of ${upstream.name} from ${KCM_MANAGER} (e.g. on ${refOf(recorded[0]!, true)})`,
            ]),
      ];
      return { ...base, status: CheckStatus.fail, message: `${upstream.name} is running: ${seen.join('; ')}`, fix };
    }
    if (latest !== undefined)
      return {
        ...base,
        status: CheckStatus.warn,
        message: `${written.length} ${kind}(s) had status written by ${KCM_MANAGER}, the latest at ${new Date(latest.at).toISOString()} (${refOf(latest.item)}); a leftover if ${upstream.name} was turned off since`,
        fix: `if it still runs: ${fix}; \`fleetq doctor --probe\` tells for sure`,
      };
    const count = objects?.items?.length ?? 0;
    // Nothing to look at is not a pass: kube-controller-manager may still run the controller.
    if (count === 0)
      return {
        ...base,
        status: CheckStatus.warn,
        message: `no ${kind} yet and no Event of ${upstream.name}: nothing to tell whether it runs`,
        fix: `\`fleetq doctor --probe\` makes a throwaway ${kind} to look; or check that ${cluster}'s kube-controller-manager runs with --controllers=*,-${upstream.name}`,
      };
    return {
      ...base,
      status: CheckStatus.ok,
      message: `${count} ${kind}(s) read: no status written by ${KCM_MANAGER}, no Event of ${upstream.name}`,
    };
  } catch (err) {
    return {
      ...base,
      status: CheckStatus.warn,
      message: `could not read ${kind}s or Events: ${err instanceof Error ? err.message : String(err)}`,
      fix: 'the conflict check needs list on the kind and on events',
    };
  }
}

function refOf(item: Item, involved = false): string {
  const m = involved ? item.involvedObject : item.metadata;
  return `${m?.namespace ? `${m.namespace}/` : ''}${m?.name ?? '?'}`;
}
