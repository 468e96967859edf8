// A pass reads its JobSet fresh just before it creates Jobs (observe.ts), but the JobSet can still be deleted
// between that read and the creates. When the deletion completes first (a foreground delete of a JobSet with no
// Jobs yet finishes at once), the Jobs arrive owned by a JobSet that no longer exists. Upstream leaves them to the
// garbage collector, which deletes them a moment later; a client that saw the JobSet gone can meanwhile still list
// them (JobSet's e2e spec "deleted using foreground propagation policy" does exactly that). fleetq, slower than
// upstream's manager from event to create, meets this more often, so after a pass that created anything for its
// JobSet it reads the JobSet again:
// - gone, or another object of the name: the Jobs the pass created for it are deleted at once (by uid, background, as
//   the garbage collector deletes the dependents of an owner that is gone; its headless Service, harmless, is left to
//   the collector);
// - marked for deletion in the foreground (its foregroundDeletion finalizer): the Jobs are deleted at once too, in
//   the foreground, as the collector deletes the dependents of such an owner. The collector may not see them in
//   time: when its graph has not taken in the new Jobs yet, it finds no dependent that blocks, lets the JobSet go,
//   and deletes the Jobs only afterwards (seen in a CI run: 5 Jobs created 40 ms after the foreground delete, still
//   there when the spec listed them 400 ms later, once the JobSet was gone);
// - otherwise (there, marked for deletion in the background behind another finalizer, or orphaning): nothing is
//   undone; the collector deletes the Jobs once the JobSet is gone, or orphans them, as it would upstream's.
import type { Action } from '../../kube/actions.js';
import type { ReconcileKey } from '../../kube/key.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import type { ApiObject } from '../../kube/meta/object.js';
import type { ClusterView } from '../../kube/view.js';
import type { PlanResult } from '../controller.js';
import { JOB_KIND, JOBSET_KIND, type JobSet, type ObservedJobSet } from './types.js';

export const UNDO_REASON = 'OwnerJobSetGone';

export async function undoCreatesForGoneJobSet(
  view: ClusterView,
  key: ReconcileKey,
  observed: ObservedJobSet,
  result: PlanResult,
): Promise<Action[]> {
  const uid = observed.jobSet?.metadata.uid ?? '';
  if (uid === '') return [];
  const created = result.actions.flatMap((a) =>
    a.type === 'create' && a.object.kind === JOB_KIND && isControlledBy(a.object, uid) ? [a.object] : [],
  );
  if (created.length === 0) return [];
  const now = await view.get<JobSet>(JOBSET_KIND, key.namespace, key.name, { fresh: true });
  const foreground = now !== null && now.metadata.uid === uid && isDeletedInForeground(now);
  if (now !== null && now.metadata.uid === uid && !foreground) return [];
  const live = await Promise.all(
    created.map((o) =>
      view.get<ApiObject>(o.kind ?? '', o.metadata?.namespace ?? '', o.metadata?.name ?? '', { fresh: true }),
    ),
  );
  return live.flatMap((o, i): Action[] =>
    o !== null && isControlledBy(o, uid)
      ? [
          {
            type: 'delete',
            target: {
              kind: created[i]?.kind ?? '',
              namespace: o.metadata?.namespace ?? '',
              name: o.metadata?.name ?? '',
            },
            uid: o.metadata?.uid ?? '',
            reason: UNDO_REASON,
            ...(foreground && { propagationPolicy: 'Foreground' as const }),
          },
        ]
      : [],
  );
}

/** Marked for deletion with the garbage collector's foregroundDeletion finalizer (its dependents go first). */
function isDeletedInForeground(js: JobSet): boolean {
  return (js.metadata.deletionTimestamp ?? '') !== '' && (js.metadata.finalizers ?? []).includes('foregroundDeletion');
}
