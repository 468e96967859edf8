// What a kind asks of the sandbox beyond kube-controller-manager's flags (modes.ts): the CustomResourceDefinitions
// that serve it (applied to every cluster at start, in both modes: fleetq and upstream must see the same API), and,
// for a kind whose upstream controller is an add-on (JobSet's, LeaderWorkerSet's), the command that runs that
// controller next to kube-controller-manager on the upstream side (fleetq's side has fleetq instead).
// Both derive from the registered watch descriptors (`crd`, `upstream.runs: 'add-on'`); only the command to start
// an add-on is written here, by the controller's name.
import { DESCRIPTORS } from '../../shared/controllers/index.js';

/** Where an add-on controller runs: the cluster it reconciles, and the sandbox's build of binaries. */
export type AddOnContext = {
  readonly cluster: string;
  readonly kubeconfig: string;
  /** The cluster's own folder (logs, data). */
  readonly dir: string;
  /** The folder of the sandbox's binaries (infra/sandbox/build.sh). */
  readonly binDir: string;
};

export type AddOnCommand = { readonly command: string; readonly args: readonly string[] };

export type SandboxKindOption = {
  readonly kind: string;
  /** CRD manifests (YAML files) applied at cluster start, before any controller starts. */
  readonly crds: readonly (string | URL)[];
  /** An add-on controller run next to kube-controller-manager on upstream-mode clusters. */
  readonly upstreamController?: { readonly name: string; readonly start: (ctx: AddOnContext) => AddOnCommand };
};

/**
 * How to start each add-on controller a descriptor names (`upstream: { name, runs: 'add-on' }`), by name: e.g.
 * JobSet's controller built by infra/sandbox/build.sh, `{ command: join(binDir, 'jobset-controller'), args:
 * [`--kubeconfig=${kubeconfig}`, ...] }`. None yet.
 */
export const ADD_ON_COMMANDS: Readonly<Record<string, (ctx: AddOnContext) => AddOnCommand>> = {};

/** The sandbox options of every registered kind that has any. */
export function sandboxKindOptions(
  registry: Pick<typeof DESCRIPTORS, 'crds' | 'upstreamControllers'> = DESCRIPTORS,
  commands: Readonly<Record<string, (ctx: AddOnContext) => AddOnCommand>> = ADD_ON_COMMANDS,
): SandboxKindOption[] {
  const options = new Map<
    string,
    { crds: (string | URL)[]; upstreamController?: SandboxKindOption['upstreamController'] }
  >();
  const of = (kind: string) => options.get(kind) ?? options.set(kind, { crds: [] }).get(kind)!;
  for (const { kind, file } of registry.crds) of(kind).crds.push(file);
  for (const c of registry.upstreamControllers) {
    if (c.runs !== 'add-on') continue;
    const start = commands[c.name];
    if (start === undefined)
      throw new Error(
        `${c.kind}'s upstream controller ${c.name} is an add-on the sandbox cannot start: add its command to ADD_ON_COMMANDS (infra/sandbox/kind-options.ts)`,
      );
    of(c.kind).upstreamController = { name: c.name, start };
  }
  return [...options].map(([kind, o]) => ({ kind, ...o }));
}
