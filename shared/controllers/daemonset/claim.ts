// ControllerRefManager.ClaimPods and ClaimControllerRevisions for one DaemonSet: keep what it controls and still
// selects, adopt selected orphans (not being deleted, same namespace), release controlled objects it no longer
// selects. Unlike the ReplicaSet, the DaemonSet claims terminal pods too (its failed pods must be found).
// A DaemonSet being deleted is never synced, so it neither adopts nor releases.
import type { V1DaemonSet } from '@kubernetes/client-node';
import { adoptAction, releaseAction, type Action } from '../../kube/actions.js';
import { controllerRefOf, newControllerRef } from '../../kube/meta/controller-ref.js';
import type { Selector } from '../../kube/meta/label-selector.js';
import type { ApiObject } from '../../kube/meta/object.js';
import { DS_API_VERSION, DS_KIND } from './types.js';

export type Claim<T> = { readonly claimed: readonly T[]; readonly adopt: readonly T[]; readonly release: readonly T[] };

export function claim<T extends ApiObject>(ds: V1DaemonSet, objects: readonly T[], selects: Selector): Claim<T> {
  const uid = ds.metadata?.uid ?? '';
  const claimed: T[] = [];
  const adopt: T[] = [];
  const release: T[] = [];
  for (const o of objects) {
    const ref = controllerRefOf(o);
    const matches = selects.matches(o.metadata?.labels);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches) claimed.push(o);
      else release.push(o);
      continue;
    }
    if (!matches || o.metadata?.deletionTimestamp || o.metadata?.namespace !== ds.metadata?.namespace) continue;
    adopt.push(o);
    claimed.push(o);
  }
  return { claimed, adopt, release };
}

/** The adoption and release patches (uid preconditions; an object gone or recreated is nothing left to do). */
export function claimActions<T extends ApiObject>(ds: V1DaemonSet, kind: string, c: Claim<T>): Action[] {
  const uid = ds.metadata?.uid ?? '';
  const ref = newControllerRef({ apiVersion: DS_API_VERSION, kind: DS_KIND, name: ds.metadata?.name ?? '', uid });
  const target = (o: T) => ({ kind, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
  return [
    ...c.adopt.map((o) => adoptAction(target(o), o.metadata?.uid ?? '', ref, `Adopt${kind}`)),
    ...c.release.map((o) => releaseAction(target(o), o.metadata?.uid ?? '', uid, `Release${kind}`)),
  ];
}

/** RecheckDeletionTimestamp: the fresh read is the same DaemonSet and it is not being deleted. */
export function canAdopt(ds: V1DaemonSet, fresh: V1DaemonSet | null | undefined): boolean {
  return !!fresh && fresh.metadata?.uid === ds.metadata?.uid && !fresh.metadata?.deletionTimestamp;
}
