// Differential conformance of the JobSet controller: every scenario runs on upstream-1 (the JobSet manager of
// sigs.k8s.io/jobset with its webhooks, and kube-controller-manager's job-controller for the child Jobs) and on
// fleetq-1 (fleetq in this process, owning JobSet and Job, with fleetq's JobSet admission registered), and the
// normalized states (JobSets, their child Jobs and headless Services, the pods by Job) and events must agree. The
// scenarios spend most of their time waiting on pods and Job deletions, so several run at once
// (CONFORMANCE_PARALLEL overrides); the scale scenario (600 Jobs) runs after them, alone.
// Options (CONFORMANCE_B=upstream-1 for a harness self-check, CONFORMANCE_ONLY, …): test/helpers/conformance/suite.ts.
import { conformanceSuite } from '../helpers/conformance/suite.js';
import { JOBSET_SCALE_SCENARIOS, JOBSET_SCENARIOS } from './scenarios/jobset.js';

conformanceSuite('jobset', 'JobSet conformance', JOBSET_SCENARIOS, { parallel: 8 });
conformanceSuite('jobset-scale', 'JobSet conformance at scale', JOBSET_SCALE_SCENARIOS, { parallel: 1 });
