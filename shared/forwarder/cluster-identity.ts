// Checkpoints are bound to the identity of the cluster they were taken from: the uid of its kube-system
// namespace, which a cluster recreated under the same name (or restored into a new etcd) does not keep. A
// resourceVersion from another incarnation means nothing here: the apiserver answers a watch from a
// resourceVersion ahead of its own with silence, not an error, so resuming from one would never see an event.
// The identity is one more checkpoint entry, `@identity`, next to the resources' ones.
import type { KubeConfig } from '@kubernetes/client-node';
import { listPage } from '../kube/list-page.js';
import { resourceOf, resourcePath } from '../kube/resources.js';
import { KubeRest } from '../kube/rest.js';
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import type { Logger } from '../runtime/logger.js';
import { forwarderRest } from './resources.js';

export const IDENTITY_CHECKPOINT = '@identity';

/** The forwarder's REST client for a KubeConfig (no rate limit, circuit or timeout of its own: resources.ts). */
function restOf(source: KubeConfig | KubeRest): KubeRest {
  return source instanceof KubeRest ? source : forwarderRest(source)();
}

/** The uid of the cluster's kube-system namespace (needs `get` on that namespace). */
export async function readClusterIdentity(kc: KubeConfig | KubeRest): Promise<string> {
  const path = resourcePath(resourceOf('Namespace'), undefined, 'kube-system');
  const ns = await restOf(kc).request<{ metadata?: { uid?: unknown } } | null>('GET', path, { timeoutMs: 0 });
  const uid = ns?.metadata?.uid;
  if (typeof uid !== 'string' || uid === '') throw new Error('namespace kube-system has no uid');
  return uid;
}

/**
 * The cluster's current resourceVersion (a consistent list of one namespace). resourceVersions are comparable
 * decimal integers since Kubernetes 1.35 (KEP-5504), so a checkpoint ahead of it was taken from a future this
 * cluster does not have: etcd was restored from a backup under the same identity.
 */
export async function readCurrentResourceVersion(kc: KubeConfig | KubeRest): Promise<string> {
  return (await listPage(restOf(kc), resourceOf('Namespace'), { limit: 1, timeoutMs: 0 })).resourceVersion;
}

/** True when both are decimal resourceVersions and `rv` is ahead of `current`. */
export function isAhead(rv: string, current: string): boolean {
  const decimal = /^[0-9]{1,30}$/;
  return decimal.test(rv) && decimal.test(current) && BigInt(rv) > BigInt(current);
}

export type BindInput = {
  readonly cluster: string;
  readonly store: CheckpointStore;
  readonly resources: readonly string[];
  /** What was loaded: resource checkpoints, and IDENTITY_CHECKPOINT when stored. */
  readonly saved: ReadonlyMap<string, string>;
  /** The identity the cluster has now. */
  readonly identity: string;
  /** The cluster's current resourceVersion; checkpoints ahead of it are discarded (etcd restored from a backup). */
  readonly currentResourceVersion?: string;
  readonly logger: Logger;
};

/**
 * The checkpoints to resume from: all of them when they were taken from this cluster; none (and the store is
 * cleared of them) when the stored identity differs or is missing while checkpoints exist. The current
 * identity is stored before anything resumes, so every checkpoint written afterwards is bound to it.
 */
export async function bindCheckpoints(input: BindInput): Promise<Map<string, string>> {
  const { cluster, store, saved, identity, logger } = input;
  const stored = saved.get(IDENTITY_CHECKPOINT);
  const checkpoints = new Map<string, string>();
  for (const r of input.resources) {
    const rv = saved.get(r);
    if (rv !== undefined) checkpoints.set(r, rv);
  }
  const current = input.currentResourceVersion;
  const ahead = current === undefined ? [] : [...checkpoints].filter(([, rv]) => isAhead(rv, current));
  if (stored === identity && ahead.length === 0) return checkpoints;
  if (stored === identity) {
    logger.warn('Checkpoints ahead of the cluster (etcd restored from a backup?); discarding checkpoints', {
      currentResourceVersion: current,
      checkpoints: Object.fromEntries(checkpoints),
    });
    await store.remove(cluster);
  } else if (checkpoints.size > 0 || stored !== undefined) {
    logger.warn('Cluster identity changed; discarding checkpoints', {
      storedIdentity: stored ?? null,
      identity,
      checkpoints: Object.fromEntries(checkpoints),
    });
    await store.remove(cluster);
  }
  await store.save(cluster, new Map([[IDENTITY_CHECKPOINT, identity]]));
  return new Map();
}
