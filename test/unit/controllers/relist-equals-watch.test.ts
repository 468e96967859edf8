// Planning from an object that came in a relist equals planning from the same object watched, for every kind
// registered in controllers/index.ts. Each kind's world (realistic objects: timestamps, conditions, owner
// references, and a field no model has yet) is encoded twice as the apiserver sends it: once as the items of a
// list response body (items without kind and apiVersion, as a built-in kind's list has them), decoded by
// decodeListPage (kube/list-page.ts), once as watch event lines, decoded as the forwarder decodes them (each line
// parsed as client-node's Watch parses it, then handed through ResourceWatcher with the forwarder's trim as its
// admit). The kind's real controller (its observe, then its plan) runs on each world; the plans must be deeply
// equal, and each must do what the world calls for (so the test cannot pass on two empty plans). A kind
// registered without a world here fails.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../../infra/sandbox/process.js';
import { DESCRIPTORS } from '../../../shared/controllers/index.js';
import type { Controller, PlanResult } from '../../../shared/controllers/controller.js';
import { MIRROR_TO } from '../../../shared/controllers/configmap-mirror/types.js';
import { newRevision } from '../../../shared/controllers/leaderworkerset/revision.js';
import { FLEET_ROLLOUT_FINALIZER } from '../../../shared/controllers/fleetrollout/observe.js';
import { trimForForwarder } from '../../../shared/forwarder/object-trim.js';
import { ResourceWatcher, type WatchStarter } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject, Lister } from '../../../shared/forwarder/resources.js';
import type { Action } from '../../../shared/kube/actions.js';
import type { KubernetesObject } from '../../../shared/kube/api/objects.js';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import { decodeListPage } from '../../../shared/kube/list-page.js';
import { selectorOf } from '../../../shared/kube/meta/label-selector.js';
import type { ApiObject } from '../../../shared/kube/meta/object.js';
import type { ClusterRegistry } from '../../../shared/kube/registry.js';
import { resourceOf } from '../../../shared/kube/resources.js';
import type { ClusterView, ListOptions } from '../../../shared/kube/view.js';
import { Logger } from '../../../shared/runtime/logger.js';
import * as cronjob from './cronjob/builders.js';
import * as daemonset from './daemonset/builders.js';
import * as deployment from './deployment/builders.js';
import * as job from './job/builders.js';
import * as jobset from './jobset/builders.js';
import * as lws from './leaderworkerset/builders.js';
import * as replicaset from './replicaset/builders.js';
import * as statefulset from './statefulset/builders.js';
import * as ttl from './ttl-after-finished/builders.js';
import { exampleRollout } from '../../helpers/rollouts/example.js';

/** A field no API version has (yet): both paths must carry it as the apiserver sent it. */
const FUTURE = { futureField: { rolloutGates: [{ name: 'canary', since: '2026-01-01T00:00:00Z' }] } };

type World = {
  readonly key: Omit<ReconcileKey, 'cluster' | 'kind'>;
  readonly now: Date;
  readonly objects: readonly KubernetesObject[];
  /** What the plan must do (asserted on the relisted and the watched plan alike). */
  readonly expectPlan: (plan: PlanResult) => void;
};

const types = (plan: PlanResult): string[] => plan.actions.map((a) => a.type);
/** `Kind/name` of each action's object or target (a create's object, a patch's or an apply's target, ...). */
const objectsOf = (plan: PlanResult): string[] =>
  plan.actions.flatMap((a) => {
    const { object, target } = a as { object?: KubernetesObject; target?: { kind: string; name: string } };
    if (object !== undefined) return [`${object.kind}/${object.metadata?.name}`];
    return target === undefined ? [] : [`${target.kind}/${target.name}`];
  });
const ofType = <T extends Action['type']>(plan: PlanResult, type: T) =>
  plan.actions.filter((a): a is Extract<Action, { type: T }> => a.type === type);

/** An object as the apiserver holds it: with its kind and apiVersion, and the future field beside its spec. */
function served<T extends KubernetesObject>(kind: string, object: T): KubernetesObject {
  const info = resourceOf(kind);
  return { ...object, apiVersion: info.apiVersion, kind: info.kind, ...FUTURE };
}

const condition = (type: string, status: 'True' | 'False', at: string) => ({
  type,
  status,
  lastTransitionTime: at,
  lastUpdateTime: at,
  reason: 'Fixture',
  message: `${type} is ${status}`,
});

const WORLDS: Readonly<Record<string, () => World>> = {
  Deployment: () => {
    const d = deployment.aDeployment({
      replicas: 3,
      status: {
        observedGeneration: 1,
        conditions: [condition('Available', 'False', deployment.T0), condition('Progressing', 'True', deployment.T0)],
      },
    });
    return {
      key: { namespace: 'ns', name: 'web' },
      now: deployment.NOW,
      objects: [served('Deployment', d)],
      expectPlan: (plan) => {
        const created = ofType(plan, 'create');
        expect(created).toHaveLength(1);
        expect(created[0]?.object.kind).toBe('ReplicaSet');
      },
    };
  },
  ReplicaSet: () => {
    const rs = replicaset.aReplicaSet({ replicas: 3 });
    const pod = replicaset.aPod('web-ready', { readyFor: 120, age: 600 });
    return {
      key: { namespace: replicaset.NS, name: replicaset.RS_NAME },
      now: replicaset.NOW,
      objects: [served('ReplicaSet', rs), served('Pod', pod)],
      expectPlan: (plan) => expect(ofType(plan, 'create')).toHaveLength(2),
    };
  },
  StatefulSet: () => {
    const set = statefulset.aSet({ replicas: 2 });
    return {
      key: { namespace: statefulset.NS, name: 'web' },
      now: statefulset.NOW,
      objects: [served('StatefulSet', set)],
      expectPlan: (plan) => {
        const kinds = ofType(plan, 'create').map((a) => a.object.kind);
        expect(kinds).toContain('ControllerRevision');
        expect(kinds).toContain('Pod');
      },
    };
  },
  DaemonSet: () => {
    const ds = daemonset.aDaemonSet();
    const nodes = ['node-a', 'node-b'].map((n) => {
      const node = daemonset.aNode(n);
      return {
        ...node,
        metadata: { ...node.metadata, creationTimestamp: daemonset.secondsAgo(3600) },
        status: {
          conditions: [
            { ...condition('Ready', 'True', daemonset.secondsAgo(600)), lastHeartbeatTime: daemonset.secondsAgo(5) },
          ],
        },
      };
    });
    return {
      key: { namespace: daemonset.NS, name: daemonset.DS_NAME },
      now: daemonset.NOW,
      objects: [served('DaemonSet', ds), ...nodes.map((n) => served('Node', n))],
      expectPlan: (plan) => {
        const pods = ofType(plan, 'create').filter((a) => a.object.kind === 'Pod');
        expect(pods).toHaveLength(2);
      },
    };
  },
  Job: () => {
    const j = job.aJob({ parallelism: 2, completions: 4 });
    const running = job.aPod('pi-running', { ready: true });
    return {
      key: { namespace: job.NS, name: job.JOB },
      now: job.NOW,
      objects: [
        served('Job', { ...j, status: { ...j.status, startTime: job.ago(60), active: 1 } }),
        served('Pod', running),
      ],
      expectPlan: (plan) => expect(ofType(plan, 'create')).toHaveLength(1),
    };
  },
  CronJob: () => {
    const cj = cronjob.aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    return {
      key: { namespace: cronjob.NS, name: cronjob.CJ },
      now: cronjob.NOW,
      objects: [served('CronJob', cj)],
      expectPlan: (plan) => {
        const created = ofType(plan, 'create');
        expect(created.map((a) => a.object.metadata?.name)).toEqual([cronjob.runName('2026-03-10T10:00:00Z')]);
      },
    };
  },
  TTLAfterFinished: () => {
    const j = ttl.aJob({ ttl: 30, finished: ttl.complete(-60) });
    return {
      key: { namespace: ttl.NS, name: ttl.JOB },
      now: ttl.NOW,
      objects: [served('Job', { ...j, status: { ...j.status, startTime: ttl.at(-120), completionTime: ttl.at(-60) } })],
      expectPlan: (plan) => expect(types(plan)).toEqual(['delete']),
    };
  },
  JobSet: () => {
    const js = jobset.aJobSet(
      { replicatedJobs: [jobset.aReplicatedJob('leader'), jobset.aReplicatedJob('workers', 2)] },
      { restarts: 0, conditions: [jobset.cond('StartupPolicyCompleted', 'True', 'AllReplicatedJobsStarted')] },
      { creationTimestamp: jobset.at(-120) },
    );
    const running = jobset.aChildJob('workers', 0, { kind: 'active', active: 1, startTime: jobset.at(-60) });
    return {
      key: { namespace: jobset.NS, name: jobset.JS },
      now: jobset.NOW,
      objects: [served('JobSet', js), served('Job', running)],
      expectPlan: (plan) => {
        const created = ofType(plan, 'create').filter((a) => a.object.kind === 'Job');
        expect(created.map((a) => a.object.metadata?.name).sort()).toEqual([
          `${jobset.JS}-leader-0`,
          `${jobset.JS}-workers-1`,
        ]);
      },
    };
  },
  LeaderWorkerSet: () => {
    const set = lws.anLws({ replicas: 2, size: 3 });
    return {
      key: { namespace: lws.NS, name: lws.LWS },
      now: lws.NOW,
      objects: [
        served('LeaderWorkerSet', { ...set, metadata: { ...set.metadata, creationTimestamp: '2026-03-10T10:00:00Z' } }),
      ],
      // A new set: its first revision, its leader StatefulSet and its shared headless Service.
      expectPlan: (plan) =>
        expect(objectsOf(plan)).toEqual(expect.arrayContaining([`StatefulSet/${lws.LWS}`, `Service/${lws.LWS}`])),
    };
  },
  LeaderWorkerSetPod: () => {
    const set = lws.anLws({ replicas: 1, size: 3 });
    const revision = newRevision(set, [], 'rev-1');
    const leader = lws.aPod(0, 0, { revision: 'rev-1' });
    return {
      key: { namespace: lws.NS, name: `${lws.LWS}-0` },
      now: lws.NOW,
      objects: [served('LeaderWorkerSet', set), served('Pod', leader), served('ControllerRevision', revision)],
      // A leader pod without its worker StatefulSet: the StatefulSet of its two workers.
      expectPlan: (plan) => expect(objectsOf(plan)).toEqual([`StatefulSet/${lws.LWS}-0`]),
    };
  },
  FleetRollout: () => {
    const rollout = exampleRollout();
    return {
      key: { namespace: rollout.metadata.namespace, name: rollout.metadata.name },
      now: deployment.NOW,
      objects: [
        served('FleetRollout', {
          ...rollout,
          metadata: { ...rollout.metadata, uid: 'uid-rollout', resourceVersion: '7', generation: 1 },
        }),
      ],
      // Its first pass puts its finalizer on (the object kept whole, the future field too).
      expectPlan: (plan) => {
        const updated = ofType(plan, 'update');
        expect(updated).toHaveLength(1);
        expect(updated[0]?.object.metadata?.finalizers).toEqual([FLEET_ROLLOUT_FINALIZER]);
        expect((updated[0]?.object as Record<string, unknown>).futureField).toEqual(FUTURE.futureField);
      },
    };
  },
  ConfigMap: () => {
    const source = {
      metadata: {
        name: 'settings',
        namespace: 'src-ns',
        uid: 'uid-src',
        resourceVersion: '5',
        creationTimestamp: '2025-12-31T12:00:00Z',
        annotations: { [MIRROR_TO]: 'team-a' },
      },
      data: { a: '1' },
    };
    const ns = { metadata: { name: 'team-a', uid: 'uid-ns', creationTimestamp: '2025-06-01T00:00:00Z' } };
    return {
      key: { namespace: 'src-ns', name: 'settings' },
      now: new Date('2026-01-01T00:00:00Z'),
      objects: [served('ConfigMap', source), served('Namespace', ns)],
      expectPlan: (plan) => {
        const created = ofType(plan, 'create');
        expect(created.map((a) => a.object.metadata?.namespace)).toEqual(['team-a']);
      },
    };
  },
};

/** The cluster registry the ConfigMap mirror takes its policy from: it may write into team-a. */
const registry = { get: () => ({ mirror: { allowedNamespaces: ['team-a'] } }) } as unknown as Pick<
  ClusterRegistry,
  'get'
>;

/** The world relisted: per kind, a list response body (JSON text), decoded by decodeListPage. */
function relisted(objects: readonly KubernetesObject[]): KubernetesObject[] {
  const out: KubernetesObject[] = [];
  for (const kind of new Set(objects.map((o) => o.kind ?? ''))) {
    const info = resourceOf(kind);
    const items = objects.filter((o) => o.kind === kind).map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
    const body = JSON.stringify({
      kind: `${kind}List`,
      apiVersion: info.apiVersion,
      metadata: { resourceVersion: '900' },
      items,
    });
    const page = decodeListPage(JSON.parse(body) as unknown, info);
    out.push(...(page.items as KubernetesObject[]).map((o) => admit(o)));
  }
  return out;
}

/** What the forwarder applies to every object it lists or watches before anything holds it. */
const admit = (o: KubernetesObject): KubernetesObject => trimForForwarder(o as KubeObject).object as KubernetesObject;

/** The world watched: per kind, ADDED event lines (JSON text) through a ResourceWatcher, as the forwarder gets them. */
async function watched(objects: readonly KubernetesObject[]): Promise<KubernetesObject[]> {
  const out: KubernetesObject[] = [];
  for (const kind of new Set(objects.map((o) => o.kind ?? ''))) {
    const lines = objects.filter((o) => o.kind === kind).map((o) => JSON.stringify({ type: 'ADDED', object: o }));
    // client-node's Watch: each line parsed, its type and object handed on.
    const starter: WatchStarter = async (_path, _params, onLine) => {
      queueMicrotask(() => {
        for (const line of lines) {
          const data = JSON.parse(line) as { type: unknown; object: unknown };
          onLine(data.type, data.object);
        }
      });
      return { abort: () => undefined };
    };
    const got: KubernetesObject[] = [];
    const noList: Lister = async () => {
      throw new Error('the watch resumes: no list');
    };
    const w = new ResourceWatcher({
      cluster: 'c1',
      resource: resourceOf(kind).plural,
      kubeConfig: new KubeConfig(),
      lister: noList,
      logger: new Logger('test', 'error', () => undefined),
      resumeFrom: '900',
      watch: starter,
      admit: (o) => trimForForwarder(o).object,
      hooks: {
        onEvents: async (events) => void got.push(...events.map((e) => e.object as KubernetesObject)),
        onList: async () => undefined,
        onProgress: () => undefined,
        onRestart: () => undefined,
        onError: () => undefined,
      },
    });
    w.start();
    await waitFor(async () => got.length === lines.length, 5_000, 5, `${kind} events`);
    await w.stop();
    out.push(...got);
  }
  return out;
}

/** A view over a fixed set of objects (cache or live alike: every read answers from them). */
class FixedView implements ClusterView {
  readonly cluster = 'c1';
  constructor(private readonly objects: readonly KubernetesObject[]) {}

  async get<T extends ApiObject>(kind: string, namespace: string, name: string): Promise<T | null> {
    const hit = this.objects.find(
      (o) => o.kind === kind && (o.metadata?.namespace ?? '') === namespace && o.metadata?.name === name,
    );
    return (hit as T | undefined) ?? null;
  }

  async list<T extends ApiObject>(kind: string, namespace: string | undefined, options?: ListOptions): Promise<T[]> {
    const selector = selectorOf({ matchLabels: equalities(options?.labelSelector) });
    return this.objects.filter(
      (o) =>
        o.kind === kind &&
        (namespace === undefined || (o.metadata?.namespace ?? '') === namespace) &&
        selector.matches(o.metadata?.labels ?? {}),
    ) as T[];
  }
}

/** `a=b,c=d` as matchLabels; any other selector form is not used by the observes here, so it is refused. */
function equalities(selector: string | undefined): Record<string, string> {
  if (selector === undefined || selector === '') return {};
  return Object.fromEntries(
    selector.split(',').map((term) => {
      const m = /^([^=!]+)==?([^=]*)$/.exec(term);
      if (!m) throw new Error(`FixedView: selector ${term} not supported`);
      return [m[1], m[2]];
    }),
  );
}

async function planOf(controller: Controller, world: World, objects: readonly KubernetesObject[], kind: string) {
  const key: ReconcileKey = { cluster: 'c1', kind, ...world.key };
  const view = new FixedView(objects);
  const observed = await controller.observe(view, key, world.now);
  return controller.plan(observed, world.now);
}

const controllers = DESCRIPTORS.controllers(registry);

describe.each([...controllers.keys()])(
  '%s: planning from a relisted object equals planning from it watched',
  (kind) => {
    it('plans the same actions from the list body and from the watch events', async () => {
      const make = WORLDS[kind];
      if (make === undefined) throw new Error(`no relist/watch world for the registered kind ${kind}: add one`);
      const world = make();
      const controller = controllers.get(kind)!;

      const fromList = relisted(world.objects);
      const fromWatch = await watched(world.objects);
      // The two paths hand over the same objects (future field included), in the order they were served.
      expect(fromWatch).toEqual(fromList);
      expect(fromList.every((o) => (o as Record<string, unknown>).futureField !== undefined)).toBe(true);

      const listPlan = await planOf(controller, world, fromList, kind);
      const watchPlan = await planOf(controller, world, fromWatch, kind);
      expect(watchPlan).toEqual(listPlan);
      world.expectPlan(listPlan);
      world.expectPlan(watchPlan);
    });
  },
);
