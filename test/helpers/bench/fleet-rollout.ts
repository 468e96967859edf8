// Reading a FleetRollout bench run: the rollout's ledger on the hub, the pins on each cluster's target, the pods of
// a failing revision, and the figures the bench prints (test/bench/fleet-rollout.ts).
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { median } from '../stats.js';

export const PIN_ANNOTATION_PREFIX = 'fleetrollout.fleetq.dev/';
const ADMITTED = `${PIN_ANNOTATION_PREFIX}admitted`;
const FROZEN = `${PIN_ANNOTATION_PREFIX}frozen`;

/** One cluster's row of a ledger entry (infra/k8s/fleetrollout-crd.yaml, status.revisions[].clusters[]). */
export type LedgerRow = {
  cluster: string;
  wave: string;
  admittedAt?: string;
  availableSince?: string;
  previousRevision?: string;
  verdict?: string;
  verdictAt?: string;
  reason?: string;
  failure?: { signature: string; image: string };
  failedAt?: string;
};

export type LedgerEntry = {
  revision: string;
  attempt: number;
  startedAt: string;
  phase: string;
  wave: string;
  stoppedAt?: string;
  stopReason?: string;
  clusters: LedgerRow[];
};

export type RolloutStatus = {
  phase?: string;
  revision?: string;
  wave?: string;
  revisions?: LedgerEntry[];
};

const GROUP = { group: 'fleetq.dev', version: 'v1alpha1', plural: 'fleetrollouts' } as const;

export async function createFleetRollout(kc: KubeConfig, namespace: string, body: object): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ ...GROUP, namespace, body });
}

export async function readRolloutStatus(kc: KubeConfig, namespace: string, name: string): Promise<RolloutStatus> {
  const o = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...GROUP, namespace, name })) as {
    status?: RolloutStatus;
  };
  return o.status ?? {};
}

export function entryOf(s: RolloutStatus, revision: string): LedgerEntry | undefined {
  return [...(s.revisions ?? [])].reverse().find((e) => e.revision === revision);
}

/** The pin on one cluster's target: the annotations `fleetrollout.fleetq.dev/*`. */
export type Pin = { admitted: string; frozen: string };

export async function readPin(kc: KubeConfig, namespace: string, name: string): Promise<Pin> {
  const d = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name });
  const a = d.metadata?.annotations ?? {};
  return { admitted: a[ADMITTED] ?? '', frozen: a[FROZEN] ?? '' };
}

/** The pin stops `revision` there: frozen on it, or admitting another (rolled back). */
export function pinStops(pin: Pin, revision: string): boolean {
  return (pin.admitted === revision && pin.frozen === revision) || (pin.admitted !== '' && pin.admitted !== revision);
}

/** The pods of one revision (pod-template-hash) in a namespace: name, creation time, image-pull failure. */
export async function revisionPods(
  kc: KubeConfig,
  namespace: string,
  revision: string,
): Promise<Array<{ name: string; createdMs: number; pullFailure: boolean }>> {
  const pods = await kc
    .makeApiClient(CoreV1Api)
    .listNamespacedPod({ namespace, labelSelector: `pod-template-hash=${revision}` });
  return pods.items.map((p) => ({
    name: p.metadata?.name ?? '',
    createdMs: new Date(p.metadata?.creationTimestamp ?? 0).getTime(),
    pullFailure: (p.status?.containerStatuses ?? []).some((c) =>
      ['ErrImagePull', 'ImagePullBackOff'].includes(c.state?.waiting?.reason ?? ''),
    ),
  }));
}

/** ms between two ledger times, or null when either is missing. */
export function between(from: string | undefined, to: string | undefined): number | null {
  if (from === undefined || to === undefined) return null;
  return new Date(to).getTime() - new Date(from).getTime();
}

/** Per cluster of a ledger entry, admission → available on the revision (ledger admittedAt → availableSince). */
export function convergenceMs(entry: LedgerEntry): number[] {
  return entry.clusters.flatMap((r) => {
    const ms = between(r.admittedAt, r.availableSince);
    return ms === null ? [] : [ms];
  });
}

/** Clusters of the wave admitted at once: a count, or a percent of the wave's clusters rounded up (at least 1). */
export function concurrencyOf(maxConcurrency: number | string, waveSize: number): number {
  if (typeof maxConcurrency === 'number') return Math.max(1, maxConcurrency);
  return Math.max(1, Math.ceil((Number(maxConcurrency.replace('%', '')) * waveSize) / 100));
}

/** Rounds of admissions each wave needs when every cluster takes the same time. */
export function batchesOf(waves: ReadonlyArray<{ size: number; maxConcurrency: number | string }>): number {
  return waves.reduce((n, w) => n + Math.ceil(w.size / concurrencyOf(w.maxConcurrency, w.size)), 0);
}

export const s = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`;

export const med = (xs: readonly number[]): number | null => median(xs) ?? null;
