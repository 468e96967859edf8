// Differential conformance of the DaemonSet controller: every scenario runs on upstream-1 (kube-controller-manager's
// daemonset-controller) and on fleetq-1 (fleetq in this process, owning DaemonSet), and the normalized states
// (DaemonSets, their ControllerRevisions, their pods per node and revision) and events must agree.
// Options (CONFORMANCE_B=upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { DAEMONSET_SCENARIOS } from './scenarios/daemonset.js';

conformanceSuite('daemonset', 'DaemonSet conformance', DAEMONSET_SCENARIOS);
