// Differential conformance of the LeaderWorkerSet controller: every scenario runs on lws-upstream-1 (the LWS manager
// of sigs.k8s.io/lws v0.9.0 with its webhooks, and kube-controller-manager's StatefulSet controller for the leader and
// worker StatefulSets) and on fleetq-1 (fleetq in this process, owning LeaderWorkerSet, LeaderWorkerSetPod and
// StatefulSet, with fleetq's LWS admission registered), and the normalized states (LeaderWorkerSets, their
// StatefulSets, revisions, Services and pods) and events must agree.
// The LWS manager runs only where a cluster asks for it (infra/sandbox/kind-options.ts ADD_ONS_ON_REQUEST), so the
// shared upstream-1 has none: this file starts lws-upstream-1 (upstream mode, add-on lws-controller, the standard
// clusters' node count) in the shared sandbox root before its suites and stops exactly that cluster after them
// (CONFORMANCE_LWS_KEEP_CLUSTER=1 leaves it running for the next run, which reuses it). Several scenarios run at once
// (CONFORMANCE_PARALLEL overrides); the scale scenario (more pods than a list page) runs after them, alone.
// Options (CONFORMANCE_B=lws-upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { afterAll, beforeAll } from '@jest/globals';
import { addOnsFor, sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { LWS_CONTROLLER, LWS_CRD } from '../../infra/sandbox/lws-controller.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { down, up } from '../../infra/sandbox/sandbox.js';
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { STANDARD_NODES } from '../helpers/sandbox/clusters.js';
import { LWS_SCALE_SCENARIOS, LWS_SCENARIOS } from './scenarios/leaderworkerset.js';

const LWS_UPSTREAM = 'lws-upstream-1';
const START_MS = 15 * 60_000;

// Side A is this file's own upstream cluster unless the environment names another.
process.env.CONFORMANCE_A ??= LWS_UPSTREAM;
const sides = [process.env.CONFORMANCE_A, process.env.CONFORMANCE_B];
const only = process.env.CONFORMANCE_ONLY ? new RegExp(process.env.CONFORMANCE_ONLY) : undefined;
const needed =
  sides.includes(LWS_UPSTREAM) && [...LWS_SCENARIOS, ...LWS_SCALE_SCENARIOS].some((s) => !only || only.test(s.name));

/** LeaderWorkerSet's kind option alone: its CRD and its add-on (no other kind's add-on on this cluster). */
const KINDS = sandboxKindOptions({
  crds: [{ kind: 'LeaderWorkerSet', file: LWS_CRD }],
  upstreamControllers: [{ kind: 'LeaderWorkerSet', name: LWS_CONTROLLER, runs: 'add-on' }],
});
const SPEC = { name: LWS_UPSTREAM, mode: SandboxMode.Upstream, addOns: [LWS_CONTROLLER] } as const;
// Refused here, at collection, if the sandbox could not run the add-on on it.
addOnsFor(KINDS, SPEC);

beforeAll(async () => {
  if (!needed) return;
  const started = Date.now();
  await up({
    clusters: [SPEC],
    nodes: STANDARD_NODES,
    kinds: KINDS,
    log: (m) => process.stderr.write(`sandbox: ${m}\n`),
  });
  console.log(`${LWS_UPSTREAM} up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, START_MS);

afterAll(async () => {
  if (needed && process.env.CONFORMANCE_LWS_KEEP_CLUSTER !== '1') await down([LWS_UPSTREAM]);
}, START_MS);

conformanceSuite('leaderworkerset', 'LeaderWorkerSet conformance', LWS_SCENARIOS, { parallel: 8 });
conformanceSuite('leaderworkerset-scale', 'LeaderWorkerSet conformance at scale', LWS_SCALE_SCENARIOS, {
  parallel: 1,
});
