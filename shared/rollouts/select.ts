// Which registry clusters a FleetRollout selects, which wave each belongs to, and what an int-or-percent comes to.
// Pure; the planner (plan.ts) calls these when a revision starts and when a cluster joins.
import type { ClusterSelector, IntOrPercent, Wave } from './types.js';

/** A cluster of the registry as a rollout sees it: its name and labels. */
export type RegistryCluster = { readonly name: string; readonly labels?: Readonly<Record<string, string>> };

/** The cluster is in `names` (when given) and carries every label of `matchLabels` (when given); {} matches all. */
export function matchesSelector(cluster: RegistryCluster, selector: ClusterSelector): boolean {
  if (selector.names !== undefined && !selector.names.includes(cluster.name)) return false;
  const labels = cluster.labels ?? {};
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

/** The clusters `selector` selects, sorted by name. */
export function selectClusters(clusters: readonly RegistryCluster[], selector: ClusterSelector): RegistryCluster[] {
  return clusters.filter((c) => matchesSelector(c, selector)).sort((a, b) => compare(a.name, b.name));
}

/**
 * The wave of each selected cluster: the first wave whose selector matches it; a wave without a selector (the
 * last) takes every cluster no earlier wave took, and so does the last wave when no wave matches.
 */
export function assignWaves(selected: readonly RegistryCluster[], waves: readonly Wave[]): Map<string, string> {
  const last = waves[waves.length - 1]?.name ?? '';
  const byCluster = new Map<string, string>();
  for (const c of selected) {
    const wave = waves.find((w) => w.clusters === undefined || matchesSelector(c, w.clusters));
    byCluster.set(c.name, wave?.name ?? last);
  }
  return byCluster;
}

/** A wave's concurrency: a count, or a percent of its clusters rounded up; at least 1. */
export function concurrencyOf(value: IntOrPercent, clustersInWave: number): number {
  const n = 'count' in value ? value.count : Math.ceil((value.percent * clustersInWave) / 100);
  return Math.max(1, n);
}

/** The failure budget: a count, or a percent of the selected clusters rounded down (a safety limit). */
export function failureBudgetOf(value: IntOrPercent, selectedClusters: number): number {
  return 'count' in value ? value.count : Math.floor((value.percent * selectedClusters) / 100);
}

/** Code-point order (locale-independent, so a plan is the same on every machine). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
