// The kinds fleetq can own in a cluster, and which API resource each is.
export const Kind = {
  Deployment: 'Deployment',
  ReplicaSet: 'ReplicaSet',
  StatefulSet: 'StatefulSet',
  DaemonSet: 'DaemonSet',
  Job: 'Job',
  CronJob: 'CronJob',
  /**
   * Not a resource: the TTL-after-finished controller, which reconciles Jobs under keys of its own kind
   * (controllers/ttl-after-finished/descriptor.ts says why). Opt-in, like Job.
   */
  TTLAfterFinished: 'TTLAfterFinished',
  /** The example controller: ConfigMaps annotated fleetq.dev/mirror-to. */
  ConfigMap: 'ConfigMap',
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export const ALL_KINDS: readonly Kind[] = Object.values(Kind);
/** The workload kinds kube-controller-manager also runs; owning them needs its controller turned off. */
export const WORKLOAD_KINDS: readonly Kind[] = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
];

/**
 * What a cluster owns when its registry entry does not say: the workload kinds fleetq has controllers for today.
 * The ConfigMap mirror is opt-in (owns: [ConfigMap] plus mirror.allowedNamespaces): it writes into namespaces
 * that the ConfigMap's author names, with fleetq's rights.
 */
export const DEFAULT_OWNED_KINDS: readonly Kind[] = ['Deployment', 'ReplicaSet'];

export function isKind(value: string): value is Kind {
  return (ALL_KINDS as readonly string[]).includes(value);
}
