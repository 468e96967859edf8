// The Fleet rollouts section of `fleetq ui`: the FleetRollouts of the registry's hub cluster (`hub: true`), every
// namespace, read with one LIST per refresh of at most ROLLOUTS_SHOWN objects (the apiserver says how many more
// there are). Each object is parsed as untrusted (shared/rollouts/types.ts): a malformed one is listed with its
// error beside the others. Its progress is the view `fleetq rollout status` prints (shared/rollouts/format.ts
// rolloutProgress: the current revision's ledger entry by wave), every string of it made inert here (capped,
// controls made visible, credentials redacted); the page inserts it as text only. No hub, or a hub that does not
// answer, is said in the section; neither fails the page.
import { isNotFound } from '../../kube/errors.js';
import { redactText } from '../../kube/redact-secrets.js';
import type { ClusterRegistry } from '../../kube/registry.js';
import { KubeRest, NO_RATE_LIMIT } from '../../kube/rest.js';
import { rolloutProgress, type ClusterState, type RolloutProgress, type WaveState } from '../../rollouts/format.js';
import { FLEET_ROLLOUT_API_VERSION, parseFleetRollout } from '../../rollouts/types.js';
import { displayText } from '../terminal-text.js';
import { errorText } from './cluster-health.js';

/** FleetRollouts listed on the page; how many more the hub holds is said beside them. */
export const ROLLOUTS_SHOWN = 50;

export const NO_HUB = 'no hub cluster in the registry (hub: true)';

const LIST_PATH = `/apis/${FLEET_ROLLOUT_API_VERSION}/fleetrollouts`;

export type UiRolloutCluster = {
  readonly cluster: string;
  readonly state: ClusterState;
  /** Soak still to go (ms) while soaking. */
  readonly soakRemainingMs?: number;
  /** `signature (image)` when a failure signature failed it. */
  readonly failure?: string;
  readonly reason?: string;
};

export type UiRolloutWave = {
  readonly name: string;
  readonly state: WaveState;
  readonly approval: boolean;
  readonly approved: boolean;
  readonly clusters: readonly UiRolloutCluster[];
};

/** One FleetRollout: its progress, or (malformed) the parser's error. */
export type UiRollout = {
  readonly namespace: string;
  readonly name: string;
  readonly error?: string;
  readonly target?: string;
  readonly phase?: RolloutProgress['phase'];
  readonly paused?: boolean;
  readonly revision?: string;
  readonly attempt?: number;
  readonly wave?: string;
  readonly stopReason?: string;
  readonly waves?: readonly UiRolloutWave[];
};

export type UiRollouts = {
  /** The hub cluster's name; null when the registry has none (then `error` says so). */
  readonly hub: string | null;
  readonly shown: readonly UiRollout[];
  /** FleetRollouts on the hub beyond those shown: a count when the apiserver gave one, true when it did not. */
  readonly more: number | boolean;
  /** Why none could be read (no hub, the hub unreachable, the CRD not there). */
  readonly error?: string;
};

/** What a LIST of FleetRollouts answers (the fields read of it). */
export type RolloutList = {
  readonly items?: readonly unknown[];
  readonly metadata?: { readonly continue?: unknown; readonly remainingItemCount?: unknown };
};

const text = (s: string, max: number): string => displayText(redactText(s), max);

/** The section's content from one LIST answer, at `now` (ms since the epoch). Pure. */
export function rolloutsView(hub: string, list: RolloutList, now: number): UiRollouts {
  const items = (Array.isArray(list.items) ? list.items : []).slice(0, ROLLOUTS_SHOWN);
  const remaining = list.metadata?.remainingItemCount;
  const more =
    typeof remaining === 'number' && remaining > 0
      ? remaining
      : typeof list.metadata?.continue === 'string' && list.metadata.continue !== '';
  return { hub: text(hub, 120), shown: items.map((raw) => rolloutView(raw, now)), more };
}

/** One listed object as the page shows it; a malformed one keeps its name (when it has one) and the error. */
export function rolloutView(raw: unknown, now: number): UiRollout {
  let p: RolloutProgress;
  try {
    p = rolloutProgress(parseFleetRollout(raw), now);
  } catch (err) {
    const meta = (raw as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
    return {
      namespace: typeof meta?.namespace === 'string' ? text(meta.namespace, 63) : '?',
      name: typeof meta?.name === 'string' ? text(meta.name, 253) : '?',
      error: text(err instanceof Error ? err.message : String(err), 1_000),
    };
  }
  return {
    namespace: text(p.namespace, 63),
    name: text(p.name, 253),
    target: text(p.target, 400),
    phase: p.phase,
    paused: p.paused,
    ...(p.revision !== undefined && { revision: text(p.revision, 100) }),
    ...(p.attempt !== undefined && { attempt: p.attempt }),
    wave: text(p.wave, 63),
    ...(p.stopReason !== undefined && { stopReason: text(p.stopReason, 500) }),
    waves: p.waves.map((w) => ({
      name: text(w.name, 63),
      state: w.state,
      approval: w.approval,
      approved: w.approved,
      clusters: w.clusters.map((c) => ({
        cluster: text(c.cluster, 63),
        state: c.state,
        ...(c.soakRemainingMs !== undefined && { soakRemainingMs: c.soakRemainingMs }),
        ...(c.failure !== undefined && { failure: text(c.failure, 300) }),
        ...(c.reason !== undefined && { reason: text(c.reason, 300) }),
      })),
    })),
  };
}

/** Reads the hub's FleetRollouts; one client kept between refreshes (KubeRest rebuilds it on a kubeconfig change). */
export class HubRollouts {
  private readonly rest: KubeRest | undefined;
  private readonly hub: string | undefined;

  constructor(
    registry: ClusterRegistry | undefined,
    private readonly timeoutMs = 5_000,
  ) {
    const hub = registry?.clusters.find((c) => c.hub === true)?.name;
    this.hub = hub;
    this.rest =
      registry === undefined || hub === undefined
        ? undefined
        : new KubeRest(hub, () => registry.kubeConfig(hub), NO_RATE_LIMIT);
  }

  async read(now: number): Promise<UiRollouts> {
    if (this.hub === undefined || this.rest === undefined) return { hub: null, shown: [], more: false, error: NO_HUB };
    try {
      const list = await this.rest.request<RolloutList>('GET', LIST_PATH, {
        query: { limit: ROLLOUTS_SHOWN },
        timeoutMs: this.timeoutMs,
      });
      return rolloutsView(this.hub, list ?? {}, now);
    } catch (err) {
      const why = isNotFound(err)
        ? 'it does not serve FleetRollouts (apply infra/k8s/fleetrollout-crd.yaml there)'
        : errorText(err);
      return { hub: text(this.hub, 120), shown: [], more: false, error: text(`hub ${this.hub}: ${why}`, 1_000) };
    }
  }
}

const readers = new WeakMap<ClusterRegistry, HubRollouts>();

/** The reader of a registry's hub, made once per registry (its client, and the connections, kept). */
export function hubRolloutsOf(registry: ClusterRegistry | undefined): HubRollouts {
  if (registry === undefined) return new HubRollouts(undefined);
  let r = readers.get(registry);
  if (!r) readers.set(registry, (r = new HubRollouts(registry)));
  return r;
}
