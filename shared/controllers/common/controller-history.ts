// ControllerRevision history as the StatefulSet and DaemonSet controllers share it (pkg/controller/history, and the
// getPatch both controllers define alike):
// - a revision's data is the patch {"spec":{"template":{…,"$patch":"replace"}}} of the owner's pod template,
//   marshalled as Go does (go-json.ts), so it is byte for byte what kube-controller-manager 1.37 writes;
// - two revisions are equal when their data is (EqualRevision compares the raw bytes);
// - HashControllerRevision: FNV-1 32 over the data and the decimal collisionCount, safe-encoded (the StatefulSet's
//   names; the DaemonSet names its revisions by the pod-template hash instead, pod-template-hash.ts);
// - ControllerRevisionName: `<prefix>-<hash>`, the prefix cut to 223 characters;
// - SortControllerRevisions: by revision, then creation time, then name.
import type { ControllerRevision } from '../../kube/api/objects.js';
import { newControllerRef, type Owner } from '../../kube/meta/controller-ref.js';
import { goJson } from './go-json.js';
import { timeMs } from './wire-time.js';
import { fnv32, safeEncodeString } from './hash-encoding.js';

/** getPatch: the revision data of a pod template (a JSON copy first: fields set to undefined are dropped, as on the wire). */
export function templatePatchData(template: object | undefined): string {
  const copy = JSON.parse(JSON.stringify(template ?? {})) as Record<string, unknown>;
  return goJson({ spec: { template: { ...copy, $patch: 'replace' } } });
}

/** The revision holds this data (compared as Go's marshalling of both). */
export function hasEqualData(cr: ControllerRevision, data: string): boolean {
  return cr.data !== undefined && goJson(cr.data) === data;
}

/** history.HashControllerRevision with a collisionCount (the StatefulSet controller always passes one, 0 included). */
export function hashControllerRevision(data: string, collisionCount: number): string {
  const bytes = [...Buffer.from(data, 'utf8'), ...Buffer.from(String(collisionCount), 'utf8')];
  return safeEncodeString(String(fnv32(bytes)));
}

/** history.ControllerRevisionName. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

export const revisionNumber = (cr: ControllerRevision): number => Number(cr.revision ?? 0);

/** history.SortControllerRevisions: by revision, then creation time, then name. */
export function sortControllerRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  const created = (cr: ControllerRevision) => timeMs(cr.metadata?.creationTimestamp) ?? 0;
  const name = (cr: ControllerRevision) => cr.metadata?.name ?? '';
  return [...revisions].sort(
    (a, b) =>
      revisionNumber(a) - revisionNumber(b) ||
      created(a) - created(b) ||
      (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0),
  );
}

export type RevisionOf = {
  /** The controller it belongs to (its controller reference). */
  readonly owner: Owner;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The template's labels and the hash label. */
  readonly labels: Readonly<Record<string, string>>;
  /** Copied from the owner (none: no field). */
  readonly annotations: Readonly<Record<string, string>>;
  /** templatePatchData of the template. */
  readonly data: string;
  readonly revision: number;
};

/** NewControllerRevision (the DaemonSet's snapshot builds the same object under its own name and label). */
export function newControllerRevision(r: RevisionOf): ControllerRevision {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: r.name,
      namespace: r.namespace,
      labels: { ...r.labels },
      ...(Object.keys(r.annotations).length > 0 && { annotations: { ...r.annotations } }),
      ownerReferences: [newControllerRef(r.owner)],
    },
    data: JSON.parse(r.data) as object,
    revision: r.revision,
  };
}
