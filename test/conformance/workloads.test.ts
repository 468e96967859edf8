// Differential conformance of ReplicaSet, Deployment, Job and TTL-after-finished: every scenario runs at once on
// upstream-1 (the upstream controllers) and on fleetq-1 (fleetq in this process), and the normalized states must
// agree.
// Options (CONFORMANCE_B=upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { DEPLOYMENT_SCENARIOS } from './scenarios/deployment.js';
import { JOB_POLICY_SCENARIOS } from './scenarios/job-policies.js';
import { JOB_SCENARIOS } from './scenarios/job.js';
import { JOB_TRACKING_SCENARIOS } from './scenarios/job-tracking.js';
import { REPLICASET_SCENARIOS } from './scenarios/replicaset.js';
import { TTL_SCENARIOS } from './scenarios/ttl-after-finished.js';

conformanceSuite('workloads', 'ReplicaSet, Deployment, Job and TTL-after-finished conformance', [
  ...REPLICASET_SCENARIOS,
  ...DEPLOYMENT_SCENARIOS,
  ...JOB_SCENARIOS,
  ...JOB_POLICY_SCENARIOS,
  ...JOB_TRACKING_SCENARIOS,
  ...TTL_SCENARIOS,
]);
