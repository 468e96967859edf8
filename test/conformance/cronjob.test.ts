// Differential conformance of the CronJob controller: every scenario runs at once on upstream-1 (kube-controller-
// manager's cronjob-controller and job-controller) and on fleetq-1 (fleetq in this process, owning CronJob and
// Job), and the normalized states and events must agree. The scenarios wait for runs on the minute, so they all run
// at once (their pollers are most of the load; CONFORMANCE_PARALLEL overrides).
// Options (CONFORMANCE_B=upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { CRONJOB_SCENARIOS } from './scenarios/cronjob.js';

conformanceSuite('cronjob', 'CronJob conformance', CRONJOB_SCENARIOS, { parallel: CRONJOB_SCENARIOS.length });
