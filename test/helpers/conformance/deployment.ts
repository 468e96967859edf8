// The Deployment's reading of a snapshot: its spec as written (the template as compared, conformance/replicaset.ts),
// its status counts and conditions. Its ReplicaSets are the ReplicaSet plug-in's (named by revision there).
// Deployments are listed on every poll, before the ReplicaSets.
import type { ConformancePlugin, Naming } from './plugin.js';
import { comparedTemplate } from './replicaset.js';
import type { Snapshot } from './types.js';

function normalizeDeployments(s: Snapshot, n: Naming): { deployments: Record<string, unknown> } {
  const deployments: Record<string, unknown> = {};
  for (const d of s.deployments) {
    const st = d.status ?? {};
    deployments[d.metadata.name ?? '?'] = {
      annotations: n.annotations(d.metadata),
      spec: { ...d.spec, template: comparedTemplate(d.spec.template) },
      status: {
        observedCurrent: (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0),
        replicas: st.replicas,
        updatedReplicas: st.updatedReplicas,
        readyReplicas: st.readyReplicas,
        availableReplicas: st.availableReplicas,
        unavailableReplicas: st.unavailableReplicas,
        terminatingReplicas: st.terminatingReplicas,
        collisionCount: st.collisionCount,
      },
      conditions: n.conditions(st.conditions),
    };
  }
  return { deployments };
}

/** The Deployment plug-in: fleetq's Deployment and ReplicaSet controllers both run its scenarios. */
export const deploymentPlugin: ConformancePlugin = {
  kind: 'Deployment',
  needs: ['Deployment', 'ReplicaSet'],
  lists: [{ kind: 'Deployment', field: 'deployments', always: true, before: 'Pod' }],
  normalize: normalizeDeployments,
};
