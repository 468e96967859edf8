// The conformance plug-ins, one registration line per kind (conformance-plugin.ts says what a plug-in carries).
// Deployment, ReplicaSet, Job, CronJob and TTLAfterFinished are compared by the base normalizer
// (conformance-normalize.ts: ReplicaSets named by revision, Jobs by index and by CronJob run); their plug-ins say
// only what they need. A new kind's plug-in brings its own lists and normalizer instead.
import { daemonSetPlugin } from './conformance-daemonset.js';
import type { ConformancePlugin } from './conformance-plugin.js';
import { statefulSetPlugin } from './conformance-statefulset.js';

const replicaSetPlugin: ConformancePlugin = { kind: 'ReplicaSet', needs: ['ReplicaSet'] };
const deploymentPlugin: ConformancePlugin = { kind: 'Deployment', needs: ['Deployment', 'ReplicaSet'] };
const jobPlugin: ConformancePlugin = { kind: 'Job', needs: ['Job'] };
const ttlAfterFinishedPlugin: ConformancePlugin = {
  kind: 'TTLAfterFinished',
  needs: ['Job', 'TTLAfterFinished'],
  eventKinds: [],
};
const cronJobPlugin: ConformancePlugin = {
  kind: 'CronJob',
  needs: ['CronJob', 'Job'],
  lists: [{ kind: 'CronJob', field: 'cronJobs', beforeJobs: true }],
};

export const PLUGINS: readonly ConformancePlugin[] = [
  replicaSetPlugin,
  deploymentPlugin,
  jobPlugin,
  ttlAfterFinishedPlugin,
  cronJobPlugin,
  daemonSetPlugin,
  statefulSetPlugin,
];

export function pluginOf(kind: string): ConformancePlugin {
  const plugin = PLUGINS.find((p) => p.kind === kind);
  if (plugin === undefined)
    throw new Error(`no conformance plug-in for kind ${kind} (test/helpers/conformance-plugins.ts)`);
  return plugin;
}

/** The kinds fleetq owns on its side of a conformance run: what every plug-in's scenarios need. */
export function ownedKinds(plugins: readonly ConformancePlugin[] = PLUGINS): string[] {
  return [...new Set(plugins.flatMap((p) => p.needs))];
}

/** The kinds whose Events the comparison keeps. */
export function comparedEventKinds(plugins: readonly ConformancePlugin[] = PLUGINS): Set<string> {
  return new Set(plugins.flatMap((p) => p.eventKinds ?? [p.kind]));
}
