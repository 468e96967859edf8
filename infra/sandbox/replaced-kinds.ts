// What fleetq owns on a sandbox cluster so that every workload there has a reconciler: the kind of each
// kube-controller-manager controller the cluster's mode turns off (modes.ts), no more (a kind whose upstream
// controller still runs would have two) and no fewer (its objects would sit unreconciled). The dev run
// (`npm start`: `fleetq run` with no registry) owns these on its cluster.
import type { Kind } from '../../shared/kube/kinds.js';
import { SandboxMode, WORKLOAD_CONTROLLERS } from './modes.js';

type WorkloadController = (typeof WORKLOAD_CONTROLLERS)[number];

/** The kind fleetq reconciles in each controller's place; a controller added to the list must name one here. */
const REPLACED_BY: Readonly<Record<WorkloadController, Kind>> = {
  'deployment-controller': 'Deployment',
  'replicaset-controller': 'ReplicaSet',
  'statefulset-controller': 'StatefulSet',
  'daemonset-controller': 'DaemonSet',
  'job-controller': 'Job',
  'cronjob-controller': 'CronJob',
  'ttl-after-finished-controller': 'TTLAfterFinished',
};

/** The kinds whose controller a cluster of this mode runs without: fleetq must own exactly these there. */
export function kindsTurnedOff(mode: SandboxMode): Kind[] {
  return mode === SandboxMode.Upstream ? [] : WORKLOAD_CONTROLLERS.map((c) => REPLACED_BY[c]);
}
