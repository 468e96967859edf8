// LeaderWorkerSet under fleetq's handlers on a fleetq-mode sandbox cluster of this test's own (its own sandbox root,
// so nothing collides with the shared sandbox): the cluster gets the LWS CRD from LeaderWorkerSet's registered
// descriptor (sandboxKindOptions), fleetq's LWS webhooks as infra/k8s/components/leaderworkerset-admission ships
// them (its webhooks.yaml, each Service client turned into a URL of the admission server this process runs with
// serveLeaderWorkerSet and a serving certificate of the sandbox CA), and fleetq's roles (infra/k8s/*-rbac.yaml) for
// the kinds its entry owns: StatefulSet (kube-controller-manager's StatefulSet controller is off in fleetq mode),
// LeaderWorkerSet and LeaderWorkerSetPod. fleetq runs all-in-one (forwarder and workers in this process) as the
// ServiceAccounts fleetq-forwarder and fleetq-handler. A LeaderWorkerSet of 2 groups of 3 reaches Available; its
// pods carry the group-index and worker-index labels and the LWS_* env that fleetq's pod webhook sets. With the
// opt-in group-restart backoff at limit 1, a group whose worker keeps failing is recreated once and then held
// (condition and Warning event), while a set without it is recreated at every failure. The setup and the crash
// injector are test/helpers/lws-crash-injector.ts, shared with test/bench/leaderworkerset-restart-backoff.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';
import {
  GROUP_INDEX_LABEL,
  isRunning,
  NAME_LABEL,
  startCrashInjector,
  startLwsOnFleetq,
  WORKER_INDEX_LABEL,
  type LwsOnFleetq,
} from '../helpers/lws-crash-injector.js';

const CLUSTER = 'lws-fleetq';
const NAMESPACE = 'lws-fleetq';

type LeaderWorkerSet = KubernetesObject & {
  status?: {
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
    readyReplicas?: number;
  };
};

function leaderWorkerSet(
  name: string,
  replicas: number,
  size: number,
  extra: { annotations?: Record<string, string>; restartPolicy?: string } = {},
): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: {
      name,
      namespace: NAMESPACE,
      ...(extra.annotations !== undefined && { annotations: extra.annotations }),
    },
    spec: {
      replicas,
      leaderWorkerTemplate: {
        size,
        ...(extra.restartPolicy !== undefined && { restartPolicy: extra.restartPolicy }),
        workerTemplate: kwokPodTemplate({ app: name }),
      },
    },
  };
}

const isAvailable = (lws: LeaderWorkerSet | undefined): boolean =>
  lws?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;

describe('LeaderWorkerSet under fleetq on a fleetq-mode cluster', () => {
  // Made when the tests run (a filtered run that skips them leaves nothing behind).
  let root = '';
  let kc: KubeConfig;
  let lws: LwsOnFleetq | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-lws-fleetq-'));
    // Every registered kind's CRD (LeaderWorkerSet's from its descriptor); no add-on runs in fleetq mode.
    const kinds = sandboxKindOptions();
    expect(kinds.some((k) => k.kind === 'LeaderWorkerSet')).toBe(true);
    const up = await upOneCluster({
      spec: { name: CLUSTER, mode: SandboxMode.Fleetq },
      root,
      kinds,
      namespace: NAMESPACE,
    });
    kc = up.kc;
    lws = await startLwsOnFleetq({ kc, root, cluster: CLUSTER, probeNamespace: NAMESPACE });
  }, 15 * 60_000);

  afterAll(async () => {
    await lws?.fleetq.stop();
    if (root === '') return;
    await lws?.admission.stop();
    await downAndRemove(root);
  });

  it('an LWS of 2 groups of 3 becomes Available, its pods labelled and given the LWS_* env by the pod webhook', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create(leaderWorkerSet('lws', 2, 3));
    let last: LeaderWorkerSet | undefined;
    await waitFor(
      async () => {
        last = (await objects.read({
          apiVersion: 'leaderworkerset.x-k8s.io/v1',
          kind: 'LeaderWorkerSet',
          metadata: { name: 'lws', namespace: NAMESPACE },
        })) as LeaderWorkerSet;
        return isAvailable(last);
      },
      40_000,
      250,
      'the LeaderWorkerSet to become Available',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; its status: ${JSON.stringify(last?.status)}`);
    });
    expect(last?.status?.readyReplicas).toBe(2);

    const pods = (
      await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NAMESPACE, labelSelector: `${NAME_LABEL}=lws` })
    ).items;
    const summary = (p: V1Pod) => {
      const env = Object.fromEntries((p.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
      return {
        name: p.metadata?.name,
        group: p.metadata?.labels?.[GROUP_INDEX_LABEL],
        worker: p.metadata?.labels?.[WORKER_INDEX_LABEL],
        leaderAddress: env.LWS_LEADER_ADDRESS,
        size: env.LWS_GROUP_SIZE,
        index: env.LWS_WORKER_INDEX,
      };
    };
    const want = (group: number, worker: number) => ({
      name: worker === 0 ? `lws-${group}` : `lws-${group}-${worker}`,
      group: String(group),
      worker: String(worker),
      leaderAddress: `lws-${group}.lws.${NAMESPACE}`,
      size: '3',
      index: String(worker),
    });
    expect(pods.map(summary).sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual([
      want(0, 0),
      want(0, 1),
      want(0, 2),
      want(1, 0),
      want(1, 1),
      want(1, 2),
    ]);
  });

  it("a worker StatefulSet's ControllerRevision deleted is made again at the set's next sync, not on the deletion's own event", async () => {
    // Upstream's StatefulSet controller has no ControllerRevision event handler. When a group is recreated, the
    // garbage collector deletes the worker StatefulSet's revision while the set waits in foreground deletion; a
    // pass woken by that deletion made the revision again at once, racing the collector round after round (the
    // LWS e2e specs then timed out waiting for the group). Here the revision is deleted directly: nothing makes
    // it again until an event of the set's own pods wakes the set.
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await objects.create(leaderWorkerSet('revs', 1, 2));
    const revisionsOf = async (uid: string) =>
      (await apps.listNamespacedControllerRevision({ namespace: NAMESPACE })).items.filter((cr) =>
        cr.metadata?.ownerReferences?.some((o) => o.kind === 'StatefulSet' && o.uid === uid),
      );
    let uid = '';
    await waitFor(
      async () => {
        const set = await apps.readNamespacedStatefulSet({ name: 'revs-0', namespace: NAMESPACE }).catch(() => null);
        uid = set?.metadata?.uid ?? '';
        // Settled: its status counts its pod ready (no status write of its own is left to wake it).
        const settled = set?.status?.readyReplicas === 1 && set.status.updateRevision !== undefined;
        return uid !== '' && settled && (await revisionsOf(uid)).length === 1;
      },
      40_000,
      250,
      'the worker StatefulSet revs-0 with its revision and its pod revs-0-1 ready',
    );
    const [revision] = await revisionsOf(uid);
    await apps.deleteNamespacedControllerRevision({ name: revision!.metadata!.name!, namespace: NAMESPACE });
    // Not made again on the deletion's event: every poll for 3 s finds none (a deadline on a negative, not a sleep;
    // before, fleetq made it again within ~100 ms).
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      expect((await revisionsOf(uid)).map((cr) => cr.metadata?.name)).toEqual([]);
      await new Promise((r) => setTimeout(r, 200));
    }
    // An event of its pod (an annotation) wakes the set: its sync makes the revision again, with the same name.
    await core.patchNamespacedPod({
      name: 'revs-0-1',
      namespace: NAMESPACE,
      body: [{ op: 'add', path: '/metadata/annotations/fleetq.dev~1test-wake', value: '1' }],
    });
    await waitFor(
      async () => (await revisionsOf(uid)).some((cr) => cr.metadata?.name === revision!.metadata!.name),
      20_000,
      250,
      'the worker StatefulSet to make its revision again after its pod changed',
    );
  }, 90_000);

  it('with group-restart backoff "1", a group whose worker keeps failing is recreated once, then held; without it, at every failure', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const core = kc.makeApiClient(CoreV1Api);
    // Limit 1: the first recreation of a streak goes at once (no backoff delay), the next failure finds the count
    // at the limit and holds the group (restart-backoff.ts decideRecreation); limit 2 would wait 10 s in between.
    const recreate = { restartPolicy: 'RecreateGroupOnPodRestart' };
    await objects.create(leaderWorkerSet('plain', 1, 2, recreate));
    await objects.create(
      leaderWorkerSet('held', 1, 2, { ...recreate, annotations: { 'fleetq.dev/group-restart-backoff': '1' } }),
    );
    const started = Date.now();
    const injector = startCrashInjector(kc, NAMESPACE, ['plain', 'held']);
    const recreations = (set: string) => Math.max(0, injector.leaderUids(set).size - 1);
    const readHeld = async () =>
      (await objects.read({
        apiVersion: 'leaderworkerset.x-k8s.io/v1',
        kind: 'LeaderWorkerSet',
        metadata: { name: 'held', namespace: NAMESPACE },
      })) as LeaderWorkerSet;
    const leaderUid = async (): Promise<string | undefined> => {
      const pods = (
        await core.listNamespacedPod({
          namespace: NAMESPACE,
          labelSelector: `${NAME_LABEL}=held,${WORKER_INDEX_LABEL}=0`,
        })
      ).items;
      return pods.find(isRunning)?.metadata?.uid;
    };
    try {
      // Held: the condition names group 0 …
      let last: LeaderWorkerSet | undefined;
      await waitFor(
        async () => {
          last = await readHeld();
          return (
            last.status?.conditions?.some((c) => c.type === 'GroupRestartLimitReached' && c.status === 'True') ?? false
          );
        },
        // Alone this takes ~7 s; with another integration file beside it on 2 cores, once over 30 s.
        60_000,
        250,
        'the held set to show GroupRestartLimitReached True',
      ).catch((err: unknown) => {
        throw new Error(
          `${String(err)}; its status: ${JSON.stringify(last?.status)}; recreations seen: ${recreations('held')}`,
        );
      });
      const condition = last!.status!.conditions!.find((c) => c.type === 'GroupRestartLimitReached')!;
      expect(condition.reason).toBe('GroupRestartLimitReached');
      expect(condition.message).toMatch(/: 0$/);
      // … after exactly one recreation (a new leader uid), and the Warning event is recorded.
      const heldUid = await leaderUid();
      expect(heldUid).toBeDefined();
      expect(injector.leaderUids('held').has(heldUid!)).toBe(true);
      expect(recreations('held')).toBe(1);
      await waitFor(
        async () =>
          (await core.listNamespacedEvent({ namespace: NAMESPACE })).items.some(
            (e) => e.involvedObject.name === 'held' && e.reason === 'GroupRestartLimitReached' && e.type === 'Warning',
          ),
        10_000,
        250,
        'the Warning event GroupRestartLimitReached on the held set',
      );
      // The held leader stays while the control (no annotation) goes on failing: for at least 5 s, and until the
      // control was recreated more times than the limit allows (at most 25 s: a foreground deletion of a leader
      // sometimes waits ~20 s for the garbage collector), every poll sees the same running leader (a deadline on a
      // negative, not a sleep).
      const atLeast = Date.now() + 5_000;
      const atMost = Date.now() + 25_000;
      while (Date.now() < atLeast || recreations('plain') <= 1) {
        if (Date.now() > atMost) {
          throw new Error(`the plain set was recreated ${recreations('plain')} times in 25 s, want more than 1`);
        }
        expect(await leaderUid()).toBe(heldUid);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(recreations('held')).toBe(1);
      expect(recreations('plain')).toBeGreaterThan(1);
      process.stderr.write(
        `restart backoff case: ${((Date.now() - started) / 1000).toFixed(1)} s; recreations plain ` +
          `${recreations('plain')}, held ${recreations('held')}\n`,
      );
    } finally {
      await injector.stop();
    }
  }, 60_000);
});
