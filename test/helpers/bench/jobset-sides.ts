// The two sides of the JobSet bench (test/bench/jobset-restart.ts), in a sandbox root of the bench's own (a temp
// folder, so it never touches the shared sandbox): an upstream-mode cluster with kube-controller-manager's Job
// controller and upstream's JobSet manager as an add-on (infra/sandbox/jobset-controller.ts), given the same
// client budget as each of kube-controller-manager's controllers, and a fleetq-mode cluster with fleetq in this
// process owning JobSet and Job. Both have JobSet's CRD and the apiserver's audit log; everything is stopped at
// the end, on failure or signal, and the root removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { JOBSET_CONTROLLER, JOBSET_CRD, jobsetController } from '../../../infra/sandbox/jobset-controller.js';
import { sandboxKindOptions, type AddOnStart } from '../../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { down, up } from '../../../infra/sandbox/sandbox.js';
import { AuditLog } from '../sandbox/audit-log.js';
import { BenchClient } from './client.js';
import { startJobSetFleetq, type JobSetFleetq } from './jobset.js';
import type { AllInOne } from '../../../functions/all-in-one.js';
import type { Log } from './sides.js';

export type Limits = { readonly qps: number; readonly burst: number };

export type JobSetSide = {
  readonly state: ClusterState;
  readonly client: BenchClient;
  readonly audit: AuditLog;
  /** fleetq in this process (the fleetq side only). */
  readonly fleetq?: AllInOne;
};
export type JobSetSides = { readonly upstream: JobSetSide; readonly fleetq: JobSetSide };

/** Upstream's JobSet manager with its client limited by its own flags (main.go: they win over its configuration). */
function limitedJobSetController(limits: Limits): AddOnStart {
  return async (ctx) => {
    const cmd = await jobsetController(ctx);
    return { ...cmd, args: [...cmd.args, `--kube-api-qps=${limits.qps}`, `--kube-api-burst=${limits.burst}`] };
  };
}

type BenchClusters = {
  readonly nodes: number;
  /** The JobSet manager's client budget (each kube-controller-manager controller has its own of the same). */
  readonly jobSetManagerLimits: Limits;
  /** fleetq's one budget for its cluster. */
  readonly fleetqLimits: Limits;
  readonly redisUrl: string;
  readonly log: Log;
};

export async function withJobSetBenchSides<T>(
  o: BenchClusters & { readonly names: { readonly upstream: string; readonly fleetq: string } },
  run: (sides: JobSetSides) => Promise<T>,
): Promise<T> {
  return withJobSetClusters(o, o.names, ({ upstream, fleetq }) => {
    if (!upstream) throw new Error('the upstream cluster did not start');
    return run({ upstream, fleetq });
  });
}

/** The fleetq side alone: one fleetq-mode cluster of the bench's own, fleetq in this process. */
export async function withJobSetFleetqSide<T>(
  o: Omit<BenchClusters, 'jobSetManagerLimits'> & { readonly name: string },
  run: (side: JobSetSide) => Promise<T>,
): Promise<T> {
  return withJobSetClusters({ ...o, jobSetManagerLimits: o.fleetqLimits }, { fleetq: o.name }, ({ fleetq }) =>
    run(fleetq),
  );
}

async function withJobSetClusters<T>(
  o: BenchClusters,
  names: { readonly upstream?: string; readonly fleetq: string },
  run: (sides: { readonly upstream?: JobSetSide; readonly fleetq: JobSetSide }) => Promise<T>,
): Promise<T> {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-bench-jobset-'));
  const kinds = sandboxKindOptions(
    {
      crds: [{ kind: 'JobSet', file: JOBSET_CRD }],
      upstreamControllers: [{ kind: 'JobSet', name: JOBSET_CONTROLLER, runs: 'add-on' }],
    },
    { [JOBSET_CONTROLLER]: limitedJobSetController(o.jobSetManagerLimits) },
  );
  let fleetq: JobSetFleetq | undefined;
  const cleanup = async (): Promise<void> => {
    await fleetq?.stop().catch((err: unknown) => o.log(`fleetq stop: ${String(err)}`));
    fleetq = undefined;
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
        ...(names.upstream === undefined ? [] : [{ name: names.upstream, mode: SandboxMode.Upstream, audit: true }]),
        { name: names.fleetq, mode: SandboxMode.Fleetq, audit: true },
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
    const fq = state(names.fleetq);
    fleetq = await startJobSetFleetq({
      cluster: fq.name,
      kubeconfig: fq.kubeconfig,
      limits: o.fleetqLimits,
      redisUrl: o.redisUrl,
      queue: `bench-jobset-${Date.now().toString(36)}`,
    });
    const sideOf = (s: ClusterState, f?: JobSetFleetq): JobSetSide => ({
      state: s,
      client: BenchClient.fromKubeconfig(s.kubeconfig),
      // fleetq authenticates as its ServiceAccounts: the admin token's other clients are the components.
      audit: new AuditLog(s.auditLog ?? '', false),
      ...(f && { fleetq: f.app }),
    });
    return await run({
      ...(names.upstream !== undefined && { upstream: sideOf(state(names.upstream)) }),
      fleetq: sideOf(fq, fleetq),
    });
  } finally {
    await cleanup();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
  }
}
