// Which kube-controller-manager controllers run in each sandbox mode.
//   upstream: every on-by-default controller, the workload controllers included.
//   fleetq:   the workload controllers are off, so fleetq is their only reconciler; garbage collector,
//             namespace, node lifecycle, pod GC, service accounts and the rest stay on.
export const SandboxMode = { Fleetq: 'fleetq', Upstream: 'upstream' } as const;
export type SandboxMode = (typeof SandboxMode)[keyof typeof SandboxMode];

/** The workload controllers fleetq replaces (canonical names, KCM 1.36+). */
export const WORKLOAD_CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
] as const;

export function controllersFlag(mode: SandboxMode): string {
  return mode === SandboxMode.Upstream ? '*' : ['*', ...WORKLOAD_CONTROLLERS.map((c) => `-${c}`)].join(',');
}

export function parseMode(value: string): SandboxMode {
  if (value === SandboxMode.Fleetq || value === SandboxMode.Upstream) return value;
  throw new Error(`--mode must be "fleetq" or "upstream", got ${JSON.stringify(value)}`);
}
