// The LeaderWorkerSet controller (sigs.k8s.io/lws v0.9.0, API leaderworkerset.x-k8s.io/v1): two controllers, one
// per key kind, with their descriptors (descriptor.ts), registered in controllers/index.ts (opt-in: a cluster owns
// both kinds or neither, and, for the pods to exist, StatefulSet too).
//
// ## Upstream: two reconcilers in one manager
//
// - LeaderWorkerSetReconciler, keyed by the LeaderWorkerSet (For LWS; Owns StatefulSet and Service; Watches every
//   StatefulSet with the leaderworkerset.sigs.k8s.io/name label, mapped to that name, so worker StatefulSets wake
//   their set too). One pass: the current revision (created if missing) → a new revision when the template changed
//   → the rolling update's partition and replicas → server-side apply of the leader StatefulSet (field manager
//   "lws", forced) → the shared headless Service if missing → status (an Update of the whole object) → once the
//   update is done, delete the other revisions. reconcile.ts composes that pass from the files below.
// - PodReconciler, keyed by a pod (For Pod; Owns StatefulSet; an event filter keeps pods and StatefulSets with the
//   name label). Any pod of a group: the restart policy (restart-policy.ts), which may delete the group's leader
//   (foreground). A leader pod then: its group's headless Service under UniquePerReplica, and its worker
//   StatefulSet, created once (worker-statefulset.ts planLeaderPod). pod-reconcile.ts composes that pass.
//
// ## In fleetq: two key kinds, one handler each
//
// A key names one object and the runtime picks the controller by key kind, so each upstream reconciler becomes a
// descriptor of its own, as TTLAfterFinished has a key kind of its own for Jobs:
//
// 1. `LeaderWorkerSet` — for: LeaderWorkerSet; owns: StatefulSet (the leader StatefulSet) and Service (the shared
//    one), adopting nothing; watches: StatefulSet by its name label (upstream's map function), so a worker
//    StatefulSet (whose controller is a leader pod) yields `<ns>/<lws>`. No pod watch, as upstream: a leader pod's
//    readiness reaches the set through the leader StatefulSet's status.
//    observe: GET the LWS; GET StatefulSet `<lws>`; LIST the namespace's ControllerRevisions (revisionsOf keeps its
//    own and orphans with its name label); LIST pods with name=<lws>, worker-index=0; LIST StatefulSets with
//    name=<lws> (worker StatefulSets, by group index for replicaStates and by name for status); GET Service `<lws>`
//    under Shared (the lists are namespace lists filtered by label, which the cache answers; observe.ts). plan:
//    reconcile.ts, then its steps as actions in upstream's order, the status write last.
// 2. `LeaderWorkerSetPod` — its keys name pods. for: Pod, keys only for pods with the name label; owns: StatefulSet
//    (a worker StatefulSet's controller is its leader pod). No Service: upstream does not watch UniquePerReplica's.
//    observe: GET the pod; GET its LWS by the label (gone: nothing to do); when the policy recreates groups and the
//    pod restarted or is being deleted: the group's pods (name and group-index labels), and for a worker its leader
//    pod by name (leaderNameOf) and its controlling StatefulSet by name. For a leader pod: the LWS's revisions,
//    Service `<pod>` under UniquePerReplica, StatefulSet `<pod>`, and with exclusive placement and a node name, the
//    Node's labels. plan: restartDecision (delete the leader: foreground, uid precondition, RecreateGroup event),
//    else for a leader planLeaderPod.
//
// observe.ts reads both; plan.ts (LeaderWorkerSet) and pod-plan.ts (LeaderWorkerSetPod) turn the passes into
// actions. The leader StatefulSet is server-side applied as upstream applies it: an `apply` action (PATCH
// application/apply-patch+yaml) every pass, with leader-statefulset.ts's configuration (upstream's applied object,
// field for field), field manager "lws", forced. Field ownership is upstream's too: a leader StatefulSet upstream's
// manager applied is taken over as it is, a field lws stops applying is removed, another manager's field is kept;
// an unchanged configuration writes nothing on the server. Worker StatefulSets are created, as upstream creates
// them (its PodReconciler's Create, not an apply).
//
// ## Beyond upstream, opt-in: the group-restart backoff
//
// A LeaderWorkerSet annotated `fleetq.dev/group-restart-backoff: "true"` (or a recreation limit, 1–1000; default
// 10) has a group that keeps failing recreated after 10 s, 20 s, 40 s … (cap 5 min), and past the limit not at all:
// condition GroupRestartLimitReached (fleetq's type) and a Warning Event on the set. The state is an annotation on
// the leader StatefulSet. restart-backoff.ts has the rules and why; restart-backoff-pass.ts wraps the pod key's
// observe and plan. Without the annotation the pass is upstream's.
//
// ## Where fleetq differs
//
// - Events: upstream records events.k8s.io/v1 Events (an action, a related object: LwsEvent keeps both); fleetq's
//   recorder writes core/v1 Events, which have neither. Upstream records the condition event before its status
//   write; fleetq records events after the writes succeed.
// - Not ported: the scheduler provider (Volcano PodGroups, gang scheduling), DisaggregatedSet (the module's other
//   CRD), the revision-equality cache (an optimisation: setMatchesRevision is recomputed). The LWS and pod webhooks
//   (LWS_* and TPU_* env, group keys, exclusive affinities) are admission's, in shared/admission/.
// - typed-json.ts's known gaps (revision keys then differ from upstream's, revision equality does not): a
//   non-omitempty scalar written with its zero value, and a quantity written as a JSON number.
import type { Controller } from '../controller.js';
import { observeLeaderWorkerSet } from './observe.js';
import { planLeaderWorkerSetActions } from './plan.js';
import {
  observeLwsPodWithBackoff,
  planLwsPodWithBackoff,
  type ObservedLwsPodWithBackoff,
} from './restart-backoff-pass.js';
import type { ObservedLeaderWorkerSet } from './reconcile.js';
import { LWS_KIND, LWS_POD_KEY_KIND } from './types.js';

export * from './types.js';
export { currentRevision, updatedRevision, revisionsToTruncate, newRevision, revisionKeyOf } from './revision.js';
export { leaderStatefulSet } from './leader-statefulset.js';
export { workerStatefulSet, planLeaderPod } from './worker-statefulset.js';
export { sharedHeadlessService, groupHeadlessService } from './headless-service.js';
export { rollingUpdateParameters } from './rolling-update.js';
export { computeStatus } from './status.js';
export { restartDecision } from './restart-policy.js';
export { planLeaderWorkerSet } from './reconcile.js';
export { planLwsPod } from './pod-reconcile.js';

/** The LeaderWorkerSet key: LeaderWorkerSetReconciler. Creates go in slow start, as upstream sends them one by one. */
export const leaderWorkerSetController: Controller<ObservedLeaderWorkerSet> = {
  kind: LWS_KIND,
  observe: observeLeaderWorkerSet,
  plan: planLeaderWorkerSetActions,
};

/**
 * The LeaderWorkerSetPod key: PodReconciler, with fleetq's opt-in group-restart backoff around it
 * (restart-backoff.ts; without its annotation, upstream's pass as it is).
 */
export const leaderWorkerSetPodController: Controller<ObservedLwsPodWithBackoff> = {
  kind: LWS_POD_KEY_KIND,
  observe: observeLwsPodWithBackoff,
  plan: planLwsPodWithBackoff,
};
