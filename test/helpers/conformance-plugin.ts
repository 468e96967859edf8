// What a kind brings to the differential conformance harness, in one object: the fleetq controllers its scenarios
// need, the resources a snapshot lists for it, how its objects and its pods compare across the two sides, and whose
// Events are compared. The harness (client, normalizer, suite, fleetq's owned kinds) reads these from the plug-ins
// registered in conformance-plugins.ts, so a kind is its plug-in file, its scenarios, its suite file and one
// registration line. Invariants and waits are plain functions a kind's scenarios import from its plug-in file.
import type { Pod, Snapshot } from './conformance-types.js';

/** A listed resource: into a typed Snapshot field, or (a kind the base types lack: a CRD) into `custom[kind]`. */
export type PluginList = {
  readonly kind: string;
  readonly field?: 'cronJobs' | 'daemonSets' | 'statefulSets' | 'controllerRevisions';
  /** Listed before the Jobs (a CronJob's status is read before its Jobs); default: after the pods. */
  readonly beforeJobs?: boolean;
};

export type ConformancePlugin = {
  /** The scenario kind (Scenario['kind']) it serves. */
  readonly kind: string;
  /** fleetq's controllers a scenario of this kind needs registered and owned (a Deployment needs both its own and ReplicaSet's). */
  readonly needs: readonly string[];
  /**
   * Resources a snapshot lists once the scenario created an object of `kind` on the side (a poll lists no more than
   * the scenario uses); nothing: the base lists (Deployments, ReplicaSets, Jobs, pods) are enough.
   */
  readonly lists?: readonly PluginList[];
  /** Its part of the normalized state, given a snapshot that lists its resources. */
  readonly normalize?: (s: Snapshot) => Readonly<Record<string, Record<string, unknown>>>;
  /** What a pod whose controller is of `kind` adds to its state (e.g. its node and revision). */
  readonly podParts?: (s: Snapshot, p: Pod) => string[];
  /** The involvedObject kinds whose Events are compared (reason + type per object); default: `kind`. */
  readonly eventKinds?: readonly string[];
};
