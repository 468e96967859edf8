// What the golden tests (reconcile, pod reconcile, plan, upstream) compare with upstream's recorded passes: the
// fields upstream's harness reports of a StatefulSet, and fleetq's events as the Go recorder saw them.
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import type { LwsEvent } from '../../../../shared/controllers/leaderworkerset/events.js';
import type { GoldenEvent } from './golden-cases.js';

/** The prefix of the labels lws sets. */
export const LABEL_PREFIX = 'leaderworkerset.sigs.k8s.io/';
const owned = (m: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k.startsWith(LABEL_PREFIX)));

/** Our events as the Go recorder saw them (the related object by name). */
export const recordedEvents = (events: readonly LwsEvent[]): GoldenEvent[] =>
  events.map((e) => ({
    type: e.type,
    reason: e.reason,
    action: e.action,
    note: e.note,
    ...(e.related !== undefined && { related: e.related.name }),
  }));

/** The fields of the leader StatefulSet the harness reports (those lws sets). */
export function leaderFields(sts: StatefulSet): Record<string, unknown> {
  const rolling = sts.spec?.updateStrategy?.rollingUpdate;
  return {
    labels: owned(sts.metadata?.labels),
    annotations: sts.metadata?.annotations,
    replicas: sts.spec?.replicas,
    partition: rolling?.partition,
    maxUnavailable: rolling?.maxUnavailable,
    templateLabels: owned(sts.spec?.template.metadata?.labels),
    templateAnnotations: sts.spec?.template.metadata?.annotations,
  };
}

/** The fields the pod golden reports of a StatefulSet the pass created. */
export function createdFields(sts: StatefulSet): Record<string, unknown> {
  return {
    labels: sts.metadata?.labels,
    replicas: sts.spec?.replicas,
    serviceName: sts.spec?.serviceName,
    templateLabels: sts.spec?.template.metadata?.labels,
    templateAnnotations: sts.spec?.template.metadata?.annotations,
    nodeSelector: sts.spec?.template.spec?.nodeSelector ?? null,
    owner: sts.metadata?.ownerReferences,
    selector: sts.spec?.selector.matchLabels,
  };
}
