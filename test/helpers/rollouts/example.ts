// The FleetRollout of the fleet rollouts design's example (web across prod clusters in three waves), as a
// cluster would hold it: what the parser, the CRD and the planner tests start from.
export const EXAMPLE_SPEC = {
  target: { kind: 'Deployment', namespace: 'shop', name: 'web' },
  clusters: { matchLabels: { env: 'prod' } },
  waves: [
    { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '10m' },
    { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, soak: '5m' },
    { name: 'rest', maxConcurrency: '25%' },
  ],
  progressDeadline: '10m',
  failureBudget: { maxFailedClusters: 1 },
  onFailure: 'Rollback',
  paused: false,
};

/** The example named `name` in `namespace`, its spec with `spec`'s fields in place of the example's. */
export function exampleRollout(name = 'web', namespace = 'fleetq-system', spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'fleetq.dev/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name, namespace },
    spec: { ...EXAMPLE_SPEC, ...spec },
  };
}
