// What a kind brings to the differential conformance harness, in one object: the fleetq controllers its scenarios
// need, the resources a snapshot lists for it, how its objects are named and compared across the two sides, what
// its pods add to their state, and whose Events are compared. The harness core (client, normalizer, runner, suite,
// fleetq's owned kinds) names no kind: it reads all of this from the plug-ins registered in conformance/plugins.ts,
// so a kind is its plug-in file, its scenarios, its suite file and one registration line. Invariants and waits are
// plain functions a kind's scenarios import from its plug-in file.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Condition, KubeEvent, ObjectMeta, OwnerRef, Pod, Snapshot } from './types.js';

/** The typed Snapshot fields a list can fill (the rest of a plug-in's kinds go to `custom[kind]`). */
export type SnapshotListField = {
  [K in keyof Snapshot]-?: NonNullable<Snapshot[K]> extends readonly { metadata: ObjectMeta }[] ? K : never;
}[keyof Snapshot];

/** A listed resource: into a typed Snapshot field, or (a kind the base types lack: a CRD) into `custom[kind]`. */
export type PluginList = {
  readonly kind: string;
  readonly field?: SnapshotListField;
  /** Listed on every poll, whatever the scenario created (a base kind: its Snapshot field is always there). */
  readonly always?: boolean;
  /**
   * Listed just before this kind's list: an owner's status is read before what it owns, so an object it counts is
   * already in the same sample (a Job's before its pods, a CronJob's before its Jobs). Default: after the pods.
   */
  readonly before?: string;
};

/** How a kind's objects are named in the comparison where their names differ between the sides. */
export type ObjectNames = {
  /** The key of the object an owner reference names. */
  readonly byOwnerRef: (ref: OwnerRef) => string;
  /** The key of an object known by name only (an Event's involvedObject, a status reference): it may be gone. */
  readonly byName: (name: string) => string;
  /** Names quoted in messages (`"web-5d8f7c"`), each written `"<key>"` instead when it differs from its key. */
  readonly inText?: ReadonlyMap<string, string>;
};

/** The side's names as the normalizer hands them to a plug-in: every plug-in's ObjectNames, and text made comparable. */
export type Naming = {
  /** The key of an object of `kind` by name (its plug-in's ObjectNames.byName, else the name). */
  key(kind: string, name: string): string;
  /** `<kind>/<key>` of the controller, flagged when blockOwnerDeletion is not set; null without one. */
  owner(m: ObjectMeta): string | null;
  /** A message with pod names, the namespace and renamed objects replaced. */
  text(m: string | undefined): string | undefined;
  /** Conditions by type: status, reason and message (as `text`). */
  conditions(cs: readonly Condition[] | undefined): Record<string, unknown>;
  /** Annotations with their values as `text`. */
  annotations(m: ObjectMeta): Record<string, string | undefined>;
};

export type ConformancePlugin = {
  /** The scenario kind (Scenario['kind']) it serves. */
  readonly kind: string;
  /** fleetq's controllers a scenario of this kind needs registered and owned (a Deployment needs both its own and ReplicaSet's). */
  readonly needs: readonly string[];
  /**
   * Resources a snapshot lists: the `always` ones on every poll, the others once the scenario created an object of
   * `kind` on the side (a poll lists no more than the scenario uses). Pods are the core's base list.
   */
  readonly lists?: readonly PluginList[];
  /** How objects of `kind` are keyed (default: by name), given the snapshot. */
  readonly names?: (s: Snapshot) => ObjectNames;
  /** Its part of the normalized state, given a snapshot that lists its own resources. */
  readonly normalize?: (s: Snapshot, naming: Naming) => Readonly<Record<string, Record<string, unknown>>>;
  /** What a pod whose controller is of `kind` adds to its state (e.g. its node and revision). */
  readonly podParts?: (s: Snapshot, p: Pod, naming: Naming) => string[];
  /**
   * Finalizers `kind`'s controller puts on pods, each with the word a pod of any owner (or none) carrying it shows
   * after its owner's parts (a pod the controller released must not keep it).
   */
  readonly podFinalizers?: Readonly<Record<string, string>>;
  /** Consistency flags of a pod whose controller is of `kind`, after the finalizers (e.g. `hash≠owner`). */
  readonly podChecks?: (s: Snapshot, p: Pod) => string[];
  /** Raw values compared byte for byte only when asked (CONFORMANCE_EXACT_HASH), by object key. */
  readonly hashes?: (s: Snapshot) => Record<string, string>;
  /** The involvedObject kinds whose Events are compared (reason + type per object); default: `kind`. */
  readonly eventKinds?: readonly string[];
  /**
   * Events of its kinds left out of the comparison: only those an upstream controller records by a race of its
   * informer cache (so they come and go between runs), each named with that race in the plug-in's comment.
   */
  readonly racyEvent?: (e: KubeEvent) => boolean;
  /**
   * What fleetq's side of a cluster needs besides fleetq for this kind, started before fleetq and stopped after it
   * (e.g. the admission webhooks that upstream's side gets from its add-on controller).
   */
  readonly fleetqSide?: (cluster: { readonly kc: KubeConfig; readonly root: string }) => Promise<{
    stop(): Promise<void>;
  }>;
};
