// What the upstream e2e gate runs: for each kind fleetq owns, the Kubernetes e2e specs (Ginkgo focus
// regular expressions over the full spec text) that exercise its controller. A kind joins this table
// the day its controller lands; fleetq then owns it in the e2e-fleetq cluster and its specs must pass
// there wherever they pass on e2e-upstream.
import type { Kind } from '../../shared/kube/kinds.js';
import { dealLanes, exactFocus } from './ginkgo-options.js';

export type GateEntry = {
  readonly kind: Kind;
  /** Ginkgo focus expressions; a spec runs when any expression of any entry matches. */
  readonly focus: readonly string[];
  /**
   * Focus expressions for [Serial] specs: they run after every other spec has finished, in one e2e.test of their
   * own per side, one at a time, with [Serial] not skipped (SERIAL_SKIP). Each side's cluster is the gate's
   * alone, so such a spec has the cluster to itself, as [Serial] asks.
   */
  readonly serialFocus?: readonly string[];
};

export const GATE: readonly GateEntry[] = [
  // The table's order is the lanes' order: planPasses deals the focus expressions round-robin over the lanes, so
  // the long ones come first and apart. Longest first, by spec time per expression on upstream: StatefulSet, the
  // two CronJob halves (their specs wait on minute schedules), Job, Deployment, ReplicaSet; DaemonSet's serial
  // pass is short.
  // The specs that need a default StorageClass (basic identity, orphans, predecessor fails, PVC retention…) skip
  // themselves on both sides (e2epv.SkipIfNoDefaultStorageClass): the sandbox has no provisioner.
  { kind: 'StatefulSet', focus: [String.raw`\[sig-apps\] StatefulSet `] },
  {
    kind: 'CronJob',
    // Two halves, so two lanes share its 12 minutes of waiting; together they are every CronJob spec of 1.37.2
    // (e2e.test --ginkgo.dry-run): a spec of a later version that neither names is not run.
    focus: [
      String.raw`\[sig-apps\] CronJob should (schedule|not|remove|be|set|support)`,
      String.raw`\[sig-apps\] CronJob should (delete|replace)`,
    ],
  },
  { kind: 'Job', focus: [String.raw`\[sig-apps\] Job `] },
  {
    kind: 'Deployment',
    focus: [
      String.raw`\[sig-apps\] Deployment `,
      String.raw`\[sig-cli\] Kubectl rollout `,
      String.raw`\[sig-api-machinery\] Garbage collector should (delete|orphan) RS created by deployment`,
    ],
  },
  { kind: 'ReplicaSet', focus: [String.raw`\[sig-apps\] ReplicaSet `] },
  // Every DaemonSet spec is [Serial] (the tag ends the name: "[sig-apps] Daemon set should … [Serial]"; 10 of
  // them): they run in the serial pass, after the others, alone on each side's cluster. DaemonRestart's specs are
  // [Disruptive] and stay skipped.
  { kind: 'DaemonSet', focus: [], serialFocus: [String.raw`\[sig-apps\] Daemon set should `] },
];

/**
 * Specs of a focused kind that cannot pass on either side of the sandbox, left out by name to save CI's time
 * (each was seen failing on both sides, or its fixture needs what kwok does not do; read from
 * test/e2e/apps/{job,statefulset}.go at 1.37.2).
 */
export const UNRUNNABLE = [
  // Job fixtures whose outcome depends on state kwok does not have, so kwok leaves their pods Running and the
  // spec fails on both sides after its timeout (15 min for a Job):
  //   - failOnce, failOncePerIndex: fail on the first run and succeed on the next by a marker file left in a
  //     volume (an emptyDir surviving a container restart, or a hostPath on one node surviving the pod);
  //   - notTerminateOncePerIndex: the same marker, then sleeps until evicted, and its readiness probe reads it.
  // failOnce
  String.raw`\[sig-apps\] Job should allow to use the pod failure policy on exit code to fail the job early`,
  String.raw`\[sig-apps\] Job should run a job to completion when tasks sometimes fail and are locally restarted`,
  String.raw`\[sig-apps\] Job should run a job to completion when tasks sometimes fail and are not locally restarted`,
  // failOncePerIndex
  String.raw`\[sig-apps\] Job should allow to use a pod failure policy to ignore failure matching on exit code`,
  // notTerminateOncePerIndex
  String.raw`\[sig-apps\] Job should allow to use a pod failure policy to ignore failure matching on DisruptionTarget condition`,
  // Fails on both sides, after 900 s: the kubelet restarts the container in place by the pod's container
  // restart rules (beta ContainerRestartRules); kwok has no such rules, so the Job never gets its success.
  String.raw`\[sig-apps\] Job containers restarted by container restart policy should not trigger PodFailurePolicy`,
  // Fails on both sides, after 304 s (job.go:552): the deleted pod's container traps SIGTERM and exits 143 five seconds
  // later; kwok runs no container, so the pod never ends Failed with that exit and is never counted as such.
  String.raw`\[sig-apps\] Job should recreate pods only after they have failed if pod replacement policy is set to Failed`,
  // rollbackTest breaks and restores a pod's readiness probe with `kubectl exec`: kwok runs no container.
  String.raw`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] should perform rolling updates and roll backs of template modifications \[Conformance\]`,
  // A pod whose hostPort conflicts on its node must be rejected by the kubelet (phase Failed); kwok admits it.
  String.raw`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] Should recreate evicted statefulset`,
  // Failed on both sides, 632 s each: pod-0 is deleted while a finalizer holds it, and the spec waits for the
  // kubelet to stop its container (readyReplicas one lower); kwok leaves a terminating pod Ready.
  String.raw`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0`,
];

/**
 * Specs never run, whatever the focus: Serial and Disruptive ones (they assume a cluster of their own and
 * may disturb others), Slow and Flaky ones (CI time, noise), and those behind a feature the sandbox does
 * not enable ([Feature:…], alpha feature gates).
 */
const SKIP_BUT_SERIAL = [
  String.raw`\[Disruptive\]`,
  String.raw`\[Slow\]`,
  String.raw`\[Flaky\]`,
  String.raw`\[Feature:[^\]]+\]`,
  String.raw`\[Alpha\]`,
];
export const SKIP = [String.raw`\[Serial\]`, ...SKIP_BUT_SERIAL, ...UNRUNNABLE].join('|');
/** The skip expression of the serial pass (GateEntry.serialFocus): SKIP without [Serial]. */
export const SERIAL_SKIP = [...SKIP_BUT_SERIAL, ...UNRUNNABLE].join('|');

/** One e2e.test process per side: what it focuses on and skips. */
export type Pass = { readonly name: string; readonly focus: readonly string[]; readonly skip: string };

/**
 * How a side runs the gate: `lanes` e2e.test processes at once against the same cluster (non-[Serial] specs are
 * written to share a cluster; each makes its own namespace), the table's focus expressions dealt to them
 * round-robin in table order, then the serial pass alone. Each lane is one Ginkgo process running its specs one
 * after another.
 */
export function planPasses(
  lanes: number,
  entries: readonly GateEntry[] = GATE,
  skip = SKIP,
  serialSkip = SERIAL_SKIP,
): { parallel: Pass[]; serial: Pass | undefined } {
  const expressions = entries.flatMap((e) => e.focus);
  const n = Math.max(1, Math.min(lanes, expressions.length));
  const focus: string[][] = Array.from({ length: n }, () => []);
  expressions.forEach((f, i) => focus[i % n]?.push(f));
  const parallel = focus.filter((f) => f.length > 0).map((f, i) => ({ name: `lane${i + 1}`, focus: f, skip }));
  const serialFocus = entries.flatMap((e) => e.serialFocus ?? []);
  return {
    parallel,
    serial: serialFocus.length > 0 ? { name: 'serial', focus: serialFocus, skip: serialSkip } : undefined,
  };
}

/** A spec upstream reruns (it did not pass on fleetq), with how long it took there. */
export type RerunSpec = { readonly name: string; readonly seconds: number };

/**
 * Upstream's passes when it reruns only what did not pass on fleetq: each spec focused by its exact name, the lanes'
 * specs dealt longest first to at most `lanes` lanes, then the serial pass's specs in a serial pass of their own.
 */
export function planRerun(
  fromLanes: readonly RerunSpec[],
  fromSerial: readonly RerunSpec[],
  lanes: number,
  skip = SKIP,
  serialSkip = SERIAL_SKIP,
): { parallel: Pass[]; serial: Pass | undefined } {
  const timed = (specs: readonly RerunSpec[]) => specs.map((s) => ({ focus: exactFocus(s.name), seconds: s.seconds }));
  return {
    parallel: dealLanes(timed(fromLanes), lanes).map((focus, i) => ({ name: `rerun${i + 1}`, focus, skip })),
    serial:
      fromSerial.length > 0
        ? { name: 'serial', focus: timed(fromSerial).map((s) => s.focus), skip: serialSkip }
        : undefined,
  };
}

export function ownedKinds(entries: readonly GateEntry[] = GATE): Kind[] {
  return entries.map((e) => e.kind);
}
