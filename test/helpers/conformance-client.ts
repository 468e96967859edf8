// One side of a conformance run: a sandbox cluster, a namespace of its own in it, and the reads and writes
// the scenario steps need, as raw JSON through KubeRest (the harness' own requests are not rate limited
// and not counted in fleetq's metrics).
import { randomUUID } from 'node:crypto';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { ApiError, isConflict, isNotFound } from '../../shared/kube/errors.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import type {
  ControllerRevision,
  CronJob,
  DaemonSet,
  Deployment,
  Job,
  KubeEvent,
  Pod,
  ReplicaSet,
  Snapshot,
  StatefulSet,
} from './conformance-types.js';
import { sandboxCluster } from './sandbox.js';

type List<T> = { items: T[] };

export const RESOURCE = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  Job: 'jobs',
  Pod: 'pods',
  CronJob: 'cronjobs',
  DaemonSet: 'daemonsets',
  ControllerRevision: 'controllerrevisions',
  StatefulSet: 'statefulsets',
} as const;

const API: Record<keyof typeof RESOURCE, string> = {
  Deployment: '/apis/apps/v1',
  ReplicaSet: '/apis/apps/v1',
  Job: '/apis/batch/v1',
  Pod: '/api/v1',
  CronJob: '/apis/batch/v1',
  DaemonSet: '/apis/apps/v1',
  ControllerRevision: '/apis/apps/v1',
  StatefulSet: '/apis/apps/v1',
};

export class Side {
  /** Outputs of recorded kubectl steps, by name (compared across sides at the end of a scenario). */
  readonly recordings: Record<string, unknown> = {};
  /** Set once a CronJob was created here: only then does a snapshot list CronJobs (one request less per poll). */
  private hasCronJobs = false;
  /** Set once a DaemonSet was created here: only then are DaemonSets and ControllerRevisions listed. */
  private hasDaemonSets = false;
  /** Set once a StatefulSet was created here: only then are StatefulSets (and ControllerRevisions) listed. */
  private hasStatefulSets = false;

  private constructor(
    /** A short label for reports: the cluster name, suffixed when both sides share a cluster. */
    readonly label: string,
    readonly state: ClusterState,
    readonly namespace: string,
    readonly rest: KubeRest,
  ) {}

  static async open(cluster: string, label: string, scenario: string): Promise<Side> {
    const { state, kc } = await sandboxCluster(cluster);
    const rest = new KubeRest(cluster, kc, new TokenBucket(1000, 1000));
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

  path(kind: keyof typeof RESOURCE, name?: string, sub?: string): string {
    return [`${API[kind]}/namespaces/${this.namespace}/${RESOURCE[kind]}`, name, sub].filter(Boolean).join('/');
  }

  async list<T>(kind: keyof typeof RESOURCE): Promise<T[]> {
    return (await this.rest.request<List<T>>('GET', this.path(kind))).items;
  }

  async snapshot(): Promise<Snapshot> {
    const deployments = await this.list<Deployment>('Deployment');
    const replicaSets = await this.list<ReplicaSet>('ReplicaSet');
    const cronJobs = this.hasCronJobs ? await this.list<CronJob>('CronJob') : undefined;
    const jobs = await this.list<Job>('Job');
    const pods = await this.list<Pod>('Pod');
    const daemonSets = this.hasDaemonSets ? await this.list<DaemonSet>('DaemonSet') : undefined;
    const statefulSets = this.hasStatefulSets ? await this.list<StatefulSet>('StatefulSet') : undefined;
    const controllerRevisions =
      this.hasDaemonSets || this.hasStatefulSets
        ? await this.list<ControllerRevision>('ControllerRevision')
        : undefined;
    return {
      at: Date.now(),
      namespace: this.namespace,
      deployments,
      replicaSets,
      jobs,
      pods,
      ...(cronJobs !== undefined && { cronJobs }),
      ...(daemonSets !== undefined && { daemonSets }),
      ...(controllerRevisions !== undefined && { controllerRevisions }),
      ...(statefulSets !== undefined && { statefulSets }),
    };
  }

  async events(): Promise<KubeEvent[]> {
    return (await this.rest.request<List<KubeEvent>>('GET', `/api/v1/namespaces/${this.namespace}/events`)).items;
  }

  async create(obj: Deployment | ReplicaSet | Job | Pod | CronJob | DaemonSet | StatefulSet): Promise<void> {
    const kind = obj.kind as keyof typeof RESOURCE;
    if (kind === 'CronJob') this.hasCronJobs = true;
    if (kind === 'DaemonSet') this.hasDaemonSets = true;
    if (kind === 'StatefulSet') this.hasStatefulSets = true;
    await this.rest.request('POST', this.path(kind), {
      body: { ...obj, metadata: { ...obj.metadata, namespace: this.namespace } },
    });
  }

  async get<T>(kind: keyof typeof RESOURCE, name: string): Promise<T | null> {
    try {
      return await this.rest.request<T>('GET', this.path(kind, name));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** Read-modify-replace, retried on conflict (the controllers write status concurrently). */
  async update<T extends { metadata: { resourceVersion?: string } }>(
    kind: keyof typeof RESOURCE,
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

  async delete(kind: keyof typeof RESOURCE, name: string): Promise<void> {
    try {
      await this.rest.request('DELETE', this.path(kind, name), {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
}
