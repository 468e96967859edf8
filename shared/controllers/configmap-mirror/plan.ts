import { isDeepStrictEqual } from 'node:util';
import type { ConfigMap } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import type { PlanResult } from '../controller.js';
import { refusalOf } from './policy.js';
import {
  MIRROR_OF,
  MIRROR_SOURCE_UID,
  MISSING_NAMESPACE_RECHECK_MS,
  mirrorLabelValue,
  type ObservedMirror,
} from './types.js';

export function planMirror(o: ObservedMirror, _now: Date): PlanResult {
  const actions: Action[] = [];
  const label = mirrorLabelValue(o.namespace, o.name);
  const wanted = new Set<string>();
  let waitingForNamespace = false;

  for (const t of o.targets) {
    if (!o.source) break;
    if (refusalOf(t.namespace, o.allowedNamespaces) !== null) continue; // observe screened it; never write there
    if (t.ns === null || t.ns.metadata?.deletionTimestamp) {
      waitingForNamespace ||= t.ns === null;
      continue;
    }
    wanted.add(t.namespace);
    const desired = desiredCopy(o.source, t.namespace, label);
    if (t.existing === null) {
      actions.push({ type: 'create', object: desired, reason: 'MirrorCreated' });
    } else if (isOurCopy(t.existing, label) && !isInSync(t.existing, desired)) {
      actions.push({
        type: 'update',
        object: {
          ...desired,
          metadata: { ...desired.metadata, resourceVersion: t.existing.metadata?.resourceVersion },
        },
        reason: 'MirrorUpdated',
      });
    }
    // A ConfigMap of that name that is not our copy is left alone: fleetq never takes over an object it did not create.
  }

  for (const copy of o.copies) {
    const ns = copy.metadata?.namespace ?? '';
    if (wanted.has(ns) || copy.metadata?.deletionTimestamp) continue;
    // Only where the mirror may write: a copy in a namespace no longer allowed (or a labelled look-alike in a
    // system namespace) is left alone.
    if (refusalOf(ns, o.allowedNamespaces) !== null) continue;
    actions.push({
      type: 'delete',
      target: { kind: 'ConfigMap', namespace: ns, name: copy.metadata?.name ?? '' },
      uid: copy.metadata?.uid ?? '',
      reason: 'MirrorDeleted',
    });
  }
  return waitingForNamespace ? { actions, requeueAfter: MISSING_NAMESPACE_RECHECK_MS } : { actions };
}

function desiredCopy(source: ConfigMap, namespace: string, label: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: source.metadata?.name,
      namespace,
      labels: { [MIRROR_OF]: label },
      annotations: { [MIRROR_SOURCE_UID]: source.metadata?.uid ?? '' },
    },
    ...(source.data !== undefined && { data: source.data }),
    ...(source.binaryData !== undefined && { binaryData: source.binaryData }),
    ...(source.immutable !== undefined && { immutable: source.immutable }),
  };
}

function isOurCopy(cm: ConfigMap, label: string): boolean {
  return cm.metadata?.labels?.[MIRROR_OF] === label;
}

function isInSync(existing: ConfigMap, desired: ConfigMap): boolean {
  return (
    isDeepStrictEqual(existing.data ?? {}, desired.data ?? {}) &&
    isDeepStrictEqual(existing.binaryData ?? {}, desired.binaryData ?? {}) &&
    existing.metadata?.annotations?.[MIRROR_SOURCE_UID] === desired.metadata?.annotations?.[MIRROR_SOURCE_UID]
  );
}
