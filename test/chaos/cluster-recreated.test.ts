// Fault 2: a cluster recreated under the same name behind a kept checkpoint. The pipeline runs against chaos-3
// (this test's alone) with durable checkpoints (FLEETQ_CHECKPOINTS=redis); a Deployment converges; the
// forwarder stops cleanly (its checkpoints written); chaos-3 is destroyed, data and all, and started again
// under the same name: a new kube-system uid and resourceVersions far below the kept checkpoints (the old
// incarnation is churned first so that its checkpoints are well ahead of anything the new one reaches during
// the test). A watch resumed from such a checkpoint is answered with silence, so only a periodic resync would
// move anything, and the forwarder runs with none (the chaos pipeline's FLEETQ_RESYNC_MS=0): the recovery must
// come from the identity check. The forwarder starts again on the kept checkpoints: it must log that it discarded
// them, and Deployments created on the new cluster must converge within seconds. The registry names a stable
// endpoint (test/helpers/chaos/endpoint.ts) moved to the new apiserver, as a fleet's DNS name would be, so
// the workers keep running across the recreation.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { down, readState, up } from '../../infra/sandbox/sandbox.js';
import { jsonLines, type Proc } from '../helpers/processes.js';
import {
  CHAOS_LOG_DIR,
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  ownRedis,
  redisCheckpoints,
  removeNamespace,
  spineReport,
  type ChaosCluster,
  type OwnRedis,
} from '../helpers/chaos/harness.js';
import { kubeconfigAccess, kubeconfigVia, stableEndpoint, type StableEndpoint } from '../helpers/chaos/endpoint.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';

const CLUSTER = 'chaos-3';
/** Deployments created on the new cluster converge this soon (the forwarder runs without a periodic resync). */
const CONVERGE_BOUND_MS = 30_000;
/** resourceVersions the old incarnation is pushed ahead by before its checkpoints are taken. */
const CHURN = 600;

async function restoreHealthy(): Promise<void> {
  await up({ clusters: [{ name: CLUSTER, mode: SandboxMode.Fleetq }], nodes: 2 });
}

async function kubeSystemUid(kc: KubeConfig): Promise<string> {
  return (await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' })).metadata?.uid ?? '';
}

async function currentResourceVersion(kc: KubeConfig): Promise<number> {
  return Number((await kc.makeApiClient(CoreV1Api).listNamespace({ limit: 1 })).metadata?.resourceVersion);
}

describe('chaos: a cluster recreated under the same name behind a kept checkpoint', () => {
  let c: ChaosCluster;
  let fresh: KubeConfig | undefined;
  let nsNew: string | undefined;
  let redis: OwnRedis | undefined;
  let endpoint: StableEndpoint | undefined;
  let p: Pipeline | undefined;
  const watchers: NamespaceWatcher[] = [];
  afterAll(async () => {
    for (const w of watchers) w.stop();
    await p?.stop();
    await endpoint?.close();
    await redis?.stop();
    // chaos-3 is left running and healthy whatever happened above (started again if the test left it down).
    await restoreHealthy();
    if (fresh && nsNew) await removeNamespace(fresh, nsNew);
  });

  it('the forwarder discards the old incarnation’s checkpoints and new Deployments converge within seconds', async () => {
    c = await chaosCluster(CLUSTER);
    redis = await ownRedis();
    endpoint = await stableEndpoint(c.state.ports.apiserver);
    const before = kubeconfigAccess(c.state.kubeconfig);
    const viaEndpoint = kubeconfigVia(c.state.kubeconfig, endpoint.server);
    p = new Pipeline({
      clusters: [{ name: CLUSTER, kubeconfig: viaEndpoint }],
      driver: 'redis',
      redisUrl: redis.url,
      workers: 2,
      leaseMs: 10_000,
      forwarderEnv: { FLEETQ_CHECKPOINTS: 'redis' },
    });
    const core = c.kc.makeApiClient(CoreV1Api);

    // The old incarnation: its resourceVersions pushed ahead (writes the forwarder does not watch), then a
    // Deployment converged under the pipeline, so every checkpoint is past the churn.
    const nsOld = await chaosNamespace(c.kc);
    await core.createNamespacedSecret({ namespace: nsOld, body: { metadata: { name: 'churn' }, data: {} } });
    for (let i = 0; i < CHURN; i++) {
      await core.patchNamespacedSecret({
        namespace: nsOld,
        name: 'churn',
        body: [{ op: 'add', path: '/data', value: { n: Buffer.from(String(i)).toString('base64') } }],
      });
    }
    const wOld = new NamespaceWatcher(c.kc, CLUSTER, nsOld);
    watchers.push(wOld);
    await wOld.start();
    await p.start();
    await createDeployments(c.kc, nsOld, [deployment('before', 3)]);
    await waitRolledOut(wOld, ['before'], 90_000);
    const oldUid = await kubeSystemUid(c.kc);
    const oldRv = await currentResourceVersion(c.kc);

    // Stop the forwarder cleanly: it writes its checkpoints, which are kept.
    const [fwdName, fwd] = [...p.procs].find(([n]) => n.startsWith('forwarder-')) as [string, Proc];
    const exit = await fwd.stop('SIGTERM');
    const kept = await redisCheckpoints(redis.url, p.queue);
    const keptRvs = Object.entries(kept)
      .filter(([f, v]) => f.startsWith(`${CLUSTER}/`) && !f.includes('@') && /^\d+$/.test(v))
      .map(([f, v]) => [f, Number(v)] as const);
    wOld.stop();

    // The fault: chaos-3 destroyed (its etcd data removed) and started again under the same name.
    const recreateStarted = Date.now();
    await down([CLUSTER]);
    const [state] = await up({ clusters: [{ name: CLUSTER, mode: SandboxMode.Fleetq }], nodes: 2 });
    if (!state) throw new Error(`${CLUSTER} did not start again`);
    const recreatedMs = Date.now() - recreateStarted;
    const after = kubeconfigAccess(state.kubeconfig);
    // Same kubeconfig path; a new port (and a token or CA if the sandbox's PKI had changed): the registry's
    // kubeconfig is written again from the new one, and the stable endpoint moves to the new apiserver.
    kubeconfigVia(state.kubeconfig, endpoint.server, viaEndpoint);
    endpoint.retarget(state.ports.apiserver);
    fresh = new KubeConfig();
    fresh.loadFromFile(state.kubeconfig);
    const newUid = await kubeSystemUid(fresh);
    const newRv = await currentResourceVersion(fresh);
    console.log(
      `recreated ${CLUSTER} in ${recreatedMs} ms: kubeconfig ${c.state.kubeconfig === state.kubeconfig ? 'same path' : 'moved'}, ` +
        `server ${before.server} → ${after.server}, token ${before.token === after.token ? 'unchanged' : 'changed'}, ` +
        `CA ${before.ca === after.ca ? 'unchanged' : 'changed'}; kube-system uid ${oldUid} → ${newUid}; ` +
        `resourceVersion ${oldRv} → ${newRv}; kept checkpoints ${JSON.stringify(kept)} ` +
        `(${fwdName} exited ${exit})`,
    );
    // The fault is what it claims: another identity, and checkpoints far ahead of the new cluster.
    expect(exit).toBe(0);
    expect(keptRvs.map(([f]) => f)).toEqual(expect.arrayContaining([`${CLUSTER}/deployments`, `${CLUSTER}/pods`]));
    expect(newUid).not.toBe(oldUid);
    for (const [, rv] of keptRvs) expect(rv).toBeGreaterThan(newRv + CHURN / 2);

    // The independent watcher runs against the new cluster; then the forwarder starts on the kept checkpoints.
    nsNew = await chaosNamespace(fresh);
    const w = new NamespaceWatcher(fresh, CLUSTER, nsNew);
    watchers.push(w);
    await w.start();
    const fwd2 = await p.startForwarder();
    const discarded = await fwd2
      .waitForLine(/"Cluster identity changed; discarding checkpoints"/, 60_000)
      .then((l) => JSON.parse(l) as Record<string, unknown>)
      .catch(() => undefined);

    const names = ['after-a', 'after-b'];
    const createdAt = Date.now();
    await createDeployments(fresh, nsNew, [deployment('after-a', 3), deployment('after-b', 2)]);
    const convergedIn = await waitRolledOut(w, names, CONVERGE_BOUND_MS).then(
      () => Date.now() - createdAt,
      () => undefined,
    );
    const resumed = jsonLines(fwd2).find((l) => l.message === 'Watching')?.resumed;
    const newRvAfter = await currentResourceVersion(fresh);
    console.log(
      `recreated: discarded log ${JSON.stringify(discarded)}; watching resumed from ${JSON.stringify(resumed)}; ` +
        `new Deployments converged in ${convergedIn ?? `more than ${CONVERGE_BOUND_MS}`} ms ` +
        `(bound ${CONVERGE_BOUND_MS} ms); new cluster's resourceVersion now ${newRvAfter}`,
    );
    const report = await spineReport(p, w, { boundMs: 30_000 });
    console.log(`recreated: logs kept in ${join(CHAOS_LOG_DIR, p.queue)} when the pipeline stops`);
    // Nothing of the new cluster relies on a resumed watch: still far behind the kept checkpoints.
    for (const [, rv] of keptRvs) expect(rv).toBeGreaterThan(newRvAfter);
    expect(convergedIn).toBeDefined();
    expect(discarded).toMatchObject({ storedIdentity: oldUid, identity: newUid, cluster: CLUSTER });
    expect(resumed).toEqual({});
    expect(report.overlaps).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.invariants).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
    // The forwarder and both workers are still alive (the workers kept running through the recreation).
    const dead = [...p.procs].filter(([n, q]) => n !== fwdName && (q.child.exitCode !== null || q.child.signalCode));
    expect(dead.map(([n]) => n)).toEqual([]);
    expect(readState().clusters.some((s) => s.name === CLUSTER)).toBe(true);
  });
});
