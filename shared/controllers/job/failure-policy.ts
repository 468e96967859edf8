// podFailurePolicy (pod_failure_policy.go, kube-controller-manager 1.37): a failed pod is matched against the
// rules in order and the first rule that matches decides:
//   FailJob    the Job fails (FailureTarget, reason PodFailurePolicy) with upstream's message naming the container
//              and exit code, or the pod condition, and the rule's index;
//   FailIndex  the pod's index fails at once (backoffLimitPerIndex, per-index.ts);
//   Ignore     the failure is not counted toward backoffLimit (nor backoffLimitPerIndex); a replacement is made;
//   Count      the default handling: counted.
// A rule matches onExitCodes when a terminated container (app containers first, then init containers; the one
// named by containerName, if set) exited non-zero with a code In / NotIn the values; onPodConditions when the pod
// has a condition of a listed type and status (status defaults to True). A rule with an action this version
// does not know is skipped. No rule matching: counted. Which pods count as failed at all is isPodFailed's
// business: with a podFailurePolicy the apiserver defaults podReplacementPolicy to Failed, so only pods in phase
// Failed are matched (a terminating pod is not failed until its phase says so).
import type { ContainerStatus, Pod } from '../../kube/api/objects.js';
import { isPodFailed } from './job-pods.js';
import { PodFailurePolicyAction, type Job, type PodFailurePolicy, type PodFailurePolicyRule } from './types.js';

export type PolicyMatch = {
  /** Whether the failure counts toward backoffLimit / backoffLimitPerIndex (false only for Ignore). */
  readonly countFailed: boolean;
  /** The matched rule's action, when a rule matched. */
  readonly action?: PodFailurePolicyAction;
  /** The matched rule's index, when a rule matched. */
  readonly ruleIndex?: number;
  /** FailJob only: the Job failure message, as upstream words it. */
  readonly failJobMessage?: string;
};

const NO_MATCH: PolicyMatch = { countFailed: true };
const KNOWN_ACTIONS: ReadonlySet<string> = new Set(Object.values(PodFailurePolicyAction));

/** matchPodFailurePolicy for one failed pod. */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PolicyMatch {
  if (policy === undefined || policy === null) return NO_MATCH;
  const rules = policy.rules ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    const what = describeMatch(rule, pod);
    if (what === undefined || !KNOWN_ACTIONS.has(rule.action)) continue;
    const action = rule.action as PodFailurePolicyAction;
    const base = { countFailed: action !== PodFailurePolicyAction.Ignore, action, ruleIndex: index };
    if (action !== PodFailurePolicyAction.FailJob) return base;
    return { ...base, failJobMessage: `${what} matching ${action} rule at index ${index}` };
  }
  return NO_MATCH;
}

/** What made the rule match, in the words of upstream's FailJob message; undefined if it does not match. */
function describeMatch(rule: PodFailurePolicyRule, pod: Pod): string | undefined {
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  if (rule.onExitCodes !== undefined && rule.onExitCodes !== null) {
    const c = matchOnExitCodes(pod, rule.onExitCodes);
    if (c === undefined) return undefined;
    const code = c.state?.terminated?.exitCode ?? 0;
    return `Container ${c.name} for pod ${ns}/${name} failed with exit code ${code}`;
  }
  if (rule.onPodConditions !== undefined && rule.onPodConditions !== null) {
    const type = matchOnPodConditions(pod, rule.onPodConditions);
    return type === undefined ? undefined : `Pod ${ns}/${name} has condition ${type}`;
  }
  return undefined;
}

/** matchOnExitCodes: the first matching terminated container, app containers before init containers. */
export function matchOnExitCodes(
  pod: Pod,
  requirement: NonNullable<PodFailurePolicyRule['onExitCodes']>,
): ContainerStatus | undefined {
  return (
    firstMatchingContainer(pod.status?.containerStatuses ?? [], requirement) ??
    firstMatchingContainer(pod.status?.initContainerStatuses ?? [], requirement)
  );
}

function firstMatchingContainer(
  statuses: readonly ContainerStatus[],
  requirement: NonNullable<PodFailurePolicyRule['onExitCodes']>,
): ContainerStatus | undefined {
  for (const s of statuses) {
    const terminated = s.state?.terminated;
    if (terminated === undefined || terminated === null) continue; // still terminating: no exit code yet
    if (requirement.containerName !== undefined && requirement.containerName !== s.name) continue;
    const code = terminated.exitCode ?? 0;
    if (code !== 0 && isExitCodeMatching(code, requirement.operator, requirement.values ?? [])) return s;
  }
  return undefined;
}

function isExitCodeMatching(code: number, operator: string, values: readonly number[]): boolean {
  if (operator === 'In') return values.includes(code);
  if (operator === 'NotIn') return !values.includes(code);
  return false;
}

/** matchOnPodConditions: the type of the first pod condition (in the pod's order) that a pattern matches. */
function matchOnPodConditions(
  pod: Pod,
  patterns: NonNullable<PodFailurePolicyRule['onPodConditions']>,
): string | undefined {
  for (const c of pod.status?.conditions ?? []) {
    if (patterns.some((p) => p.type === c.type && (p.status ?? 'True') === c.status)) return c.type;
  }
  return undefined;
}

/** getFailJobMessage: the first failed pod (in the order observed) that matches a FailJob rule. */
export function failJobMatch(job: Job, pods: readonly Pod[]): PolicyMatch | undefined {
  if (!job.spec.podFailurePolicy) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const m = matchPodFailurePolicy(job.spec.podFailurePolicy, p);
    if (m.failJobMessage !== undefined) return m;
  }
  return undefined;
}

/** Whether a failed pod's failure counts (not matched by an Ignore rule). */
export function isFailureCounted(job: Job, pod: Pod): boolean {
  return !job.spec.podFailurePolicy || matchPodFailurePolicy(job.spec.podFailurePolicy, pod).countFailed;
}
