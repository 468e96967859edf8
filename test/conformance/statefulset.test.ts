// Differential conformance of the StatefulSet controller: every scenario runs on upstream-1 (kube-controller-manager's
// statefulset-controller) and on fleetq-1 (fleetq in this process, owning StatefulSet), and the normalized states
// (StatefulSets, their ControllerRevisions, their pods by name and revision) and events must agree.
// Options (CONFORMANCE_B=upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { STATEFULSET_SCENARIOS } from './scenarios/statefulset.js';

conformanceSuite('statefulset', 'StatefulSet conformance', STATEFULSET_SCENARIOS);
