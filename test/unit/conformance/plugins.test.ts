// The conformance harness reads what is per kind from its plug-ins (test/helpers/conformance/plugins.ts): what a
// snapshot lists once a scenario created an object of a kind, what fleetq owns, whose Events are compared, and
// each kind's part of the normalized state (a CRD kind's lists land in Snapshot.custom).
import { describe, expect, it } from '@jest/globals';
import { pluginLists } from '../../helpers/conformance/client.js';
import { normalize } from '../../helpers/conformance/normalize.js';
import { comparedEventKinds, ownedKinds, pluginOf } from '../../helpers/conformance/plugins.js';
import type { Snapshot } from '../../helpers/conformance/types.js';

const base: Snapshot = { at: 0, deployments: [], replicaSets: [], jobs: [], pods: [] };

describe('conformance plug-ins', () => {
  it('list a kind with its dependents only once it was created (the base lists always), own objects before dependents', () => {
    const created = (kinds: string[]): string[] =>
      pluginLists(new Set(kinds))
        .filter((l) => l.always !== true)
        .map((l) => l.kind);
    expect(created(['Deployment'])).toEqual([]);
    expect(pluginLists(new Set(['CronJob']))).toContainEqual({ kind: 'CronJob', field: 'cronJobs', before: 'Job' });
    expect(created(['DaemonSet', 'StatefulSet'])).toEqual(['DaemonSet', 'StatefulSet', 'ControllerRevision']);
    // A CRD kind (no Snapshot field: into custom) before the Jobs it owns, its Service after.
    const jobSetLists = pluginLists(new Set(['JobSet'])).map((l) => l.kind);
    expect(jobSetLists.indexOf('JobSet')).toBeLessThan(jobSetLists.indexOf('Job'));
    expect(created(['JobSet'])).toEqual(['JobSet', 'Service', 'PersistentVolumeClaim']);
  });

  it('say what fleetq owns and whose Events are compared', () => {
    expect(ownedKinds().sort()).toEqual(
      [
        'CronJob',
        'DaemonSet',
        'Deployment',
        'Job',
        'JobSet',
        'LeaderWorkerSet',
        'LeaderWorkerSetPod',
        'ReplicaSet',
        'StatefulSet',
        'TTLAfterFinished',
      ].sort(),
    );
    expect([...comparedEventKinds()].sort()).toEqual(
      ['CronJob', 'DaemonSet', 'Deployment', 'Job', 'JobSet', 'LeaderWorkerSet', 'ReplicaSet', 'StatefulSet'].sort(),
    );
    expect(pluginOf('Deployment').needs).toEqual(['Deployment', 'ReplicaSet']);
    expect(() => pluginOf('Widget')).toThrow('no conformance plug-in for kind Widget');
  });

  it("add a kind's part to the normalized state only when its objects are listed", () => {
    const set = {
      metadata: { name: 'web', uid: 's1', generation: 1 },
      spec: { selector: {}, template: {} },
      status: { observedGeneration: 1, replicas: 0, currentRevision: '', updateRevision: '' },
    };
    const plain = normalize(base, 'ns').state;
    expect(Object.keys(plain).sort()).toEqual(['deployments', 'pods', 'replicaSets']);
    const withSets = normalize({ ...base, statefulSets: [set], controllerRevisions: [] }, 'ns').state;
    expect(Object.keys(withSets).sort()).toEqual([
      'controllerRevisions',
      'deployments',
      'pods',
      'replicaSets',
      'statefulSets',
    ]);
    expect(withSets.statefulSets?.web).toMatchObject({ status: { observedCurrent: true, replicas: 0 } });
    const jobSet = {
      metadata: { name: 'train', uid: 'j1' },
      spec: { replicatedJobs: [{ name: 'w', replicas: 1, template: { spec: { resources: {} } } }] },
      status: { restarts: 1, replicatedJobsStatus: [{ name: 'w', active: 1, ready: 1 }] },
    };
    const withJobSets = normalize({ ...base, custom: { JobSet: [jobSet], Service: [] } }, 'ns').state;
    expect(withJobSets.jobSets?.train).toMatchObject({
      spec: { replicatedJobs: [{ name: 'w', replicas: 1 }] },
      status: { restarts: 1, replicatedJobsStatus: { w: { active: 1, ready: 1 } } },
    });
  });

  it("leave out only the events a plug-in names as an upstream cache race (JobSet's AlreadyExists on create)", () => {
    const event = (reason: string, message: string) => ({
      metadata: { name: reason },
      involvedObject: { kind: 'JobSet', name: 'train' },
      reason,
      message,
      type: 'Warning',
    });
    const exists = 'job "train-w-0" creation failed with error: jobs.batch "train-w-0" already exists';
    const refused = 'job "train-w-1" creation failed with error: jobs.batch "train-w-1" is forbidden: exceeded quota';
    const events = (...es: ReturnType<typeof event>[]) => normalize(base, 'ns', es).events;
    expect(events(event('JobCreationFailed', exists))).toEqual({});
    expect(events(event('JobCreationFailed', `${exists}\n${refused}`))).toEqual({
      'JobSet/train': { 'JobCreationFailed (Warning)': true },
    });
    expect(events(event('RestartJobSetFailurePolicyAction', exists))).toEqual({
      'JobSet/train': { 'RestartJobSetFailurePolicyAction (Warning)': true },
    });
  });
});
