// The two sides of the LeaderWorkerSet bench (test/bench/leaderworkerset-rollout.ts), in a sandbox root of the
// bench's own (a temp folder, so it never touches the shared sandbox):
// - upstream: an upstream-mode cluster asking for the add-on lws-controller (upstream's lws manager,
//   infra/sandbox/lws-controller.ts) with its client limited by its --kube-api-qps/--kube-api-burst flags (cmd/main.go:
//   they win over its configuration, whose default is 500/500); kube-controller-manager's StatefulSet controller
//   runs the StatefulSets it makes;
// - fleetq: a fleetq-mode cluster (kube-controller-manager's StatefulSet controller off) with fleetq in this process
//   owning StatefulSet, LeaderWorkerSet and LeaderWorkerSetPod, and fleetq's LWS webhooks as
//   infra/k8s/components/leaderworkerset-admission ships them, served by this process (startLwsAdmission of
//   test/helpers/sandbox/lws-admission.ts, with a certificate of the bench root's CA).
// Both clusters have upstream's LeaderWorkerSet CRD and the apiserver's audit log; everything is stopped at the end,
// on failure or signal, and the root removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startAllInOne, type AllInOne } from '../../../functions/all-in-one.js';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { sandboxKindOptions, type AddOnStart } from '../../../infra/sandbox/kind-options.js';
import { LWS_CONTROLLER, LWS_CRD, lwsController } from '../../../infra/sandbox/lws-controller.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { ensureFleetqRbac } from '../../../infra/sandbox/rbac.js';
import { down, up } from '../../../infra/sandbox/sandbox.js';
import { optInKinds } from '../../../shared/controllers/roles.js';
import type { Kind } from '../../../shared/kube/kinds.js';
import { ClusterRegistry, type ClusterConfig } from '../../../shared/kube/registry.js';
import { loadConfig } from '../../../shared/runtime/config.js';
import { deleteQueueKeys } from '../queue/redis.js';
import { AuditLog } from '../sandbox/audit-log.js';
import { startLwsAdmission, type RunningLwsAdmission } from '../sandbox/lws-admission.js';
import { BenchClient } from './client.js';
import type { Limits } from './jobset-sides.js';
import type { Log } from './sides.js';

/** What fleetq owns on its cluster: its LWS pods are made by its own StatefulSet controller. */
export const LWS_OWNED_KINDS: readonly Kind[] = ['StatefulSet', 'LeaderWorkerSet', 'LeaderWorkerSetPod'] as Kind[];

export type LwsSide = {
  readonly state: ClusterState;
  readonly client: BenchClient;
  readonly audit: AuditLog;
  /** fleetq in this process (the fleetq side only). */
  readonly fleetq?: AllInOne;
};
export type LwsSides = { readonly upstream: LwsSide; readonly fleetq: LwsSide };

function limitedLwsController(limits: Limits): AddOnStart {
  return async (ctx) => {
    const cmd = await lwsController(ctx);
    return { ...cmd, args: [...cmd.args, `--kube-api-qps=${limits.qps}`, `--kube-api-burst=${limits.burst}`] };
  };
}

async function startLwsFleetq(o: {
  readonly cluster: string;
  readonly kubeconfig: string;
  readonly dir: string;
  readonly limits: Limits;
  readonly redisUrl: string;
  readonly queue: string;
}): Promise<AllInOne> {
  const kc = new KubeConfig();
  kc.loadFromFile(o.kubeconfig);
  const optIn = optInKinds().filter((k) => (LWS_OWNED_KINDS as readonly string[]).includes(k));
  const credentials = await ensureFleetqRbac(kc, { dir: join(o.dir, 'rbac'), optIn });
  const registry = (component: 'forwarder' | 'handler'): ClusterRegistry => {
    const entry: ClusterConfig = {
      name: o.cluster,
      owns: LWS_OWNED_KINDS,
      limits: { qps: o.limits.qps, burst: o.limits.burst },
      connection: {
        type: 'token',
        server: credentials.server,
        tokenFile: credentials.tokenFiles[component],
        caFile: credentials.caFile,
        insecureSkipTLSVerify: false,
      },
    };
    return new ClusterRegistry([entry]);
  };
  return startAllInOne({
    config: loadConfig(process.env, {
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: o.queue,
      REDIS_URL: o.redisUrl,
      FLEETQ_CONCURRENCY: '8',
      LOG_LEVEL: 'error',
    }),
    registry: registry('handler'),
    forwarderRegistry: registry('forwarder'),
    dataDir: join(o.dir, 'data'),
  });
}

export async function withLwsBenchSides<T>(
  o: {
    readonly names: { readonly upstream: string; readonly fleetq: string };
    readonly nodes: number;
    /** The lws manager's client budget (kube-controller-manager's StatefulSet controller has its own of the same). */
    readonly lwsManagerLimits: Limits;
    /** fleetq's one budget for its cluster. */
    readonly fleetqLimits: Limits;
    readonly redisUrl: string;
    readonly log: Log;
  },
  run: (sides: LwsSides) => Promise<T>,
): Promise<T> {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-bench-lws-'));
  const kinds = sandboxKindOptions(
    {
      crds: [{ kind: 'LeaderWorkerSet', file: LWS_CRD }],
      upstreamControllers: [{ kind: 'LeaderWorkerSet', name: LWS_CONTROLLER, runs: 'add-on' }],
    },
    { [LWS_CONTROLLER]: limitedLwsController(o.lwsManagerLimits) },
  );
  const queue = `bench-lws-${Date.now().toString(36)}`;
  let fleetq: AllInOne | undefined;
  let admission: RunningLwsAdmission | undefined;
  const cleanup = async (): Promise<void> => {
    await fleetq?.stop().catch((err: unknown) => o.log(`fleetq stop: ${String(err)}`));
    fleetq = undefined;
    await deleteQueueKeys(o.redisUrl, queue).catch((err: unknown) => o.log(`queue keys: ${String(err)}`));
    await admission?.stop().catch((err: unknown) => o.log(`admission server: ${String(err)}`));
    admission = undefined;
    await down(undefined, root).catch((err: unknown) => o.log(`sandbox down: ${String(err)}`));
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    o.log(`${sig}: stopping fleetq and the bench clusters`);
    void cleanup().finally(() => process.exit(130));
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, onSignal);
  try {
    const states = await up({
      clusters: [
        { name: o.names.upstream, mode: SandboxMode.Upstream, audit: true, addOns: [LWS_CONTROLLER] },
        { name: o.names.fleetq, mode: SandboxMode.Fleetq, audit: true },
      ],
      nodes: o.nodes,
      root,
      kinds,
      log: (m) => o.log(`sandbox: ${m}`),
    });
    const state = (name: string): ClusterState => {
      const s = states.find((c) => c.name === name);
      if (!s?.auditLog) throw new Error(`cluster ${name} has no audit log`);
      return s;
    };
    const fq = state(o.names.fleetq);
    const kc = new KubeConfig();
    kc.loadFromFile(fq.kubeconfig);
    admission = await startLwsAdmission({ root, kc, probeNamespace: 'default' });
    fleetq = await startLwsFleetq({
      cluster: fq.name,
      kubeconfig: fq.kubeconfig,
      dir: join(root, 'fleetq'),
      limits: o.fleetqLimits,
      redisUrl: o.redisUrl,
      queue,
    });
    const sideOf = (s: ClusterState, f?: AllInOne): LwsSide => ({
      state: s,
      client: BenchClient.fromKubeconfig(s.kubeconfig),
      // fleetq authenticates as its ServiceAccounts: the admin token's other clients are the components.
      audit: new AuditLog(s.auditLog ?? '', false),
      ...(f && { fleetq: f }),
    });
    return await run({ upstream: sideOf(state(o.names.upstream)), fleetq: sideOf(fq, fleetq) });
  } finally {
    await cleanup();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
  }
}
