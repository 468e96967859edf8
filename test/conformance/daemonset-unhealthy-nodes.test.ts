// fleetq's opt-in unhealthy-nodes policy against upstream, on sandbox clusters (issue 12 §3): a DaemonSet that
// tolerates every taint (as node agents do) rolls out over kwok-node-0, kwok-node-1 and a third kwok node of this
// test's own, which goes NotReady mid-rollout and comes back.
//   upstream (CONFORMANCE_A, default upstream-1): the bad node's unavailable pod uses up maxUnavailable 1 and the
//     rollout stalls: a healthy node is still not updated a whole window later;
//   fleetq (CONFORMANCE_B, default fleetq-1), the same DaemonSet annotated fleetq.dev/daemonset-unhealthy-nodes:
//     skip: both healthy nodes are updated and available, the DaemonSet's condition UnhealthyNodesDeferred and a
//     Warning Event name the bad node; once the node is back its pod is updated too and the condition goes.
// Going NotReady in a way that sticks: kwok's node-initialize stage sets Ready True again on every node it manages.
// So the third node has no kwok annotation and the test is its kubelet (FakeKubelet below: a heartbeat every 5 s,
// its pods made Running and Ready, their deletions finished; kwok was seen to run such a node's pods in some runs
// and not in others, e.g. a clean-clone CI run where the new node's pod never became Ready). To
// break the node it stops, sets Ready False (the node lifecycle controller then taints it not-ready), reports the
// node's daemon pods not ready and puts a finalizer on them, so that a deletion stays pending as on a node whose
// kubelet is gone (kwok would finish it); to bring it back it heartbeats Ready True again and drops the finalizers.
// The third node is added after the DaemonSet, so it also shows a new node getting its daemon pod on both sides.
// It carries a taint of its own that only this test's DaemonSet tolerates (it tolerates everything), and has no
// type=kwok label, so no other test's pod lands on it; it is deleted at the end.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  EventsV1Api,
  type KubeConfig,
  type V1DaemonSet,
  type V1Node,
  type V1NodeCondition,
  type V1Pod,
} from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { startFleetq, type RunningFleetq } from '../helpers/conformance/fleetq.js';
import { kubectl, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const A = process.env.CONFORMANCE_A ?? 'upstream-1';
const B = process.env.CONFORMANCE_B ?? 'fleetq-1';
const BAD = 'zz-ds-unhealthy-node'; // sorts after kwok-node-*: fleetq's pass reaches it last
const HEALTHY = ['kwok-node-0', 'kwok-node-1'];
const OWN_TAINT = { key: 'conformance.fleetq.dev/ds-unhealthy', value: 'only', effect: 'NoSchedule' };
const HOSTNAME = 'kubernetes.io/hostname';
const MIN_READY_S = 15;
/** The finalizer that keeps a deleted pod of the broken node pending, as a node without a kubelet does. */
const HOLD = 'conformance.fleetq.dev/node-down';
/** How long upstream must show no progress on the healthy nodes (≥ 2 minReadySeconds after the flip). */
const STALL_WINDOW_MS = 40_000;
const DEADLINE_MS = 120_000;
const image = (v: number) => `registry.example/app:${v}`;

type Side = {
  readonly c: TestCluster;
  readonly ns: string;
  readonly remove: () => Promise<void>;
  kubelet?: FakeKubelet;
};

function daemonSet(): V1DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'agent',
      annotations: {
        'fleetq.dev/daemonset-unhealthy-nodes': 'skip',
        'fleetq.dev/daemonset-unhealthy-node-threshold': '0s',
      },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      minReadySeconds: MIN_READY_S,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          containers: [{ name: 'app', image: image(1) }],
          tolerations: [{ operator: 'Exists' }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: HOSTNAME, operator: 'In', values: [...HEALTHY, BAD] }] },
                ],
              },
            },
          },
        },
      },
    },
  };
}

function readyCondition(status: 'True' | 'False'): V1NodeCondition {
  const now = new Date().toISOString() as unknown as Date;
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
    message: status === 'True' ? 'fleetq conformance kubelet' : 'fleetq conformance: node broken by the test',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
}

function badNode(): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: BAD,
      labels: { [HOSTNAME]: BAD, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { taints: [OWN_TAINT] },
    status: {
      allocatable: { cpu: '64', memory: '512Gi', pods: '110' },
      capacity: { cpu: '64', memory: '512Gi', pods: '110' },
      conditions: [readyCondition('True')],
    },
  };
}

const isReady = (o: { status?: { conditions?: Array<{ type: string; status: string }> } }) =>
  (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

async function nodeGone(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.deleteNode({ name: BAD }).catch(() => undefined);
  await waitFor(
    async () =>
      core.readNode({ name: BAD }).then(
        () => false,
        () => true,
      ),
    60_000,
    250,
    `node ${BAD} to be deleted`,
  );
}

async function addBadNode(side: Side): Promise<void> {
  const core = side.c.kc.makeApiClient(CoreV1Api);
  await core.createNode({ body: badNode() });
  side.kubelet = new FakeKubelet(side.c, side.ns);
  await waitFor(async () => isReady(await core.readNode({ name: BAD })), 60_000, 250, `node ${BAD} Ready`);
}

/**
 * The third node's kubelet, run by the test: while healthy it heartbeats Ready True (every 5 s; the node lifecycle
 * controller's grace period is 40 s), makes the pods bound to the node Running and Ready, and finishes their
 * deletions; broken, it does nothing of that, and has reported Ready False and its pods not ready.
 */
class FakeKubelet {
  private healthy = true;
  private tick: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private lastHeartbeat = 0;

  constructor(
    private readonly c: TestCluster,
    private readonly namespace: string,
  ) {
    this.timer = setInterval(() => {
      this.tick = this.tick.then(() => this.step()).catch(() => undefined);
    }, 500);
  }

  private async step(): Promise<void> {
    if (!this.healthy) return;
    if (Date.now() - this.lastHeartbeat > 5_000) {
      await this.setReady('True');
      this.lastHeartbeat = Date.now();
    }
    // kwok manages only the nodes it annotated (the sandbox's --manage-nodes-with-annotation-selector): whether
    // it also runs the pods of this one was seen to differ from run to run, so this kubelet runs them itself.
    for (const p of await this.podsOn(this.namespace)) {
      if (p.metadata?.deletionTimestamp) {
        if (!(p.metadata.finalizers ?? []).includes(HOLD)) await this.finishDeletion(p);
      } else if (!isReady(p)) {
        await this.setPodReady(p, true);
      }
    }
  }

  /** What a kubelet does once a deleted pod's containers stopped: the pod goes (grace period 0). */
  private async finishDeletion(p: V1Pod): Promise<void> {
    const args = ['-n', p.metadata?.namespace ?? '', 'delete', 'pod', p.metadata?.name ?? ''];
    await kubectl(this.c.state, [...args, '--grace-period=0', '--force', '--wait=false']).catch(() => undefined);
  }

  private async setReady(status: 'True' | 'False'): Promise<void> {
    const patch = JSON.stringify({ status: { conditions: [readyCondition(status)] } });
    await kubectl(this.c.state, ['patch', 'node', BAD, '--subresource=status', '--type=strategic', '-p', patch]);
  }

  private async setPodReady(p: V1Pod, ready: boolean): Promise<void> {
    const now = new Date().toISOString();
    const status = ready ? 'True' : 'False';
    const container = p.spec?.containers[0];
    const patch = JSON.stringify({
      status: {
        phase: 'Running',
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status, lastTransitionTime: now },
          { type: 'Ready', status, lastTransitionTime: now },
        ],
        containerStatuses: [
          {
            name: container?.name ?? 'app',
            image: container?.image ?? '',
            imageID: '',
            ready,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          },
        ],
      },
    });
    const args = ['-n', p.metadata?.namespace ?? '', 'patch', 'pod', p.metadata?.name ?? ''];
    await kubectl(this.c.state, [...args, '--subresource=status', '--type=merge', '-p', patch]);
  }

  private async podsOn(namespace: string): Promise<V1Pod[]> {
    const core = this.c.kc.makeApiClient(CoreV1Api);
    return (await core.listNamespacedPod({ namespace, fieldSelector: `spec.nodeName=${BAD}` })).items;
  }

  /**
   * Stops heartbeating, reports Ready False, and holds the pods of `namespace` on the node: not ready, and a
   * finalizer so that a deletion stays pending (kwok would otherwise finish it: it runs pods on every node).
   */
  async break(namespace: string): Promise<void> {
    this.healthy = false;
    await this.tick;
    await this.setReady('False');
    for (const p of await this.podsOn(namespace)) {
      if (p.metadata?.deletionTimestamp) continue;
      const hold = JSON.stringify({ metadata: { finalizers: [HOLD] } });
      await kubectl(this.c.state, [
        '-n',
        namespace,
        'patch',
        'pod',
        p.metadata?.name ?? '',
        '--type=merge',
        '-p',
        hold,
      ]);
      await this.setPodReady(p, false);
    }
  }

  /** Heartbeats Ready True again, and lets the pending deletions finish. */
  async restore(namespace: string): Promise<void> {
    this.healthy = true;
    this.lastHeartbeat = 0;
    for (const p of await this.podsOn(namespace)) await this.release(namespace, p);
  }

  async release(namespace: string, p: V1Pod): Promise<void> {
    if (!(p.metadata?.finalizers ?? []).includes(HOLD)) return;
    const free = JSON.stringify({ metadata: { finalizers: null } });
    const args = ['-n', namespace, 'patch', 'pod', p.metadata?.name ?? '', '--type=merge', '-p', free];
    await kubectl(this.c.state, args).catch(() => undefined);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.tick;
  }
}

async function daemonSetOf(side: Side): Promise<V1DaemonSet> {
  return side.c.kc.makeApiClient(AppsV1Api).readNamespacedDaemonSet({ name: 'agent', namespace: side.ns });
}

async function podsOf(side: Side): Promise<V1Pod[]> {
  const core = side.c.kc.makeApiClient(CoreV1Api);
  return (await core.listNamespacedPod({ namespace: side.ns, labelSelector: 'app=agent' })).items;
}

/** Live pods per node running image v (not being deleted), ready for minReadySeconds when `available`. */
function updatedOn(pods: readonly V1Pod[], v: number, available: boolean, now = Date.now()): Set<string> {
  const out = new Set<string>();
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp || p.spec?.containers[0]?.image !== image(v)) continue;
    const ready = (p.status?.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'True');
    const since = ready?.lastTransitionTime ? new Date(ready.lastTransitionTime).getTime() : undefined;
    if (available && (since === undefined || now - since < MIN_READY_S * 1000)) continue;
    out.add(p.spec?.nodeName ?? '?');
  }
  return out;
}

function describePods(pods: readonly V1Pod[]): string {
  return pods
    .map((p) => {
      const ready = isReady(p) ? 'ready' : 'not-ready';
      const deleting = p.metadata?.deletionTimestamp ? ' deleting' : '';
      return `${p.spec?.nodeName ?? '?'}:${p.spec?.containers[0]?.image ?? ''}:${p.status?.phase ?? ''}:${ready}${deleting}`;
    })
    .join(', ');
}

async function until(what: string, check: () => Promise<true | string>, timeoutMs = DEADLINE_MS): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const r = await check();
      if (r === true) return true;
      last = r;
      return false;
    },
    timeoutMs,
    500,
    what,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; last: ${last}`);
  });
}

async function setImage(side: Side, v: number): Promise<void> {
  const apps = side.c.kc.makeApiClient(AppsV1Api);
  const ds = await daemonSetOf(side);
  ds.spec!.template.spec!.containers[0]!.image = image(v);
  await apps.replaceNamespacedDaemonSet({ name: 'agent', namespace: side.ns, body: ds });
}

async function rolledOut(side: Side, v: number, nodes: readonly string[]): Promise<void> {
  await until(`${nodes.join(', ')} run image ${v}, available`, async () => {
    const on = updatedOn(await podsOf(side), v, true);
    const missing = nodes.filter((n) => !on.has(n));
    return missing.length === 0 ? true : `not yet on ${missing.join(', ')}`;
  });
}

/** The rollout to image 2 has begun (some pod runs it), then the node goes NotReady and is tainted. */
async function breakMidRollout(side: Side, kubelet: FakeKubelet): Promise<void> {
  await until('the first pod at image 2', async () =>
    updatedOn(await podsOf(side), 2, false).size > 0 ? true : 'none yet',
  );
  await kubelet.break(side.ns);
  const core = side.c.kc.makeApiClient(CoreV1Api);
  await until(`node ${BAD} tainted not-ready`, async () => {
    const taints = (await core.readNode({ name: BAD })).spec?.taints ?? [];
    return taints.some((t) => t.key === 'node.kubernetes.io/not-ready') ? true : JSON.stringify(taints);
  });
}

describe('DaemonSet rollout with a node going NotReady (fleetq.dev/daemonset-unhealthy-nodes)', () => {
  let fleetq: RunningFleetq | undefined;
  let upstream: Side;
  let policy: Side;

  beforeAll(async () => {
    const [a, b] = await Promise.all([sandboxCluster(A), sandboxCluster(B)]);
    if (a.state.mode !== 'upstream' || b.state.mode !== 'fleetq') {
      throw new Error(`needs an upstream cluster as CONFORMANCE_A (${A}) and a fleetq one as CONFORMANCE_B (${B})`);
    }
    fleetq = await startFleetq(B);
    const sides = await Promise.all(
      [a, b].map(async (c): Promise<Side> => {
        await nodeGone(c.kc); // left by a failed run
        const ns = await testNamespace(c.kc);
        return { c, ns: ns.name, remove: ns.remove };
      }),
    );
    [upstream, policy] = sides as [Side, Side];
  }, 30 * 60_000);

  afterAll(async () => {
    for (const side of [upstream, policy]) {
      if (side === undefined) continue;
      await side.kubelet?.stop();
      await side.kubelet?.restore(side.ns).catch(() => undefined);
      await side.remove();
      await nodeGone(side.c.kc).catch(() => undefined);
    }
    await fleetq?.stop();
  }, 180_000);

  it('upstream stalls on the bad node; fleetq finishes the healthy nodes, reports the bad one, updates it on return', async () => {
    for (const side of [upstream, policy]) {
      await side.c.kc.makeApiClient(AppsV1Api).createNamespacedDaemonSet({ namespace: side.ns, body: daemonSet() });
    }
    await Promise.all([upstream, policy].map((s) => rolledOut(s, 1, HEALTHY)));
    // A node added later gets its daemon pod (the Node event wakes the DaemonSet: node-changes.ts).
    await Promise.all([upstream, policy].map((s) => addBadNode(s)));
    await Promise.all([upstream, policy].map((s) => rolledOut(s, 1, [...HEALTHY, BAD])));
    await Promise.all([upstream, policy].map((s) => setImage(s, 2)));
    await Promise.all([upstream, policy].map((s) => breakMidRollout(s, s.kubelet!)));
    const broke = Date.now();

    const upstreamStalls = (async () => {
      // Sampled through the whole window: never both healthy nodes updated (a deadline, not a sleep: it ends early
      // with a failure the moment upstream gets past the bad node).
      for (;;) {
        const on = updatedOn(await podsOf(upstream), 2, false);
        if (HEALTHY.every((n) => on.has(n))) {
          throw new Error(
            `upstream updated both healthy nodes: no stall; its pods: ${describePods(await podsOf(upstream))}`,
          );
        }
        if (Date.now() - broke >= STALL_WINDOW_MS) return on;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })();

    const fleetqFinishes = (async () => {
      await rolledOut(policy, 2, HEALTHY);
      await until('condition UnhealthyNodesDeferred naming the bad node', async () => {
        const c = ((await daemonSetOf(policy)).status?.conditions ?? []).find(
          (x) => x.type === 'UnhealthyNodesDeferred',
        );
        return c?.status === 'True' && (c.message ?? '').includes(BAD) ? true : JSON.stringify(c ?? 'none');
      });
      const events = await policy.c.kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: policy.ns });
      return events.items.filter((e) => e.reason === 'UnhealthyNodesDeferred').map((e) => e.note ?? '');
    })();

    const [stalledOn, notes] = await Promise.all([upstreamStalls, fleetqFinishes]);
    expect(HEALTHY.filter((n) => stalledOn.has(n)).length).toBeLessThan(2);
    expect(notes.some((n) => n.includes(BAD))).toBe(true);
    const st = (await daemonSetOf(upstream)).status;
    console.log(`upstream after ${STALL_WINDOW_MS / 1000}s: updatedNumberScheduled=${st?.updatedNumberScheduled}`);

    // The node comes back: fleetq updates its pod, last, and the condition goes.
    await policy.kubelet!.restore(policy.ns);
    await rolledOut(policy, 2, [...HEALTHY, BAD]);
    await until('condition UnhealthyNodesDeferred removed', async () => {
      const c = ((await daemonSetOf(policy)).status?.conditions ?? []).find((x) => x.type === 'UnhealthyNodesDeferred');
      return c === undefined ? true : JSON.stringify(c);
    });
    await upstream.kubelet!.restore(upstream.ns);
  }, 600_000);
});
