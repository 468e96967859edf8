// Which kube-controller-manager controllers run in each sandbox mode.
//   upstream: every on-by-default controller, the workload controllers included.
//   fleetq:   the controllers fleetq replaces are off, so fleetq is their only reconciler; garbage collector,
//             namespace, node lifecycle, pod GC, service accounts and the rest stay on.
// The controllers fleetq replaces are those its registered watch descriptors name as built into
// kube-controller-manager (`upstream: { runs: 'kube-controller-manager' }`, shared/controllers/index.ts).
import { DESCRIPTORS } from '../../shared/controllers/index.js';

export const SandboxMode = { Fleetq: 'fleetq', Upstream: 'upstream' } as const;
export type SandboxMode = (typeof SandboxMode)[keyof typeof SandboxMode];

/** kube-controller-manager's controllers fleetq replaces (canonical names, KCM 1.36+), with the kind of each. */
export const REPLACED_CONTROLLERS: readonly { readonly name: string; readonly kind: string }[] =
  DESCRIPTORS.upstreamControllers
    .filter((c) => c.runs === 'kube-controller-manager')
    .map(({ name, kind }) => ({ name, kind }));

/** The workload controllers fleetq replaces (canonical names, KCM 1.36+), in registration order. */
export const WORKLOAD_CONTROLLERS: readonly string[] = REPLACED_CONTROLLERS.map((c) => c.name);

export function controllersFlag(mode: SandboxMode): string {
  return mode === SandboxMode.Upstream ? '*' : ['*', ...WORKLOAD_CONTROLLERS.map((c) => `-${c}`)].join(',');
}

export function parseMode(value: string): SandboxMode {
  if (value === SandboxMode.Fleetq || value === SandboxMode.Upstream) return value;
  throw new Error(`--mode must be "fleetq" or "upstream", got ${JSON.stringify(value)}`);
}
