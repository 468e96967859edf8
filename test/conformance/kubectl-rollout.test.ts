// kubectl workflows (rollout status / undo / pause / resume / restart, scale) on fleetq-1 with the fleetq
// pipeline running, each also run on upstream-1: exit codes, final outputs and resulting states must agree.
// Options as in test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { KUBECTL_SCENARIOS } from './scenarios/kubectl-rollout.js';

conformanceSuite('kubectl-rollout', 'kubectl rollout workflows', KUBECTL_SCENARIOS);
