// The conformance plug-ins, one registration line per kind (conformance/plugin.ts says what a plug-in carries).
// The order is the normalized state's (each plug-in's part in turn, then the pods) and the poll's (lists in this
// order, each `before` one moved ahead of its kind's list): owners first.
import { cronJobPlugin } from './cronjob.js';
import { daemonSetPlugin } from './daemonset.js';
import { deploymentPlugin } from './deployment.js';
import { jobPlugin } from './job.js';
import { jobSetPlugin } from './jobset.js';
import { leaderWorkerSetPlugin } from './leaderworkerset.js';
import type { ConformancePlugin } from './plugin.js';
import { replicaSetPlugin } from './replicaset.js';
import { statefulSetPlugin } from './statefulset.js';
import { ttlAfterFinishedPlugin } from './ttl-after-finished.js';

export const PLUGINS: readonly ConformancePlugin[] = [
  deploymentPlugin,
  replicaSetPlugin,
  jobPlugin,
  ttlAfterFinishedPlugin,
  cronJobPlugin,
  daemonSetPlugin,
  statefulSetPlugin,
  jobSetPlugin,
  leaderWorkerSetPlugin,
];

export function pluginOf(kind: string, plugins: readonly ConformancePlugin[] = PLUGINS): ConformancePlugin {
  const plugin = plugins.find((p) => p.kind === kind);
  if (plugin === undefined)
    throw new Error(`no conformance plug-in for kind ${kind} (test/helpers/conformance/plugins.ts)`);
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
