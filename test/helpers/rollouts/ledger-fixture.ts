// A FleetRollout as it stands mid-rollout, ledger and all, for the `fleetq rollout` tests: two waves, canary
// (eu-1 succeeded and soaked, us-2 admitted and soaking) and rest (approval: true, ap-3 not admitted, waiting for
// its approval); an older revision before it, superseded. `stopped`: the same revision rolled back instead (us-2
// failed with ImagePullBackOff, eu-1 returned to the previous revision).
export const CURRENT_REVISION = '5d8f7c9b4';
export const PREVIOUS_REVISION = '7b6c5d4e3';

export type RawRollout = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; [k: string]: unknown };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
};

export function ledgerRollout(
  name: string,
  namespace: string,
  now: number,
  o: { readonly stopped?: boolean } = {},
): RawRollout {
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const current = o.stopped
    ? {
        revision: CURRENT_REVISION,
        attempt: 1,
        startedAt: at(30),
        phase: 'RolledBack',
        wave: '',
        stoppedAt: at(2),
        stopReason: '1 cluster failed (us-2), past the budget of 0',
        clusters: [
          {
            cluster: 'eu-1',
            wave: 'canary',
            admittedAt: at(29),
            previousRevision: PREVIOUS_REVISION,
            verdict: 'RolledBack',
            verdictAt: at(1),
            reason: 'RolledBackByFleetRollout',
            observedGeneration: 8,
          },
          {
            cluster: 'us-2',
            wave: 'canary',
            admittedAt: at(12),
            previousRevision: PREVIOUS_REVISION,
            verdict: 'Failed',
            verdictAt: at(2),
            reason: 'FailureSignature',
            failure: { signature: 'ImagePullBackOff', image: 'shop/web:2' },
            failedAt: at(2),
            observedGeneration: 4,
          },
          { cluster: 'ap-3', wave: 'rest' },
        ],
      }
    : {
        revision: CURRENT_REVISION,
        attempt: 1,
        startedAt: at(30),
        phase: 'Progressing',
        wave: 'canary',
        clusters: [
          {
            cluster: 'eu-1',
            wave: 'canary',
            admittedAt: at(29),
            previousRevision: PREVIOUS_REVISION,
            availableSince: at(25),
            verdict: 'Succeeded',
            verdictAt: at(15),
            reason: 'AvailableAndSoaked',
            observedGeneration: 7,
          },
          {
            cluster: 'us-2',
            wave: 'canary',
            admittedAt: at(12),
            previousRevision: PREVIOUS_REVISION,
            availableSince: at(4),
            reason: 'Available',
            observedGeneration: 3,
          },
          { cluster: 'ap-3', wave: 'rest' },
        ],
      };
  return {
    apiVersion: 'fleetq.dev/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name, namespace },
    spec: {
      target: { kind: 'Deployment', namespace: 'shop', name: 'web' },
      clusters: { matchLabels: { env: 'prod' } },
      waves: [
        { name: 'canary', clusters: { names: ['eu-1', 'us-2'] }, maxConcurrency: 1, soak: '10m' },
        { name: 'rest', maxConcurrency: '25%', approval: true },
      ],
      progressDeadline: '10m',
      failureBudget: { maxFailedClusters: 0 },
      onFailure: 'Rollback',
      paused: false,
    },
    status: {
      observedGeneration: 1,
      phase: o.stopped ? 'RolledBack' : 'Progressing',
      revision: CURRENT_REVISION,
      wave: o.stopped ? '' : 'canary',
      approvals: [{ revision: PREVIOUS_REVISION, wave: 'rest', at: at(600) }],
      revisions: [
        {
          revision: PREVIOUS_REVISION,
          attempt: 1,
          startedAt: at(900),
          phase: 'Superseded',
          wave: '',
          clusters: [{ cluster: 'eu-1', wave: 'canary', admittedAt: at(899), verdict: 'Succeeded' }],
        },
        current,
      ],
    },
  };
}
