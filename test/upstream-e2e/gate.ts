// What the upstream e2e gate runs: for each kind fleetq owns, the Kubernetes e2e specs (Ginkgo focus
// regular expressions over the full spec text) that exercise its controller. A kind joins this table
// the day its controller lands; fleetq then owns it in the e2e-fleetq cluster and its specs must pass
// there wherever they pass on e2e-upstream.
import type { Kind } from '../../shared/kube/kinds.js';

export type GateEntry = {
  readonly kind: Kind;
  /** Ginkgo focus expressions; a spec runs when any expression of any entry matches. */
  readonly focus: readonly string[];
};

export const GATE: readonly GateEntry[] = [
  {
    kind: 'Deployment',
    focus: [
      String.raw`\[sig-apps\] Deployment `,
      String.raw`\[sig-cli\] Kubectl rollout `,
      String.raw`\[sig-api-machinery\] Garbage collector should (delete|orphan) RS created by deployment`,
    ],
  },
  { kind: 'ReplicaSet', focus: [String.raw`\[sig-apps\] ReplicaSet `] },
  // When they land (their issues depend on this gate):
  //   StatefulSet  \[sig-apps\] StatefulSet
  //   DaemonSet    \[sig-apps\] Daemon set
  //   Job          \[sig-apps\] Job   and the GC spec "should delete jobs and pods created by cronjob"
  //   CronJob      \[sig-apps\] CronJob
];

/**
 * Specs never run, whatever the focus: Serial and Disruptive ones (they assume a cluster of their own and
 * may disturb others), Slow and Flaky ones (CI time, noise), and those behind a feature the sandbox does
 * not enable ([Feature:…], alpha feature gates).
 */
export const SKIP = [
  String.raw`\[Serial\]`,
  String.raw`\[Disruptive\]`,
  String.raw`\[Slow\]`,
  String.raw`\[Flaky\]`,
  String.raw`\[Feature:[^\]]+\]`,
  String.raw`\[Alpha\]`,
].join('|');

export function ownedKinds(entries: readonly GateEntry[] = GATE): Kind[] {
  return entries.map((e) => e.kind);
}

export function focusOf(entries: readonly GateEntry[] = GATE): string[] {
  return entries.flatMap((e) => e.focus);
}
