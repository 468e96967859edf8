// A handler fault for the JobSet restart chaos case (test/chaos/jobset-restart-kill.test.ts): a JobSet annotated
// `fleetq.dev/chaos-fault: die-after-old-attempt-deletes` has the handler run that deleted Jobs of an earlier
// attempt die right after those deletes, before anything else of that run reaches the cluster (its status write;
// the run that deletes creates nothing: the new attempt's Jobs share their names with the old ones, so they are
// created by a later run, once the old ones are gone). The run ends as a dead process's run does: a LeaseLost
// error, so the queue is told nothing and the key is handed out again only when its lease expires.
//
// It wraps the cluster's KubeRest (the handlers' one write path) in place and is armed by the JobSet's own
// annotation, read from the status write's body, so no other object is touched. The kills are counted, so the
// case can show that it hit the cut at every restart.
import { ReconcileError } from '../../../shared/kube/errors.js';
import type { KubeRest } from '../../../shared/kube/rest.js';

export const CHAOS_FAULT_ANNOTATION = 'fleetq.dev/chaos-fault';
export const DIE_AFTER_OLD_ATTEMPT_DELETES = 'die-after-old-attempt-deletes';

const JOB_PATH = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs\/[^/?]+$/;
const JOBSET_STATUS_PATH = /^\/apis\/jobset\.x-k8s\.io\/v1alpha2\/namespaces\/([^/]+)\/jobsets\/([^/]+)\/status$/;

type Body = { metadata?: { annotations?: Record<string, string> }; status?: { restarts?: number } };

export type OldAttemptDeletesFault = {
  /** Runs killed so far, by JobSet (namespace/name), with the JobSet's status.restarts the dead run would have written. */
  readonly kills: ReadonlyMap<string, number[]>;
};

/** Wraps `rest.request` in place (a cluster's clients are built once and shared by every run). */
export function injectOldAttemptDeletesFault(rest: KubeRest, o: { readonly maxKills: number }): OldAttemptDeletesFault {
  const kills = new Map<string, number[]>();
  // Namespaces where a Job was deleted since the last JobSet status write there. The case's namespace holds one
  // JobSet, and a key runs once at a time: the deletes and the status write are one run's.
  const deletedIn = new Set<string>();
  const request = rest.request.bind(rest);
  rest.request = async <T>(method: string, path: string, options: Parameters<KubeRest['request']>[2] = {}) => {
    const body = options.body as Body | undefined;
    const status = method === 'PUT' ? JOBSET_STATUS_PATH.exec(path) : null;
    if (status) {
      const [, namespace = '', name = ''] = status;
      const id = `${namespace}/${name}`;
      const armed = body?.metadata?.annotations?.[CHAOS_FAULT_ANNOTATION] === DIE_AFTER_OLD_ATTEMPT_DELETES;
      const killed = kills.get(id) ?? [];
      if (armed && deletedIn.has(namespace) && killed.length < o.maxKills) {
        deletedIn.delete(namespace);
        kills.set(id, [...killed, body?.status?.restarts ?? 0]);
        throw new ReconcileError(
          'LeaseLost',
          `fault injected (${CHAOS_FAULT_ANNOTATION}): the handler died after deleting Jobs of an earlier attempt of JobSet ${id}`,
          false,
        );
      }
      const answer = await request<T>(method, path, options);
      deletedIn.delete(namespace);
      return answer;
    }
    const job = method === 'DELETE' ? JOB_PATH.exec(path.split('?')[0] ?? '') : null;
    const answer = await request<T>(method, path, options);
    if (job) deletedIn.add(job[1] ?? '');
    return answer;
  };
  return { kills };
}
