// The fleet rollout pin on a DaemonSet (docs/decisions/fleet-rollout-gate.md, docs/controllers/daemonset.md
// "Fleet rollout pin"): which ControllerRevision this pass makes pods from and rolls to, instead of the
// template's, when a FleetRollout paces the DaemonSet. The pin holds a revision's hash: its
// `controller-revision-hash` label, which its pods carry too.
import type { ControllerRevision, DaemonSet, Pod, PodTemplateSpec } from '../../kube/api/objects.js';
import { PIN_CONDITION_TYPE, PIN_REASON, type Pin } from '../../rollouts/pin.js';
import { revisionNumber } from '../common/controller-history.js';
import type { PinVerdict } from '../common/fleet-pin-condition.js';
import { REVISION_HASH_LABEL, TEMPLATE_GENERATION_ANNOTATION } from './types.js';

export type DaemonSetGate = {
  /**
   * The DaemonSet the core loop and the rolling update see: its template is the pinned revision's, without the
   * legacy template-generation annotation (so no pod counts as updated by generation); the DaemonSet itself when
   * upstream's.
   */
  readonly ds: DaemonSet;
  /** The hash pods are made at and rolled to; null: no pod is made for a node that lacks one. */
  readonly hash: string | null;
  /** Whether outdated pods are replaced (RollingUpdate). */
  readonly rolls: boolean;
  /** The hash and DaemonSet the status counts as updated against. */
  readonly statusHash: string;
  readonly statusDs: DaemonSet;
  readonly verdict: PinVerdict;
  readonly admittedMessage: string;
};

const hashOf = (cr: ControllerRevision): string => cr.metadata?.labels?.[REVISION_HASH_LABEL] ?? '';
const podHash = (p: Pod): string => p.metadata?.labels?.[REVISION_HASH_LABEL] ?? '';

/** ApplyRevision: the pod template a revision restores. */
function templateOf(cr: ControllerRevision): PodTemplateSpec {
  const spec = (cr.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec;
  const template = { ...spec?.template };
  delete template.$patch;
  return template as PodTemplateSpec;
}

/** The DaemonSet as if its template were the revision's. */
function atRevision(ds: DaemonSet, cr: ControllerRevision): DaemonSet {
  const annotations = { ...ds.metadata?.annotations };
  delete annotations[TEMPLATE_GENERATION_ANNOTATION];
  return {
    ...ds,
    metadata: { ...ds.metadata, annotations },
    spec: { ...ds.spec!, template: templateOf(cr) },
  };
}

/**
 * The gate for this pass. `template` is the hash of the template's revision (constructHistory's, recorded as
 * upstream does whatever the pin); `revisions` the DaemonSet's ControllerRevisions as observed.
 *
 * - no pin: upstream's, a FleetRollout condition left from an earlier pin removed; the pin admits the template's hash: upstream's, the condition
 *   removed;
 * - the pin admits another revision R it has: pods for nodes that lack one are made from R, and the rolling update
 *   (RollingUpdate) replaces the others with R's, within maxUnavailable / maxSurge; OnDelete recreates deleted pods
 *   from R. RolledBackByFleetRollout when R is older than the template's revision T and T has run (a pod of T, or
 *   the same rollback already reported): the status counts R's pods as updated; otherwise WaitingForFleetRollout,
 *   and the status counts T's (so `kubectl rollout status` keeps waiting);
 * - admitted '': held where the DaemonSet stands: nothing replaced; pods for new nodes from the newest revision its
 *   pods run, else the newest revision other than the template's, else none;
 * - a revision it does not have, or a malformed pin: as '' with FleetRolloutRevisionUnknown;
 * - the frozen annotation names the admitted revision (the template's or R): as above, but no pod is replaced
 *   (no old pod deleted, none surged); pods for nodes that lack one are still made at the admitted revision.
 *   FrozenByFleetRollout.
 */
export function daemonSetGate(
  ds: DaemonSet,
  pin: Pin | undefined,
  revisions: readonly ControllerRevision[],
  template: string,
  pods: readonly Pod[],
): DaemonSetGate {
  const rollout = pin?.rollout ?? '';
  const admittedMessage = `FleetRollout ${rollout} admits the template's revision ${template}`;
  const upstream = { ds, hash: template, rolls: true, statusHash: template, statusDs: ds, admittedMessage };
  if (pin === undefined) {
    // Upstream's. A condition left by a FleetRollout that stopped pacing it (it removed the annotations) goes.
    const stale = (ds.status?.conditions ?? []).some((c) => c.type === PIN_CONDITION_TYPE);
    const released = `No FleetRollout paces the DaemonSet any more: the template's revision ${template} rolls`;
    return { ...upstream, verdict: stale ? null : undefined, admittedMessage: released };
  }
  const frozen = (gate: DaemonSetGate): DaemonSetGate => {
    if (pin.state !== 'pinned' || !pin.frozen) return gate;
    const waits = pin.admitted === template ? '' : `; the template's revision ${template} waits`;
    const message = `FleetRollout ${rollout} froze the rollout of revision ${pin.admitted} where the DaemonSet stands: no pod is replaced${waits}`;
    return { ...gate, rolls: false, verdict: { reason: PIN_REASON.Frozen, message } };
  };
  if (pin.state === 'pinned' && pin.admitted === template) return frozen({ ...upstream, verdict: null });

  const byNumber = [...revisions].sort((a, b) => revisionNumber(b) - revisionNumber(a));
  const held = (reason: string, why: string): DaemonSetGate => {
    const running = new Set(pods.map(podHash));
    const stand = byNumber.find((cr) => running.has(hashOf(cr))) ?? byNumber.find((cr) => hashOf(cr) !== template);
    const at = stand === undefined ? 'no revision' : `revision ${hashOf(stand)}`;
    return {
      ds: stand === undefined ? ds : atRevision(ds, stand),
      hash: stand === undefined ? null : hashOf(stand),
      rolls: false,
      statusHash: template,
      statusDs: ds,
      verdict: { reason, message: `FleetRollout ${rollout} ${why}: held at ${at}` },
      admittedMessage,
    };
  };
  if (pin.state === 'malformed') return held(PIN_REASON.Unknown, `pin is unusable (${pin.message})`);
  if (pin.admitted === '') {
    return held(PIN_REASON.Waiting, `has admitted no revision; the template's revision ${template} waits`);
  }
  const pinned = byNumber.find((cr) => hashOf(cr) === pin.admitted);
  if (pinned === undefined) {
    return held(PIN_REASON.Unknown, `admits revision ${pin.admitted}, which is not in the DaemonSet's history`);
  }
  const templateRev = byNumber.find((cr) => hashOf(cr) === template);
  const rolledBackMessage = `FleetRollout ${rollout} rolled back to revision ${pin.admitted} from the template's revision ${template}`;
  const rolledBack =
    (templateRev === undefined || revisionNumber(pinned) < revisionNumber(templateRev)) &&
    (pods.some((p) => podHash(p) === template) ||
      (ds.status?.conditions ?? []).some(
        (c) => c.type === PIN_CONDITION_TYPE && c.reason === PIN_REASON.RolledBack && c.message === rolledBackMessage,
      ));
  const at = atRevision(ds, pinned);
  return frozen({
    ds: at,
    hash: pin.admitted,
    rolls: true,
    statusHash: rolledBack ? pin.admitted : template,
    statusDs: rolledBack ? at : ds,
    verdict: rolledBack
      ? { reason: PIN_REASON.RolledBack, message: rolledBackMessage }
      : {
          reason: PIN_REASON.Waiting,
          message: `FleetRollout ${rollout} admits revision ${pin.admitted}; the template's revision ${template} waits`,
        },
    admittedMessage,
  });
}
