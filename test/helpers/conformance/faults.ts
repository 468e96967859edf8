// A fault the conformance runner's fleetq (conformance/fleetq.ts) injects where a scenario asks for it: a Job
// annotated `fleetq.dev/conformance-fault: die-after-finalizer-removal` has the handler run that removed one of
// its pods' batch.kubernetes.io/job-tracking finalizers die before the status write of that run. The write is not
// sent, and the run ends as the run of a process that died: a LeaseLost error, so reconcileOne tells the queue
// nothing (no done, no retry) and the key is handed out again only once its lease expires (FLEETQ_LEASE_MS).
// Issue 11 §1: every succeeded or failed pod is counted exactly once, even then.
//
// It wraps the cluster's KubeRest (the handlers' one write path) and is armed by the Job's own annotation, so no
// other object, scenario or product path is touched; the upstream side ignores the annotation. A Job is killed
// at most `maxKills` times (each costs a lease), and the kills are counted so a scenario can be shown to have hit
// the gap (it also waits, on the fleetq side, for the gap's visible state).
import { ReconcileError } from '../../../shared/kube/errors.js';
import type { KubeRest } from '../../../shared/kube/rest.js';

export const FAULT_ANNOTATION = 'fleetq.dev/conformance-fault';
export const DIE_AFTER_FINALIZER_REMOVAL = 'die-after-finalizer-removal';
const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

const POD_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/[^/]+$/;
const JOB_STATUS_PATH = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs\/([^/]+)\/status$/;

type Body = {
  metadata?: {
    uid?: string;
    annotations?: Record<string, string>;
    '$deleteFromPrimitiveList/finalizers'?: string[];
  };
};

export type FinalizerGapFault = {
  /** Runs killed so far, by Job (namespace/name). */
  readonly kills: ReadonlyMap<string, number>;
};

/** Wraps `rest.request` in place (the clients of a cluster are built once and shared by every run). */
export function injectFinalizerGapFault(rest: KubeRest, o: { readonly maxKills?: number } = {}): FinalizerGapFault {
  const maxKills = o.maxKills ?? 2;
  const kills = new Map<string, number>();
  // Namespaces where a tracking finalizer was removed since the last status write of a Job there. A scenario's
  // namespace holds one Job, and one run of a key at a time: the removal and the status write are one run's.
  const removedIn = new Set<string>();
  const request = rest.request.bind(rest);
  rest.request = async <T>(method: string, path: string, options: Parameters<KubeRest['request']>[2] = {}) => {
    const body = options.body as Body | undefined;
    const status = method === 'PUT' ? JOB_STATUS_PATH.exec(path) : null;
    if (status) {
      const [, namespace = '', name = ''] = status;
      const id = `${namespace}/${name}`;
      const armed = body?.metadata?.annotations?.[FAULT_ANNOTATION] === DIE_AFTER_FINALIZER_REMOVAL;
      if (armed && removedIn.has(namespace) && (kills.get(id) ?? 0) < maxKills) {
        removedIn.delete(namespace);
        kills.set(id, (kills.get(id) ?? 0) + 1);
        throw new ReconcileError(
          'LeaseLost',
          `fault injected (${FAULT_ANNOTATION}): the handler died after removing tracking finalizers, before writing the status of Job ${id}`,
          false,
        );
      }
      const answer = await request<T>(method, path, options);
      removedIn.delete(namespace);
      return answer;
    }
    const pod = method === 'PATCH' ? POD_PATH.exec(path) : null;
    const answer = await request<T>(method, path, options);
    if (pod && body?.metadata?.['$deleteFromPrimitiveList/finalizers']?.includes(TRACKING_FINALIZER)) {
      removedIn.add(pod[1] ?? '');
    }
    return answer;
  };
  return { kills };
}
