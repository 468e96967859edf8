// What a kind asks of the sandbox beyond kube-controller-manager's flags (modes.ts): the CustomResourceDefinitions
// that serve it (applied to every cluster at start, in both modes: fleetq and upstream must see the same API), and,
// for a kind whose upstream controller is an add-on (JobSet's, LeaderWorkerSet's), the command that runs that
// controller next to kube-controller-manager on the upstream side (fleetq's side has fleetq instead).
// Both derive from the registered watch descriptors (`crd`, `upstream.runs: 'add-on'`); only the command to start
// an add-on is written here, by the controller's name, and which add-ons run only where a cluster asks for them.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { DESCRIPTORS } from '../../shared/controllers/index.js';
import type { CrdFile } from './crds.js';
import { jobsetController } from './jobset-controller.js';
import { LWS_CONTROLLER, lwsController } from './lws-controller.js';
import type { SandboxMode } from './modes.js';
import type { Pki } from './pki.js';

/** Where an add-on controller runs: the cluster it reconciles, and what the sandbox gives it. */
export type AddOnContext = {
  readonly cluster: string;
  readonly kubeconfig: string;
  /** The cluster's own folder (logs, data); an add-on keeps its files in a folder of it named after itself. */
  readonly dir: string;
  /** The folder of the sandbox's Kubernetes binaries (infra/sandbox/build.sh). */
  readonly binDir: string;
  /** The add-on's own binary (infra/sandbox/build-addons.sh builds it, by the add-on's name). */
  readonly binary: string;
  /** The sandbox's CA and keys (pki.ts): an add-on's webhooks serve a certificate of this CA. */
  readonly pki: Pki;
  /** A port free on 127.0.0.1 a moment ago (several clusters run at once: no add-on takes a fixed port). */
  readonly freePort: () => Promise<number>;
};

export type AddOnCommand = {
  readonly command: string;
  readonly args: readonly string[];
  /**
   * CRDs the controller needs before it starts, beyond its kind's (applied to every cluster anyway): those of
   * other kinds it reconciles unconditionally (LeaderWorkerSet's manager: DisaggregatedSet's). Upstream side only.
   */
  readonly crds?: readonly CrdFile[];
  /** Answers 200 once the controller is up (its readiness probe); the cluster start waits for it. */
  readonly readyUrl?: string;
  /**
   * Admission webhook configurations (Mutating-, ValidatingWebhookConfiguration) pointing at the controller's
   * webhook server, applied to the cluster once `readyUrl` answers.
   */
  readonly webhooks?: readonly KubernetesObject[];
  /** True once the cluster's apiserver admits through those webhooks; the cluster start waits for it. */
  readonly admits?: (kc: KubeConfig) => Promise<boolean>;
};

export type AddOnStart = (ctx: AddOnContext) => Promise<AddOnCommand>;

export type SandboxKindOption = {
  readonly kind: string;
  /** CRD manifests (YAML files, or files of Go modules) applied at cluster start, before any controller starts. */
  readonly crds: readonly CrdFile[];
  /**
   * An add-on controller run next to kube-controller-manager on upstream-mode clusters: on every one, or, when
   * `onRequest`, only on those whose spec names it (ClusterSpec.addOns).
   */
  readonly upstreamController?: { readonly name: string; readonly start: AddOnStart; readonly onRequest?: true };
};

/**
 * How to start each add-on controller a descriptor names (`upstream: { name, runs: 'add-on' }`), by name. The
 * name is also the binary infra/sandbox/build-addons.sh builds.
 */
export const ADD_ON_COMMANDS: Readonly<Record<string, AddOnStart>> = {
  'jobset-controller': jobsetController,
  [LWS_CONTROLLER]: lwsController,
};

/**
 * Add-ons an upstream-mode cluster runs only when its spec names them (ClusterSpec.addOns: `{ name, mode:
 * 'upstream', addOns: ['lws-controller'] }`, or `sandbox:up -- --mode upstream --add-ons lws-controller`), so the
 * standard clusters neither build nor start them. LeaderWorkerSet's manager (with its DisaggregatedSet controller
 * and a pod webhook) is wanted by LeaderWorkerSet's own tests and conformance only.
 */
export const ADD_ONS_ON_REQUEST: ReadonlySet<string> = new Set([LWS_CONTROLLER]);

/**
 * The sandbox options of every registered kind that has any. An add-on several kinds name (lws-controller, for
 * LeaderWorkerSet and LeaderWorkerSetPod: one manager, two key kinds) is one controller: it goes with the first of
 * them, so a cluster starts it once.
 */
export function sandboxKindOptions(
  registry: Pick<typeof DESCRIPTORS, 'crds' | 'upstreamControllers'> = DESCRIPTORS,
  commands: Readonly<Record<string, AddOnStart>> = ADD_ON_COMMANDS,
  onRequest: ReadonlySet<string> = ADD_ONS_ON_REQUEST,
): SandboxKindOption[] {
  const options = new Map<string, { crds: CrdFile[]; upstreamController?: SandboxKindOption['upstreamController'] }>();
  const of = (kind: string) => options.get(kind) ?? options.set(kind, { crds: [] }).get(kind)!;
  for (const { kind, file } of registry.crds) of(kind).crds.push(file);
  const named = new Set<string>();
  for (const c of registry.upstreamControllers) {
    if (c.runs !== 'add-on' || named.has(c.name)) continue;
    named.add(c.name);
    const start = commands[c.name];
    if (start === undefined)
      throw new Error(
        `${c.kind}'s upstream controller ${c.name} is an add-on the sandbox cannot start: add its command to ADD_ON_COMMANDS (infra/sandbox/kind-options.ts)`,
      );
    of(c.kind).upstreamController = { name: c.name, start, ...(onRequest.has(c.name) && { onRequest: true as const }) };
  }
  return [...options].map(([kind, o]) => ({ kind, ...o }));
}

/**
 * The add-on controllers a cluster runs: on an upstream-mode cluster, every kind's that is not on request, and
 * those on request that `requested` names; on a fleetq-mode cluster, none (fleetq reconciles those kinds there).
 * A requested name that no kind's add-on has, or a request on a fleetq-mode cluster, is refused.
 */
export function addOnsFor(
  kinds: readonly SandboxKindOption[],
  cluster: { readonly name: string; readonly mode: SandboxMode; readonly addOns?: readonly string[] },
): Array<{ readonly name: string; readonly start: AddOnStart }> {
  const requested = cluster.addOns ?? [];
  const known = kinds.flatMap((k) => (k.upstreamController ? [k.upstreamController] : []));
  for (const name of requested) {
    if (!known.some((c) => c.name === name))
      throw new Error(
        `cluster ${cluster.name} asks for the add-on ${name}, which no kind of the sandbox names (known: ${known.map((c) => c.name).join(', ') || 'none'})`,
      );
  }
  if (cluster.mode !== 'upstream') {
    if (requested.length > 0)
      throw new Error(
        `cluster ${cluster.name} asks for add-ons (${requested.join(', ')}), which run in upstream mode only`,
      );
    return [];
  }
  return known
    .filter((c) => c.onRequest !== true || requested.includes(c.name))
    .map(({ name, start }) => ({ name, start }));
}
