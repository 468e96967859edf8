// ControllerRefManager.ClaimPods (with upstream's isMemberOf filter: a pod named `<set>-<n>`) and
// ClaimControllerRevisions for one StatefulSet: keep what it controls and still selects, adopt selected orphans
// (not being deleted, same namespace), release controlled objects it no longer selects.
import type { V1StatefulSet } from '@kubernetes/client-node';
import { adoptAction, releaseAction, type Action } from '../../kube/actions.js';
import { controllerRefOf, newControllerRef } from '../../kube/meta/controller-ref.js';
import type { Selector } from '../../kube/meta/label-selector.js';
import type { ApiObject } from '../../kube/meta/object.js';
import { STS_API_VERSION, STS_KIND } from './types.js';

export type Claim<T> = { readonly claimed: readonly T[]; readonly adopt: readonly T[]; readonly release: readonly T[] };

export function claim<T extends ApiObject>(
  set: V1StatefulSet,
  objects: readonly T[],
  selects: Selector,
  filter: (o: T) => boolean = () => true,
): Claim<T> {
  const uid = set.metadata?.uid ?? '';
  const claimed: T[] = [];
  const adopt: T[] = [];
  const release: T[] = [];
  for (const o of objects) {
    const ref = controllerRefOf(o);
    const matches = selects.matches(o.metadata?.labels) && filter(o);
    if (ref) {
      if (ref.uid !== uid) continue;
      (matches ? claimed : release).push(o);
      continue;
    }
    if (!matches || o.metadata?.deletionTimestamp || o.metadata?.namespace !== set.metadata?.namespace) continue;
    adopt.push(o);
    claimed.push(o);
  }
  return { claimed, adopt, release };
}

/** The adoption and release patches (uid preconditions; an object gone or recreated is nothing left to do). */
export function claimActions<T extends ApiObject>(set: V1StatefulSet, kind: string, c: Claim<T>): Action[] {
  const uid = set.metadata?.uid ?? '';
  const ref = newControllerRef({ apiVersion: STS_API_VERSION, kind: STS_KIND, name: set.metadata?.name ?? '', uid });
  const target = (o: T) => ({ kind, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
  return [
    ...c.adopt.map((o) => adoptAction(target(o), o.metadata?.uid ?? '', ref, `Adopt${kind}`)),
    ...c.release.map((o) => releaseAction(target(o), o.metadata?.uid ?? '', uid, `Release${kind}`)),
  ];
}

/** RecheckDeletionTimestamp: the fresh read is the same StatefulSet and it is not being deleted. */
export function canAdopt(set: V1StatefulSet, fresh: V1StatefulSet | null | undefined): boolean {
  return !!fresh && fresh.metadata?.uid === set.metadata?.uid && !fresh.metadata?.deletionTimestamp;
}
