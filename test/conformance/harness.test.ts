// The harness checks itself: normalization hides names, uids and timestamps but not behaviour, and a
// run whose sides really differ (an extra step on one side, a broken invariant) is reported as failing.
// Both live sides run on upstream-1, whatever CONFORMANCE_B says.
import { describe, expect, it } from '@jest/globals';
import { diff, normalize } from '../helpers/conformance-normalize.js';
import { runScenario, type ConformanceOptions } from '../helpers/conformance-runner.js';
import { replicaSetSettled } from '../helpers/conformance-predicates.js';
import type { Invariant, Pod, ReplicaSet, Snapshot } from '../helpers/conformance-types.js';
import { replicaSet } from './scenarios/builders.js';

const OPTIONS: ConformanceOptions = {
  a: { cluster: 'upstream-1', label: 'upstream-1' },
  b: { cluster: 'upstream-1', label: 'upstream-1#2' },
  exactHashes: false,
  strictEvents: false,
  keepFailed: false,
};

function snapshot(ns: string, suffix: string, o: { ready?: number } = {}): Snapshot {
  const rs: ReplicaSet = {
    metadata: {
      name: `web-${suffix}`,
      namespace: ns,
      uid: `uid-rs-${suffix}`,
      resourceVersion: suffix,
      generation: 1,
      creationTimestamp: `2025-01-01T00:00:0${suffix.length}Z`,
      labels: { app: 'web', 'pod-template-hash': suffix },
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: `uid-d-${suffix}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': suffix } },
      template: { metadata: { labels: { app: 'web', 'pod-template-hash': suffix } }, spec: {} },
    },
    status: { observedGeneration: 1, replicas: 2, readyReplicas: o.ready ?? 2, availableReplicas: o.ready ?? 2 },
  };
  const pod = (i: number, ready: boolean): Pod => ({
    metadata: {
      name: `web-${suffix}-${i}${suffix}`,
      uid: `uid-p-${i}-${suffix}`,
      labels: { app: 'web', 'pod-template-hash': suffix },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${suffix}`,
          uid: `uid-rs-${suffix}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {},
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2025-01-01T00:00:00Z' }],
    },
  });
  return {
    at: 0,
    deployments: [
      {
        metadata: { name: 'web', uid: `uid-d-${suffix}`, generation: 1 },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: {} } },
        status: {
          observedGeneration: 1,
          replicas: 2,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: `ReplicaSet "web-${suffix}" has successfully progressed.`,
              lastUpdateTime: suffix,
            },
          ],
        },
      },
    ],
    replicaSets: [rs],
    pods: [pod(1, true), pod(2, (o.ready ?? 2) === 2)],
  };
}

describe('conformance harness', () => {
  it('normalizes away names, uids, hashes and timestamps', () => {
    const a = normalize(snapshot('ns-a', 'aaaa'), 'ns-a');
    const b = normalize(snapshot('ns-b', 'bbbbbb'), 'ns-b');
    expect(diff(a.state, b.state)).toEqual([]);
    expect(diff(a.hashes, b.hashes)).toEqual([{ path: 'web@1', a: 'aaaa', b: 'bbbbbb' }]);
  });

  it('reports a behavioural difference path by path', () => {
    const a = normalize(snapshot('ns-a', 'aaaa'), 'ns-a');
    const b = normalize(snapshot('ns-b', 'bbbb', { ready: 1 }), 'ns-b');
    expect(diff(a.state, b.state)).toEqual([
      { path: 'pods.ReplicaSet/web@1.Running/ready', a: 2, b: 1 },
      { path: 'pods.ReplicaSet/web@1.Running/unready', a: undefined, b: 1 },
      { path: 'replicaSets.web@1.status.availableReplicas', a: 2, b: 1 },
      { path: 'replicaSets.web@1.status.readyReplicas', a: 2, b: 1 },
    ]);
  });

  it('fails a live run whose sides differ, with the differing paths', async () => {
    const r = await runScenario(
      {
        name: 'self-check-diff',
        kind: 'ReplicaSet',
        description: 'side B scales to 3, side A stays at 2',
        invariants: [],
        steps: [
          { do: 'create', objects: [replicaSet('frontend', { replicas: 2 })] },
          { do: 'on', side: 'b', step: { do: 'scale', kind: 'ReplicaSet', name: 'frontend', replicas: 3 } },
          { do: 'waitFor', what: 'settled', until: replicaSetSettled('frontend') },
          { do: 'compare', label: 'end', timeoutMs: 5_000 },
        ],
      },
      OPTIONS,
    );
    expect(r.ok).toBe(false);
    const paths = r.checkpoints.flatMap((c) => c.differences.map((d) => d.path));
    expect(paths).toEqual(
      expect.arrayContaining(['replicaSets.frontend.spec.replicas', 'pods.ReplicaSet/frontend.Running/ready']),
    );
    expect(r.report).toContain('upstream-1#2: 3');
  });

  it('fails a live run that breaks an invariant', async () => {
    const atMostTwo: Invariant = {
      name: 'at most 2 pods',
      graceMs: 0,
      check: (s) => (s.pods.length > 2 ? `${s.pods.length} pods` : null),
    };
    const r = await runScenario(
      {
        name: 'self-check-invariant',
        kind: 'ReplicaSet',
        description: 'a ReplicaSet of 3 against an invariant of at most 2 pods',
        invariants: [atMostTwo],
        steps: [
          { do: 'create', objects: [replicaSet('frontend', { replicas: 3 })] },
          { do: 'waitFor', what: 'settled', until: replicaSetSettled('frontend') },
          { do: 'compare', label: 'end' },
        ],
      },
      OPTIONS,
    );
    expect(r.ok).toBe(false);
    expect(r.failures).toEqual([
      'upstream-1: invariant at most 2 pods: 3 pods (held 0 ms)',
      'upstream-1#2: invariant at most 2 pods: 3 pods (held 0 ms)',
    ]);
  });
});
