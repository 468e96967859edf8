// The comparable form of one side's end state: names with random suffixes, uids, timestamps and
// resourceVersions are normalized away. The core names no kind: each registered plug-in (conformance/plugin.ts)
// brings its part of the state, how its objects are keyed (a Deployment's ReplicaSet by revision, `web@2`), what
// its pods add to their state and which Events are compared; the core adds the pods (the base list) and makes the
// plug-ins' messages comparable.
import { controllerOf, isPodReady, isTerminating } from './model.js';
import type { ConformancePlugin, Naming, ObjectNames } from './plugin.js';
import { comparedEventKinds, PLUGINS } from './plugins.js';
import type { Condition, KubeEvent, ObjectMeta, Snapshot } from './types.js';

export type Normalized = {
  /**
   * Each plug-in's part (conformance/plugin.ts), in registration order and only once its own resources are
   * listed: `deployments`, `replicaSets`, `jobs` (only when the namespace has Jobs), `cronJobs`, `daemonSets`, ...
   */
  [part: string]: Record<string, unknown> | undefined;
  /** Active and terminating pods per owner key, counted by state. */
  pods: Record<string, Record<string, number>>;
};

export type NormalizedSide = {
  state: Normalized;
  /**
   * The events of each compared kind's objects as the set of `Reason (Type)` recorded on it (a difference
   * reads `ReplicaSet/web@2.FailedCreate (Warning): (absent) / true`), keyed by `<kind>/<key>` with the key its
   * plug-in names the object by (a Deployment's ReplicaSets by revision, `ReplicaSet/web@2`, and ReplicaSets
   * gone by the time of the comparison as `ReplicaSet/deleted`: compared apart, see the runner).
   */
  events: Record<string, Record<string, true>>;
  /** object key → raw value (pod-template-hash), for the exact-hash comparison. */
  hashes: Record<string, string>;
  /** kubectl outputs recorded by the scenario (only in the summary's kubectl checkpoint). */
  recordings?: Record<string, unknown>;
};

/** The snapshot lists the plug-in's own objects (always, or the scenario created one of its kind on this side). */
function isListed(s: Snapshot, p: ConformancePlugin): boolean {
  const own = p.lists?.find((l) => l.kind === p.kind);
  if (own === undefined) return false;
  return own.field === undefined ? s.custom?.[own.kind] !== undefined : s[own.field] !== undefined;
}

/**
 * Refuses a snapshot holding objects no registered plug-in lists (a typed field or a `custom` kind): they would be
 * silently left out of the comparison.
 */
function refuseUnclaimed(s: Snapshot, plugins: readonly ConformancePlugin[]): void {
  const lists = plugins.flatMap((p) => p.lists ?? []);
  const fields = new Set<string>(['pods', ...lists.flatMap((l) => (l.field === undefined ? [] : [l.field]))]);
  const custom = new Set(lists.filter((l) => l.field === undefined).map((l) => l.kind));
  const unclaimed = [
    ...Object.entries(s)
      .filter(([k, v]) => Array.isArray(v) && v.length > 0 && !fields.has(k))
      .map(([k]) => `field ${k}`),
    ...Object.entries(s.custom ?? {})
      .filter(([k, v]) => v.length > 0 && !custom.has(k))
      .map(([k]) => `kind ${k}`),
  ];
  if (unclaimed.length > 0)
    throw new Error(
      `snapshot holds objects no conformance plug-in lists (${unclaimed.join(', ')}): ` +
        'register a plug-in for the kind in test/helpers/conformance/plugins.ts',
    );
}

/** The names of the side, made comparable (conformance/plugin.ts: Naming). */
function naming(s: Snapshot, namespace: string, plugins: readonly ConformancePlugin[]): Naming {
  const names = new Map<string, ObjectNames>();
  for (const p of plugins) if (p.names !== undefined) names.set(p.kind, p.names(s));
  const renames = [...names.values()].flatMap((n) => [...(n.inText ?? [])]);
  // A pod named in a message (a Job's podFailurePolicy FailJob message) has a random name: `<ns>/<pod>`.
  const podNames = s.pods.map((p) => p.metadata.name ?? '').filter((n) => n !== '');
  const text = (m: string | undefined): string | undefined => {
    if (m === undefined) return undefined;
    let out = m;
    for (const name of podNames) out = out.split(`${namespace}/${name} `).join('<ns>/<pod> ');
    out = out.split(namespace).join('<ns>');
    for (const [name, key] of renames) if (name !== key) out = out.split(`"${name}"`).join(`"<${key}>"`);
    return out;
  };
  return {
    key: (kind, name) => names.get(kind)?.byName(name) ?? name,
    owner: (m: ObjectMeta) => {
      const r = controllerOf(m);
      if (!r) return null;
      const flags = r.blockOwnerDeletion === true ? '' : ' (blockOwnerDeletion not set)';
      return `${r.kind}/${names.get(r.kind)?.byOwnerRef(r) ?? r.name}${flags}`;
    },
    text,
    conditions: (cs: readonly Condition[] | undefined) =>
      Object.fromEntries(
        (cs ?? []).map((c) => [c.type, { status: c.status, reason: c.reason, message: text(c.message) }]),
      ),
    annotations: (m: ObjectMeta) =>
      Object.fromEntries(Object.entries(m.annotations ?? {}).map(([k, v]) => [k, text(v)])),
  };
}

export function normalize(
  s: Snapshot,
  namespace: string,
  events: readonly KubeEvent[] = [],
  plugins: readonly ConformancePlugin[] = PLUGINS,
): NormalizedSide {
  refuseUnclaimed(s, plugins);
  const n = naming(s, namespace, plugins);
  const byKind = new Map(plugins.map((p) => [p.kind, p]));
  const finalizers = plugins.flatMap((p) => Object.entries(p.podFinalizers ?? {}));
  const hashes: Record<string, string> = Object.assign({}, ...plugins.map((p) => p.hashes?.(s)));

  const pods: Record<string, Record<string, number>> = {};
  for (const p of s.pods) {
    const r = controllerOf(p.metadata);
    const ownerKey = r ? (n.owner(p.metadata) ?? '?') : 'orphan';
    const plugin = r === undefined ? undefined : byKind.get(r.kind);
    const parts = [p.status?.phase ?? 'NoPhase', isPodReady(p) ? 'ready' : 'unready'];
    if (isTerminating(p.metadata)) parts.push('terminating');
    if (plugin?.podParts !== undefined) parts.push(...plugin.podParts(s, p, n));
    // Any pod, owned or not: a pod its controller released (or never adopted) must not keep the finalizer.
    for (const [finalizer, word] of finalizers) if (p.metadata.finalizers?.includes(finalizer)) parts.push(word);
    if (plugin?.podChecks !== undefined) parts.push(...plugin.podChecks(s, p));
    const byState = (pods[ownerKey] ??= {});
    const state = parts.join('/');
    byState[state] = (byState[state] ?? 0) + 1;
  }

  const eventKinds = comparedEventKinds(plugins);
  const racy = plugins.flatMap((p) => (p.racyEvent === undefined ? [] : [p.racyEvent]));
  const eventReasons: Record<string, Set<string>> = {};
  for (const e of events) {
    const kind = e.involvedObject.kind;
    if (kind === undefined || !eventKinds.has(kind) || racy.some((isRacy) => isRacy(e))) continue;
    const key = `${kind}/${n.key(kind, e.involvedObject.name ?? '?')}`;
    (eventReasons[key] ??= new Set()).add(`${e.reason ?? '?'} (${e.type ?? '?'})`);
  }
  const eventsOut = Object.fromEntries(
    Object.entries(eventReasons).map(([k, v]) => [k, Object.fromEntries([...v].sort().map((r) => [r, true as const]))]),
  );

  const state: Normalized = {
    ...Object.assign(
      {},
      ...plugins.filter((p) => p.normalize !== undefined && isListed(s, p)).map((p) => p.normalize?.(s, n)),
    ),
    pods,
  };
  return { state, events: eventsOut, hashes };
}

export type Difference = { path: string; a: unknown; b: unknown };

/** Every path where a and b differ (objects by key, arrays by index); undefined and missing are equal. */
export function diff(a: unknown, b: unknown, path = ''): Difference[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diff(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
  }
  return [{ path: path || '(root)', a, b }];
}

export function formatDiff(ds: readonly Difference[], labelA: string, labelB: string): string {
  const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));
  return ds.map((d) => `  ${d.path}\n    ${labelA}: ${show(d.a)}\n    ${labelB}: ${show(d.b)}`).join('\n');
}
