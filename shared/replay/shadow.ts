// `fleetq replay shadow`: two builds of the planners over one recorded history. State is rebuilt from the log
// event by event with the cache's own applyEvent (shared/cache/apply-event.ts) into an in-memory cache store;
// after each event, every key it affects (the forwarder's mapping, shared/forwarder/event-keys.ts) is observed
// through a cache-only view and planned by both builds, at the event's own time. A decision that differs
// (actions, status writes, requeueAfter) is reported with the event that led there. Streaming: the log is read
// record by record; only the rebuilt state (one copy of each live object) is held. No cluster, no queue.
//
// A build is `current`, a path or a git ref (shadow-build.ts). Each difference carries the fields that differ
// (shadow-diff.ts); the report counts differing decisions by kind and by the action they differ in, over all of
// them (not only the ones kept). Printed by shadow-format.ts.
import { isDeepStrictEqual } from 'node:util';
import { applyEvent } from '../cache/apply-event.js';
import type { CachedObject } from '../cache/cache-entry.js';
import { CachedClusterView } from '../cache/cached-cluster-view.js';
import { MemoryCacheStore } from '../cache/memory-cache-store.js';
import type { Controller, PlanResult } from '../controllers/controller.js';
import { eventKeys, type KeyContext } from '../forwarder/event-keys.js';
import { PreviousState } from '../forwarder/previous-state.js';
import { kindOfResource, watchedResources, type KubeObject } from '../forwarder/resources.js';
import { WorkloadIndex } from '../forwarder/workload-index.js';
import type { LiveClusterView } from '../kube/cluster-view.js';
import { keyString, type ReconcileKey } from '../kube/key.js';
import { isTruncatedObject } from '../queue/history/event-log.js';
import type { LogRecord } from '../queue/history/log-record.js';
import type { Controllers } from './shadow-build.js';
import { changeTopic, fieldChanges, type FieldChange } from './shadow-diff.js';

export { loadControllers, type Controllers } from './shadow-build.js';

export type Decision = { readonly actions: unknown; readonly requeueAfter?: number; readonly error?: string };

export type Difference = {
  readonly key: string;
  /** The event after which the two builds decided differently. */
  readonly event: {
    readonly index: number;
    readonly type: string;
    readonly resource: string;
    readonly name: string;
    readonly resourceVersion: string;
    readonly observedAt: number;
  };
  readonly a: Decision;
  readonly b: Decision;
  /** The fields that differ (shadow-diff.ts), at most MAX_CHANGES of them; `changed` counts them all. */
  readonly changes: readonly FieldChange[];
  readonly changed: number;
};

/** Differing decisions of one kind that differ in one action type (or requeueAfter, error). */
export type KindActionCount = { readonly kind: string; readonly action: string; readonly differing: number };

export type ShadowOptions = {
  readonly cluster?: string;
  readonly owns: ReadonlySet<string>;
  readonly a: Controllers;
  readonly b: Controllers;
  /** Called after each record is read, with the count so far and the record (its observedAt, for an ETA). */
  readonly onProgress?: (events: number, record: LogRecord) => void;
  /** Differences kept in the report (default 10,000); beyond it they are counted only, so memory stays bounded. */
  readonly maxDifferences?: number;
};

/** Distinct failure messages counted in a report; beyond it the rest go under one `(other)` entry. */
const MAX_FAILURE_KINDS = 50;

export type ShadowReport = {
  readonly events: number;
  readonly decisions: number;
  /** Decisions that failed (observe or plan threw, e.g. a read the log cannot answer), on either side. */
  readonly failed: number;
  /** Decisions with at least one action or a requeueAfter, on either side. */
  readonly acting: number;
  /** Decisions that differ; `differences` holds the first maxDifferences of them. */
  readonly differing: number;
  readonly differences: Difference[];
  /** Every differing decision, by kind and by what it differs in (one decision may count under several actions). */
  readonly byKindAction: KindActionCount[];
  /** Records not replayed, or keys not planned, by reason (another cluster, a truncated object, an invalid key…). */
  readonly skipped: { readonly reason: string; readonly count: number }[];
  /** Failed decisions by error message (either side), most frequent first. */
  readonly failures: { readonly error: string; readonly count: number }[];
};

/** A view of the rebuilt state only: a read the cache cannot answer fails instead of reaching a cluster. */
function offlineLive(cluster: string): LiveClusterView {
  const refuse = (): never => {
    throw new Error('shadow replay reads the log only: this read needs the API');
  };
  return new Proxy({ cluster } as unknown as LiveClusterView, {
    get: (target, prop) => (prop === 'cluster' ? cluster : prop in target ? Reflect.get(target, prop) : refuse),
  });
}

async function decide(
  controller: Controller | undefined,
  view: CachedClusterView,
  key: ReconcileKey,
  now: Date,
): Promise<Decision> {
  if (!controller) return { actions: [], error: `no controller for ${key.kind}` };
  try {
    const observed = await controller.observe(view, key, now);
    const r: PlanResult = controller.plan(observed, now);
    return { actions: r.actions, ...(r.requeueAfter !== undefined && { requeueAfter: r.requeueAfter }) };
  } catch (err) {
    return { actions: [], error: err instanceof Error ? err.message : String(err) };
  }
}

function nameOf(o: unknown): string {
  const m = (o as KubeObject | null)?.metadata;
  return `${m?.namespace ? `${m.namespace}/` : ''}${m?.name ?? ''}`;
}

export async function shadow(records: AsyncIterable<LogRecord>, o: ShadowOptions): Promise<ShadowReport> {
  const store = new MemoryCacheStore();
  const index = new WorkloadIndex();
  const previous = new PreviousState();
  let cluster = o.cluster;
  let view: CachedClusterView | undefined;
  let ctx: KeyContext | undefined;
  const cachedKinds = new Set<string>();
  const differences: Difference[] = [];
  const byKindAction = new Map<string, number>();
  let events = 0;
  let decisions = 0;
  let failed = 0;
  let acting = 0;
  let differing = 0;
  const maxDifferences = o.maxDifferences ?? 10_000;
  const failures = new Map<string, number>();
  const countIn = (m: Map<string, number>, reason: string): void => {
    const k = m.has(reason) || m.size < MAX_FAILURE_KINDS ? reason : '(other)';
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  const countFailure = (error: string): void => countIn(failures, error);
  const skipped = new Map<string, number>();
  const skip = (reason: string): void => countIn(skipped, reason);
  // A relist is many LISTED records of one resource with one observedAt: applied as one replace.
  let listed: { resource: string; at: number; objects: CachedObject[]; last: LogRecord; index: number } | undefined;

  const compare = async (keys: ReconcileKey[], r: LogRecord, i: number): Promise<void> => {
    if (!view) return;
    const now = new Date(r.observedAt);
    for (const key of keys) {
      const [a, b] = [await decide(o.a.get(key.kind), view, key, now), await decide(o.b.get(key.kind), view, key, now)];
      decisions++;
      if (a.error !== undefined || b.error !== undefined) {
        failed++;
        countFailure(a.error ?? b.error ?? '');
      }
      const acts = (d: Decision): boolean => (d.actions as unknown[]).length > 0 || d.requeueAfter !== undefined;
      if (acts(a) || acts(b)) acting++;
      if (isDeepStrictEqual(a, b)) continue;
      const { changes, total } = fieldChanges(a, b);
      for (const topic of new Set(changes.map((c) => changeTopic(c, a, b)))) {
        const k = `${key.kind}\0${topic}`;
        byKindAction.set(k, (byKindAction.get(k) ?? 0) + 1);
      }
      if (differing++ >= maxDifferences) continue;
      differences.push({
        key: keyString(key),
        event: {
          index: i,
          type: r.type,
          resource: r.resource,
          name: nameOf(r.object),
          resourceVersion: r.resourceVersion,
          observedAt: r.observedAt,
        },
        a,
        b,
        changes,
        changed: total,
      });
    }
  };
  const keysOf = (r: LogRecord, type: 'ADDED' | 'MODIFIED' | 'DELETED'): ReconcileKey[] => {
    if (!ctx) return [];
    try {
      const object = r.object as KubeObject;
      const before = previous.get(r.resource, object);
      const mapped = eventKeys({ type, resource: r.resource, object, ...(before && { previous: before }) }, ctx);
      for (const bad of mapped.invalid) skip(`invalid key (${bad.reason})`);
      return mapped.keys;
    } catch (err) {
      skip(`keys not mapped (${err instanceof Error ? err.message : String(err)})`);
      return [];
    }
  };
  const flushListed = async (): Promise<void> => {
    if (!listed) return;
    const l = listed;
    listed = undefined;
    const kind = kindOfResource(l.resource);
    cachedKinds.add(kind);
    await applyEvent(store, { type: 'LISTED', kind, objects: l.objects, resourceVersion: l.last.resourceVersion });
    index.replace(l.resource, l.objects as KubeObject[]);
    previous.replace(l.resource, l.objects as KubeObject[]);
    const keys = new Map<string, ReconcileKey>();
    for (const obj of l.objects) for (const k of keysOf({ ...l.last, object: obj }, 'ADDED')) keys.set(keyString(k), k);
    await compare([...keys.values()], l.last, l.index);
  };

  for await (const r of records) {
    if (cluster === undefined) cluster = r.cluster;
    if (r.cluster !== cluster) {
      skip('another cluster');
      continue;
    }
    const metadata = (r.object as KubeObject | null)?.metadata;
    if (typeof metadata !== 'object' || metadata === null || typeof metadata.name !== 'string') {
      skip('an object without metadata.name');
      continue;
    }
    // A stub left by the entry cap has no spec or status: held, it would stand for the object; skipped, the
    // state keeps the last whole version (a deletion needs only the identity, so it is replayed).
    if (isTruncatedObject(r.object) && r.type !== 'DELETED') {
      skip('an object truncated in the log (larger than its entry cap)');
      continue;
    }
    if (!view) {
      // Every kind the forwarder watches for these owners starts empty and synced: the log says what exists.
      for (const resource of watchedResources(o.owns)) {
        const kind = kindOfResource(resource);
        cachedKinds.add(kind);
        await applyEvent(store, { type: 'LISTED', kind, objects: [], resourceVersion: '0' });
      }
      view = new CachedClusterView({ store, live: offlineLive(cluster), cachedKinds, readYourWrites: false });
      ctx = { cluster, owns: o.owns, index };
    }
    const i = events++;
    o.onProgress?.(events, r);
    let kind: string;
    try {
      kind = kindOfResource(r.resource);
    } catch {
      skip(`resource ${r.resource} unknown to this build`);
      continue;
    }
    if (r.type === 'LISTED') {
      if (listed && (listed.resource !== r.resource || listed.at !== r.observedAt)) await flushListed();
      listed ??= { resource: r.resource, at: r.observedAt, objects: [], last: r, index: i };
      listed.objects.push(r.object as CachedObject);
      listed.last = r;
      continue;
    }
    await flushListed();
    cachedKinds.add(kind);
    const keys = keysOf(r, r.type);
    await applyEvent(store, { type: r.type, kind, object: r.object as CachedObject });
    index.apply(r.resource, r.type, r.object as KubeObject);
    previous.apply(r.resource, r.type, r.object as KubeObject);
    await compare(keys, r, i);
  }
  await flushListed();
  const byCount = [...failures].sort((x, y) => y[1] - x[1]).map(([error, count]) => ({ error, count }));
  const skippedByCount = [...skipped].sort((x, y) => y[1] - x[1]).map(([reason, count]) => ({ reason, count }));
  const kindActions = [...byKindAction]
    .map(([k, differing]) => {
      const [kind = '', action = ''] = k.split('\0');
      return { kind, action, differing };
    })
    .sort((x, y) => x.kind.localeCompare(y.kind) || y.differing - x.differing || x.action.localeCompare(y.action));
  return {
    events,
    decisions,
    failed,
    acting,
    differing,
    differences,
    byKindAction: kindActions,
    skipped: skippedByCount,
    failures: byCount,
  };
}
