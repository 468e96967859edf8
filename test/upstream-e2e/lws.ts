// npm run e2e:lws [-- --focus REGEX ...] [--side both|fleetq|upstream] [--upstream rerun|all]
//                 [--lanes N] [--timeout MIN] [--reports DIR] [--nodes N] [--down] [--owns KIND,...]
//   --focus    instead of the whole suite: these Ginkgo expressions, dealt to the lanes
//   --lanes    lws-e2e.test processes at once per side (default 3)
//   --timeout  minutes a lane may take (Ginkgo's --timeout; a spec's own waits are 2 minutes each)
//   --owns     what fleetq owns in lws-e2e-fleetq (default LeaderWorkerSet,LeaderWorkerSetPod,StatefulSet)
//   --upstream rerun (default): fleetq's side first, then upstream reruns only the specs that did not pass on
//              fleetq; all: both sides run every spec at once (ginkgo-suite.ts)
//
// LeaderWorkerSet's own e2e specs (the test/e2e package of sigs.k8s.io/lws at the pinned version, built by
// infra/sandbox/build-lws-e2e.sh), run against two dedicated sandbox clusters: lws-e2e-upstream
// (upstream mode with the lws-controller add-on: upstream's LWS manager with its webhooks, and
// kube-controller-manager's StatefulSet controller making the pods) and lws-e2e-fleetq (fleetq mode: `fleetq run`
// owns LeaderWorkerSet, LeaderWorkerSetPod and StatefulSet, and fleetq's LWS admission (shared/admission/lws-*.ts)
// serves the LWS and pod webhooks from this process, registered as fleetq ships them:
// test/helpers/sandbox/lws-admission.ts). The run (options, lanes, report, the gate's rule) is ginkgo-suite.ts's,
// shared with jobset.ts.
//
// What the suite needs and the sandbox gives it, the same on both sides:
//   - BeforeSuite creates default/test-sample until the webhooks admit it, then deletes it: the lanes of a side
//     pass it one at a time (two at once would race on the name).
//   - the LeaderWorkerSets must become Available (every group's leader and workers Ready): kwok's stock stages
//     make a scheduled pod Running and Ready, and the kwok taint is removed from the nodes (the specs' pods have
//     no kwok toleration). The pods that ask for google.com/tpu are never scheduled (no node has it), as on
//     upstream's own kind cluster: those specs check only the pods' labels, annotations and env.
//   - nothing waits on a manager Deployment (only the metrics spec reads one, and it cannot run here).
// Not built: test/e2e/disaggregatedset, a suite of its own for DisaggregatedSet, a kind fleetq does not own.
// Specs in UNRUNNABLE are skipped on both sides, each with its reason.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { LWS_CONTROLLER, LWS_CRD } from '../../infra/sandbox/lws-controller.js';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { REPO_ROOT, sandboxRoot } from '../../infra/sandbox/sandbox.js';
import type { TimedSpec } from './ginkgo-options.js';
import { main, sandboxScript, type SideContext, type Stoppable } from './ginkgo-suite.js';
import { startLwsAdmission } from '../helpers/sandbox/lws-admission.js';
import { Side } from './verdict.js';

/**
 * fleetq's API budget on its side: what the upstream side's two controllers have between them, each with a client
 * of its own: LWS's manager 500 qps / 500 burst (cmd/main.go's and its configuration's defaults) and
 * kube-controller-manager's StatefulSet controller 20 / 30.
 */
const FLEETQ_BUDGET = { qps: 520, burst: 530 } as const;

/**
 * The sandbox's kinds for both clusters: LeaderWorkerSet's CRD from the module, and its manager as an add-on the
 * upstream cluster asks for. Given here rather than read from the registered descriptors, so the upstream side
 * runs whether or not fleetq registers LeaderWorkerSet, and neither cluster starts JobSet's manager.
 */
const KINDS = sandboxKindOptions({
  crds: [{ kind: 'LeaderWorkerSet', file: LWS_CRD }],
  upstreamControllers: [{ kind: 'LeaderWorkerSet', name: LWS_CONTROLLER, runs: 'add-on' }],
});

/**
 * The suite's runnable specs, one focus expression each (Ginkgo matches it against "leaderWorkerSet e2e tests
 * <It>"; each matches one spec), with about how long each takes here (the slower side's time, measured with three
 * lanes a side): the lanes get them longest first, each to the lane with the least so far.
 */
const SPECS: readonly TimedSpec[] = [
  { focus: "Can deploy lws with 'replicas', 'size', and 'restart policy' set", seconds: 9 },
  { focus: 'Can create/update a lws with size=1', seconds: 16 },
  { focus: 'Can delete a lws with foreground', seconds: 17 },
  { focus: 'Can perform a rolling update$', seconds: 20 },
  { focus: 'Can perform a rolling update with maxSurge set', seconds: 23 },
  { focus: 'Can perform a rolling update with maxUnavailable zero and maxSurge set', seconds: 33 },
  { focus: 'Can perform a rolling update even if old lws not ready', seconds: 11 },
  { focus: 'Can deploy lws with subgroupsize set', seconds: 6 },
  { focus: 'Can perform a rolling update with subgroupsize and MaxSurge set', seconds: 21 },
  { focus: 'Adds env vars to containers when using TPU', seconds: 4 },
  { focus: 'Adds env vars to multiple containers when using TPU', seconds: 5 },
  { focus: 'When changing size, recreates the Pods with correct count and size annotation', seconds: 10 },
  { focus: 'When changing subdomainPolicy, adds correct env vars', seconds: 14 },
  { focus: 'headless services scale up during MaxSurge', seconds: 23 },
  { focus: "Doesn't add env vars to containers when not using TPU", seconds: 3 },
  { focus: 'Pod restart will delete the pod group when restart policy is RecreateGroupOnPodRestart', seconds: 10 },
];

/** Specs that cannot pass in this sandbox on either side, and why. */
const UNRUNNABLE: Readonly<Record<string, string>> = {
  'should ensure the metrics endpoint is serving metrics':
    "it needs the manager as a pod of lws-system (label control-plane=controller-manager) whose log `kubectl logs` reads, its metrics Service's endpoints on 8443, and a Job running curlimages/curl that reaches that Service over the pod network and whose log it reads: kwok runs no container and keeps no log, and the manager here is a host process with metrics off",
  'with volcano gang scheduling enabled':
    'it needs the Volcano scheduler and its PodGroup CRD (SCHEDULER_PROVIDER=volcano); without them its specs skip themselves, and the sandbox has neither',
};

/** fleetq's LWS admission in this process, registered with the fleetq cluster's apiserver by URL. */
async function startAdmission({ cluster, kc, reports, log }: SideContext): Promise<Stoppable> {
  const answers = createWriteStream(join(reports, 'fleetq-admission.log'));
  const admission = await startLwsAdmission({
    root: sandboxRoot(),
    kc,
    // Every answer, one JSON line each: a refused or failed create of a spec's object or pod is read here.
    log: (message, fields) =>
      answers.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n'),
    probeNamespace: 'default',
  });
  log(`fleetq LWS admission on 127.0.0.1:${admission.port} for ${cluster.name}`);
  return {
    stop: async () => {
      await admission.stop();
      answers.end();
    },
  };
}

main({
  name: 'lws-e2e',
  buildScript: sandboxScript('build-lws-e2e.sh'),
  clusters: { [Side.Upstream]: 'lws-e2e-upstream', [Side.Fleetq]: 'lws-e2e-fleetq' },
  specs: SPECS,
  unrunnable: UNRUNNABLE,
  reports: join(REPO_ROOT, 'test', 'upstream-e2e', '.reports-lws'),
  owns: ['LeaderWorkerSet', 'LeaderWorkerSetPod', 'StatefulSet'],
  fleetqBudget: FLEETQ_BUDGET,
  timeoutMinutes: 4,
  kinds: KINDS,
  upstreamAddOns: [LWS_CONTROLLER],
  fleetqAdmission: startAdmission,
  oneBeforeSuiteAtATime: true,
});
