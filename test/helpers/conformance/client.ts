// One side of a conformance run: a sandbox cluster, a namespace of its own in it, and the reads and writes
// the scenario steps need, as raw JSON through KubeRest (the harness' own requests are not rate limited
// and not counted in fleetq's metrics). Paths come from fleetq's resource table (shared/kube/resources.ts: the
// registered kinds' resources and their dependents); what a snapshot lists beyond the pods comes from the
// conformance plug-ins (conformance/plugins.ts): their lists polled always, and those of the kinds the scenario
// created.
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { ApiError, isConflict, isNotFound } from '../../../shared/kube/errors.js';
import { resourceOf, resourcePath } from '../../../shared/kube/resources.js';
import { KubeRest } from '../../../shared/kube/rest.js';
import { TokenBucket } from '../../../shared/kube/token-bucket.js';
import type { ConformancePlugin, PluginList } from './plugin.js';
import { PLUGINS } from './plugins.js';
import type { KubeEvent, KubeJson, Snapshot } from './types.js';
import { sandboxCluster } from '../sandbox/clusters.js';

type List<T> = { items: T[] };

/** The base list, polled always: every side's pods. */
const PODS: PluginList = { kind: 'Pod', field: 'pods', always: true };

/**
 * What a poll lists, in order: the `always` lists of every plug-in and the lists of the plug-ins of `created` kinds,
 * each resource once; the pods, with each `before` list moved just ahead of its kind's (owners first: a Job's status
 * is read before its pods, a CronJob's before its Jobs), then the others, a plug-in's own objects before their
 * dependents (the ControllerRevisions of DaemonSets and StatefulSets after both), in plug-in order.
 */
export function pluginLists(
  created: ReadonlySet<string>,
  plugins: readonly ConformancePlugin[] = PLUGINS,
): PluginList[] {
  const lists = new Map<string, PluginList>();
  for (const p of plugins)
    for (const l of p.lists ?? []) if (l.always === true || created.has(p.kind)) lists.set(l.kind, l);
  const own = new Set(plugins.map((p) => p.kind));
  const all = [...lists.values()];
  const ordered: PluginList[] = [PODS];
  let pending = all.filter((l) => l.before !== undefined);
  for (let placed = true; placed && pending.length > 0;) {
    placed = false;
    for (const l of pending) {
      const at = ordered.findIndex((x) => x.kind === l.before);
      if (at < 0) continue;
      ordered.splice(at, 0, l);
      pending = pending.filter((x) => x !== l);
      placed = true;
    }
  }
  if (pending.length > 0)
    throw new Error(`conformance lists ${pending.map((l) => `${l.kind} (before ${l.before})`).join(', ')}: not listed`);
  const after = all.filter((l) => l.before === undefined);
  return [...ordered, ...after.filter((l) => own.has(l.kind)), ...after.filter((l) => !own.has(l.kind))];
}

/** A snapshot of a side with nothing in it: every list polled always, empty. */
export function emptySnapshot(plugins: readonly ConformancePlugin[] = PLUGINS): Snapshot {
  const fields = Object.fromEntries(pluginLists(new Set(), plugins).flatMap((l) => (l.field ? [[l.field, []]] : [])));
  return { at: 0, ...fields } as unknown as Snapshot;
}

export class Side {
  /** Outputs of recorded kubectl steps, by name (compared across sides at the end of a scenario). */
  readonly recordings: Record<string, unknown> = {};
  /** The kinds the scenario created here: only their plug-ins' lists are polled (fewer requests per poll). */
  private readonly created = new Set<string>();

  private constructor(
    /** A short label for reports: the cluster name, suffixed when both sides share a cluster. */
    readonly label: string,
    readonly state: ClusterState,
    readonly namespace: string,
    readonly rest: KubeRest,
  ) {}

  static async open(cluster: string, label: string, scenario: string): Promise<Side> {
    const { state, kc } = await sandboxCluster(cluster);
    return Side.openOn(label, state, kc, scenario);
  }

  /** A side on a cluster given by its state and KubeConfig (a simulated cluster: test/cluster-sim). */
  static async openOn(label: string, state: ClusterState, kc: KubeConfig, scenario: string): Promise<Side> {
    const rest = new KubeRest(state.name, kc, new TokenBucket(1000, 1000));
    const namespace = `conf-${scenario.slice(0, 40).replace(/[^a-z0-9-]/g, '-')}-${randomUUID().slice(0, 6)}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace, labels: { 'fleetq.dev/conformance': 'true' } },
      },
    });
    return new Side(label, state, namespace, rest);
  }

  async removeNamespace(): Promise<void> {
    await this.rest.request('DELETE', `/api/v1/namespaces/${this.namespace}`).catch(() => undefined);
  }

  path(kind: string, name?: string, sub?: string): string {
    return resourcePath(resourceOf(kind), this.namespace, name, sub);
  }

  async list<T>(kind: string): Promise<T[]> {
    return (await this.rest.request<List<T>>('GET', this.path(kind))).items;
  }

  async snapshot(): Promise<Snapshot> {
    const fields: Record<string, KubeJson[]> = {};
    const custom: Record<string, KubeJson[]> = {};
    for (const l of pluginLists(this.created)) {
      const items = await this.list<KubeJson>(l.kind);
      if (l.field === undefined) custom[l.kind] = items;
      else fields[l.field] = items;
    }
    // The fields every snapshot carries come from the lists polled always (pluginLists).
    return {
      at: Date.now(),
      namespace: this.namespace,
      ...fields,
      ...(Object.keys(custom).length > 0 && { custom }),
    } as unknown as Snapshot;
  }

  async events(): Promise<KubeEvent[]> {
    return (await this.rest.request<List<KubeEvent>>('GET', `/api/v1/namespaces/${this.namespace}/events`)).items;
  }

  async create(obj: KubeJson): Promise<void> {
    const kind = obj.kind ?? '';
    this.created.add(kind);
    await this.rest.request('POST', this.path(kind), {
      body: { ...obj, metadata: { ...obj.metadata, namespace: this.namespace } },
    });
  }

  async get<T>(kind: string, name: string): Promise<T | null> {
    try {
      return await this.rest.request<T>('GET', this.path(kind, name));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** Read-modify-replace, retried on conflict (the controllers write status concurrently). */
  async update<T extends { metadata: { resourceVersion?: string } }>(
    kind: string,
    name: string,
    mutate: (obj: T) => void,
    sub?: 'status',
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const obj = await this.rest.request<T>('GET', this.path(kind, name));
      mutate(obj);
      try {
        return await this.rest.request<T>('PUT', this.path(kind, name, sub), { body: obj });
      } catch (err) {
        if (!isConflict(err) || attempt >= 20) throw err;
      }
    }
  }

  async delete(kind: string, name: string): Promise<void> {
    try {
      await this.rest.request('DELETE', this.path(kind, name), {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
}
