// LeaderWorkerSet revisions as lws v0.9.0 keeps them (pkg/utils/revision/revision_utils.go, and the reconciler's
// getOrCreateRevisionIfNonExist and getUpdatedRevision):
// - a revision's data is getPatch: {"spec":{"leaderWorkerTemplate":{…,"$patch":"replace"},
//   "networkConfig":{…,"$patch":"replace"}}}, the two fields as the Go controller encodes them (typed-json.ts),
//   a missing networkConfig read as {subdomainPolicy: Shared}, marshalled with sorted keys (common/go-json.ts);
// - hashRevision: FNV-1 32 of the data, safe-encoded; it is the revision key (the template-revision-hash label of
//   the revision, the StatefulSets and the pods) unless an older key is carried over;
// - revisionName: `<lws name cut to 220>-<hash>-<revision number>`;
// - EqualRevision compares the data byte for byte; SetMatchesRevision then says whether different bytes are the
//   same template (the existing revision applied to the LeaderWorkerSet and encoded again), so a revision written
//   in another serialisation (an older client-go, or upstream's own controller) starts no rollout.
import type { ControllerRevision } from '../../kube/api/objects.js';
import { controllerRefOf, newControllerRef } from '../../kube/meta/controller-ref.js';
import { goJson } from '../common/go-json.js';
import { fnv32, safeEncodeString } from '../common/hash-encoding.js';
import { creatingRevisionEvent, type LwsEvent } from './events.js';
import { typedLeaderWorkerTemplate, typedNetworkConfig } from './typed-json.js';
import {
  LWS_API_VERSION,
  LWS_KIND,
  REVISION_KEY_LABEL,
  SET_NAME_LABEL,
  SubdomainPolicy,
  type LeaderWorkerSet,
} from './types.js';

/** GetRevisionKey: an object's template-revision-hash label ('' without one). */
export function revisionKeyOf(o: { metadata?: { labels?: Record<string, string> } } | null | undefined): string {
  return o?.metadata?.labels?.[REVISION_KEY_LABEL] ?? '';
}

/** getPatch: the revision data of a LeaderWorkerSet, as the bytes upstream stores. */
export function revisionPatchData(lws: LeaderWorkerSet): string {
  const networkConfig = lws.spec.networkConfig ?? { subdomainPolicy: SubdomainPolicy.Shared };
  return goJson({
    spec: {
      leaderWorkerTemplate: { ...typedLeaderWorkerTemplate(lws.spec.leaderWorkerTemplate), $patch: 'replace' },
      networkConfig: { ...typedNetworkConfig(networkConfig), $patch: 'replace' },
    },
  });
}

/** hashRevision: FNV-1 32 over the data (no collision count), its decimal sum safe-encoded. */
export function hashRevision(data: string): string {
  return safeEncodeString(String(fnv32(Buffer.from(data, 'utf8'))));
}

/** revisionName: `<prefix>-<hash>-<revision>`, the prefix cut to 220 characters. */
export function revisionName(prefix: string, hash: string, revision: number): string {
  return `${prefix.slice(0, 220)}-${hash}-${revision}`;
}

const revisionNumber = (cr: ControllerRevision): number => Number(cr.revision ?? 0);

/** getHighestRevision: the revision with the largest number (the last of equals); null for none. */
export function highestRevision(revisions: readonly ControllerRevision[]): ControllerRevision | null {
  let max = 0;
  let found: ControllerRevision | null = null;
  for (const r of revisions) {
    if (max <= revisionNumber(r)) {
      max = revisionNumber(r);
      found = r;
    }
  }
  return found;
}

/**
 * ListRevisions with the selector `name=<lws>`: the revisions of its namespace that carry its name label and are
 * controlled by it or by nothing.
 */
export function revisionsOf(lws: LeaderWorkerSet, revisions: readonly ControllerRevision[]): ControllerRevision[] {
  const uid = lws.metadata.uid ?? '';
  return revisions.filter((r) => {
    if (r.metadata?.labels?.[SET_NAME_LABEL] !== lws.metadata.name) return false;
    const ref = controllerRefOf(r);
    return ref === undefined || ref.uid === uid;
  });
}

/** GetRevision: its revision with this key (the highest of several); null for the key '' or none. */
export function revisionWithKey(
  lws: LeaderWorkerSet,
  revisions: readonly ControllerRevision[],
  key: string,
): ControllerRevision | null {
  if (key === '') return null;
  return highestRevision(revisionsOf(lws, revisions).filter((r) => revisionKeyOf(r) === key));
}

/**
 * NewRevision: the ControllerRevision of the LeaderWorkerSet's current template, numbered one past its highest;
 * `key` ('' for its own hash) is the revision key it is labelled with.
 */
export function newRevision(
  lws: LeaderWorkerSet,
  revisions: readonly ControllerRevision[],
  key: string,
): ControllerRevision {
  const highest = highestRevision(revisionsOf(lws, revisions));
  const revision = highest === null ? 1 : revisionNumber(highest) + 1;
  const data = revisionPatchData(lws);
  const hash = hashRevision(data);
  const name = lws.metadata.name ?? '';
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(name, hash, revision),
      namespace: lws.metadata.namespace,
      labels: { [SET_NAME_LABEL]: name, [REVISION_KEY_LABEL]: key === '' ? hash : key },
      ownerReferences: [
        newControllerRef({ apiVersion: LWS_API_VERSION, kind: LWS_KIND, name, uid: lws.metadata.uid ?? '' }),
      ],
    },
    data: JSON.parse(data) as object,
    revision,
  };
}

export type CurrentRevision = {
  readonly revision: ControllerRevision;
  /** The revision does not exist yet: create it (and record the event once it is created). */
  readonly create?: { readonly event: LwsEvent };
};

/**
 * getOrCreateRevisionIfNonExist: the revision named by the leader StatefulSet's key (none yet: the key ''), or a
 * new one to create under that key (the set's own hash for a new LeaderWorkerSet; the StatefulSet's key for a set
 * made by a controller that kept no revisions).
 */
export function currentRevision(
  lws: LeaderWorkerSet,
  leaderStatefulSet: { metadata?: { labels?: Record<string, string> } } | null,
  revisions: readonly ControllerRevision[],
): CurrentRevision {
  const key = leaderStatefulSet === null ? '' : revisionKeyOf(leaderStatefulSet);
  const existing = revisionWithKey(lws, revisions, key);
  if (existing !== null) return { revision: existing };
  const revision = newRevision(lws, revisions, key);
  const event = creatingRevisionEvent(revision.metadata?.name ?? '', revisionKeyOf(revision), key !== '');
  return { revision, create: { event } };
}

/** A revision's data as the bytes upstream compares ('' for none). */
export function revisionData(cr: ControllerRevision): string {
  return cr.data === undefined || cr.data === null ? '' : goJson(cr.data);
}

/** EqualRevision: both absent, or the same data. */
export function equalRevision(a: ControllerRevision | null, b: ControllerRevision | null): boolean {
  if (a === null || b === null) return a === b;
  return revisionData(a) === revisionData(b);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function withoutDirective(v: unknown): unknown {
  if (!isObject(v)) return v;
  const { $patch: _directive, ...rest } = v;
  return rest;
}

/**
 * ApplyRevision: the LeaderWorkerSet with the revision's state restored. The data replaces leaderWorkerTemplate and
 * networkConfig whole (the strategic merge patch's `$patch: replace`); other fields stay as they are.
 */
export function applyRevision(lws: LeaderWorkerSet, revision: ControllerRevision): LeaderWorkerSet {
  const copy = JSON.parse(JSON.stringify(lws)) as LeaderWorkerSet;
  const data: unknown = revision.data;
  const spec = isObject(data) && isObject(data.spec) ? data.spec : {};
  if ('leaderWorkerTemplate' in spec) {
    copy.spec.leaderWorkerTemplate = withoutDirective(
      spec.leaderWorkerTemplate,
    ) as LeaderWorkerSet['spec']['leaderWorkerTemplate'];
  }
  if ('networkConfig' in spec) {
    copy.spec.networkConfig = withoutDirective(spec.networkConfig) as LeaderWorkerSet['spec']['networkConfig'];
  }
  return copy;
}

/**
 * SetMatchesRevision: the proposed data (of the LeaderWorkerSet as it is) is the existing revision's template in
 * today's encoding. Upstream remembers positive answers per (uid, generation, revision resourceVersion); this is the
 * answer itself, computed each time.
 */
export function setMatchesRevision(lws: LeaderWorkerSet, proposedData: string, existing: ControllerRevision): boolean {
  return revisionPatchData(applyRevision(lws, existing)) === proposedData;
}

/**
 * getUpdatedRevision: the new revision when the template changed since `current` (the revision the leader
 * StatefulSet's key names), null when it did not or there is no leader StatefulSet yet.
 */
export function updatedRevision(
  lws: LeaderWorkerSet,
  hasLeaderStatefulSet: boolean,
  current: ControllerRevision,
  revisions: readonly ControllerRevision[],
): ControllerRevision | null {
  if (!hasLeaderStatefulSet) return null;
  const proposed = newRevision(lws, revisions, '');
  if (equalRevision(proposed, current)) return null;
  if (setMatchesRevision(lws, revisionData(proposed), current)) return null;
  return proposed;
}

/** TruncateRevisions: its revisions (ListRevisions) whose key is not the current one, to delete. */
export function revisionsToTruncate(
  lws: LeaderWorkerSet,
  revisions: readonly ControllerRevision[],
  currentKey: string,
): ControllerRevision[] {
  return revisionsOf(lws, revisions).filter((r) => revisionKeyOf(r) !== currentKey);
}
