// What fleetq owns on a sandbox cluster so that every workload there has a reconciler: the kind of each
// kube-controller-manager controller the cluster's mode turns off (modes.ts), no more (a kind whose upstream
// controller still runs would have two) and no fewer (its objects would sit unreconciled). The dev run
// (`npm start`: `fleetq run` with no registry) owns these on its cluster.
import { isKind, type Kind } from '../../shared/kube/kinds.js';
import { REPLACED_CONTROLLERS, SandboxMode } from './modes.js';

/** The kinds whose controller a cluster of this mode runs without: fleetq must own exactly these there. */
export function kindsTurnedOff(mode: SandboxMode): Kind[] {
  return mode === SandboxMode.Upstream ? [] : REPLACED_CONTROLLERS.map((c) => c.kind).filter(isKind);
}
