// npm run e2e:jobset [-- --focus REGEX ...] [--side both|fleetq|upstream] [--upstream rerun|all]
//                    [--lanes N] [--timeout MIN] [--reports DIR] [--nodes N] [--down] [--owns KIND,...]
//   --focus    instead of the whole suite: these Ginkgo expressions, dealt to the lanes
//   --lanes    jobset-e2e.test processes at once per side (default 3)
//   --timeout  minutes a lane may take (Ginkgo's --timeout; a spec's own waits are 10 minutes)
//   --owns     what fleetq owns in jobset-e2e-fleetq (default JobSet,Job; owning less is how to see it fail)
//   --upstream rerun (default): fleetq's side first, then upstream reruns only the specs that did not pass on
//              fleetq; all: both sides run every spec at once (ginkgo-suite.ts)
//
// JobSet's own e2e specs (test/e2e of sigs.k8s.io/jobset at the pinned version, built by
// infra/sandbox/build-jobset-e2e.sh), run against two dedicated sandbox clusters:
// jobset-e2e-upstream (upstream mode: kube-controller-manager and upstream's JobSet manager with its webhooks)
// and jobset-e2e-fleetq (fleetq mode: `fleetq run` owns JobSet and Job, and fleetq's JobSet admission
// (shared/admission/) serves the JobSet webhooks from this process). Prints one row per spec, one column per
// side, with the upstream gate's rule (verdict.ts): a spec that passes on upstream and not on fleetq fails the
// run (exit 1).
//
// What the suite needs and the sandbox gives it, the same on both sides:
//   - BeforeSuite waits for a Deployment jobset-system/jobset-controller-manager to be Available (upstream's
//     manager runs as a host process here): a stand-in with 0 replicas. kube-controller-manager reports it
//     Available on upstream; on fleetq, where no Deployment controller runs, this runner writes that status.
//   - the specs' pods have no kwok toleration: the kwok taint is removed from the nodes (as run.ts does).
//   - their containers must run to an exit: jobset-pods.ts ends each pod as its fixture's program would.
// Specs in UNRUNNABLE are skipped on both sides, each with its reason. The run itself (options, lanes, sides,
// report) is ginkgo-suite.ts's, shared with lws.ts.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, sandboxRoot } from '../../infra/sandbox/sandbox.js';
import { startJobSetAdmission } from '../helpers/sandbox/jobset-admission.js';
import type { TimedSpec } from './ginkgo-options.js';
import { main, sandboxScript, type SideContext, type Stoppable } from './ginkgo-suite.js';
import { runJobSetPods } from './jobset-pods.js';
import { Side } from './verdict.js';

/**
 * fleetq's API budget on its side: what the upstream side's two controllers have between them, each with a client
 * of its own: JobSet's manager 500 qps / 500 burst (its configuration's defaults) and kube-controller-manager's Job
 * controller 20 / 30. fleetq's JobSet and Job controllers share one budget per cluster, so a smaller one would hold
 * JobSet's Job creates behind the Job controller's pod creates, which upstream's separate clients do not.
 */
const FLEETQ_BUDGET = { qps: 520, burst: 530 } as const;

/**
 * The suite's specs, one focus expression each, with about how long each takes here (mostly its containers'
 * sleeps): the lanes get them longest first, each to the lane with the least so far.
 */
const SPECS: readonly TimedSpec[] = [
  { focus: 'dns hostnames is enabled should enable', seconds: 37 }, // 30 s of sleep after the names resolve
  { focus: 'with custom subdomain', seconds: 35 },
  { focus: 'ttl seconds after finished', seconds: 24 },
  { focus: 'dataset initializer and model initializer', seconds: 15 },
  { focus: 'JobSet is suspended and resumed', seconds: 14 },
  { focus: 'depends on coordinator Job ready', seconds: 12 },
  { focus: 'depends on launcher Job ready', seconds: 12 },
  { focus: 'Server-Side Apply', seconds: 10 }, // a 10 s Consistently
  { focus: 'propagates scheduling gates', seconds: 9 },
  { focus: 'RestartJobSet failure policy', seconds: 7 },
  { focus: 'foreground propagation policy', seconds: 3 },
];

/** Specs that cannot pass in this sandbox on either side, and why. */
const UNRUNNABLE: Readonly<Record<string, string>> = {
  'should create PVCs with multiple retention policies':
    'its pods mount PersistentVolumeClaims that nothing provisions (no StorageClass, no volume plugin on kwok), so the scheduler never places them',
};

/** fleetq's JobSet admission in this process, registered with the fleetq cluster's apiserver by URL. */
async function startAdmission({ cluster, kc, reports, log }: SideContext): Promise<Stoppable> {
  const answers = createWriteStream(join(reports, 'fleetq-admission.log'));
  const admission = await startJobSetAdmission({
    root: sandboxRoot(),
    kc,
    // Every answer, one JSON line each: a refused or failed create of a spec is read here.
    log: (message, fields) =>
      answers.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n'),
    probeNamespace: 'default',
  });
  log(`fleetq JobSet admission on 127.0.0.1:${admission.port} for ${cluster.name}`);
  return {
    stop: async () => {
      await admission.stop();
      answers.end();
    },
  };
}

/** The stand-in for the containers' programs (jobset-pods.ts), on each side. */
async function startPods({ side, kc, reports }: SideContext): Promise<Stoppable> {
  const out = createWriteStream(join(reports, `${side}-pods.log`));
  const pods = runJobSetPods(kc, (m) => out.write(`${new Date().toISOString()} ${m}\n`));
  return {
    stop: async () => {
      await pods.stop();
      out.end();
    },
    summary: () => `${side} pods ended: ${pods.ended()}`,
  };
}

main({
  name: 'jobset-e2e',
  buildScript: sandboxScript('build-jobset-e2e.sh'),
  clusters: { [Side.Upstream]: 'jobset-e2e-upstream', [Side.Fleetq]: 'jobset-e2e-fleetq' },
  specs: SPECS,
  unrunnable: UNRUNNABLE,
  reports: join(REPO_ROOT, 'test', 'upstream-e2e', '.reports-jobset'),
  owns: ['JobSet', 'Job'],
  fleetqBudget: FLEETQ_BUDGET,
  managerStandIn: { namespace: 'jobset-system', name: 'jobset-controller-manager' },
  sideSetup: startPods,
  fleetqAdmission: startAdmission,
});
